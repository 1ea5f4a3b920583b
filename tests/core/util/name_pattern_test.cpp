// Tensor-name patterns (scan --tensors): searched in the name, RE2's syntax, and never slow.
#include "core/util/name_pattern.h"

#include <gtest/gtest.h>

#include <string>

namespace pl {
namespace {

TEST(NamePattern, SearchesTheName) {
  const auto p = NamePattern::compile(R"(layers\.(1|2)\.mlp)");
  ASSERT_TRUE(p) << p.error();
  EXPECT_TRUE(p->found_in("model.layers.1.mlp.down_proj.weight"));
  EXPECT_FALSE(p->found_in("model.layers.3.mlp.down_proj.weight"));
  const auto anchored = NamePattern::compile(R"(^embed.*weight$)");
  ASSERT_TRUE(anchored);
  EXPECT_TRUE(anchored->found_in("embed_tokens.weight"));
  EXPECT_FALSE(anchored->found_in("model.embed_tokens.weight"));
}

TEST(NamePattern, AMalformedPatternSaysWhy) {
  const auto p = NamePattern::compile("(");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().find("missing )"), std::string::npos) << p.error();
}

// Bug: with std::regex, `scan --tensors '(a*)*b'` over a name of a few dozen a's ran for minutes
// and ignored Ctrl-C, and '.*' over a 20,000-character name overflowed the stack (a segfault).
// Both answer at once: the matching is linear in the name.
TEST(NamePattern, NoPatternOrNameMakesTheSearchBacktrackOrRecurse) {
  const auto nested = NamePattern::compile("(a*)*b");
  ASSERT_TRUE(nested);
  EXPECT_FALSE(nested->found_in(std::string(64, 'a')));
  const auto any = NamePattern::compile("(.*)*\\.weight$");
  ASSERT_TRUE(any);
  EXPECT_FALSE(any->found_in("model.layers.10.self_attn.q_proj.bias_with_long_suffix"));
  const std::string long_name(1 << 20, 'a');  // read whole by both patterns
  const auto alternatives = NamePattern::compile("^(a|b)*$");
  ASSERT_TRUE(alternatives);
  EXPECT_TRUE(alternatives->found_in(long_name));
  const auto ending = NamePattern::compile(".*x$");
  ASSERT_TRUE(ending);
  EXPECT_FALSE(ending->found_in(long_name));
}

}  // namespace
}  // namespace pl
