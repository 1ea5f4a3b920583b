// The accumulation models' grammar: one text, from the tables the parser reads, that names every
// model and rounding -- the help of matmul once omitted i32 because it was typed by hand.
#include "core/accumulate/accumulation_spec.h"

#include <gtest/gtest.h>

#include <string>

namespace pl::experiment {
namespace {

// The dot sweep's help offered i32, which the sweep refuses (its inputs are floats).
TEST(AccumulationSpec, TheFloatOnlyGrammarLeavesOutInt32) {
  EXPECT_EQ(accumulation_grammar(false).find("i32"), std::string::npos);
  EXPECT_NE(accumulation_grammar(false).find("f32:blas"), std::string::npos);
  EXPECT_NE(accumulation_grammar().find("i32"), std::string::npos);
}

TEST(AccumulationSpec, TheGrammarNamesEveryModel) {
  const std::string g = accumulation_grammar();
  for (int k = 0; k < 8; ++k) {
    const auto kind = static_cast<AccumKind>(k);
    const std::string n(accum_kind_name(kind));
    const std::string spelled = kind == AccumKind::Float64 ? "f64"
                                : kind == AccumKind::Int32 ? "i32"
                                : kind == AccumKind::Blas  ? "f32:blas"
                                                           : "FMT:" + n;
    EXPECT_NE(g.find(spelled), std::string::npos) << n << " missing from: " << g;
  }
  for (int r = 0; r < kRoundingCount; ++r)
    EXPECT_NE(g.find(std::string(":") + rounding_name(static_cast<Rounding>(r))), std::string::npos) << g;
}

// Every example spelling the grammar shows parses.
TEST(AccumulationSpec, EveryExampleOfTheGrammarParses) {
  for (const char* spec : {"f64", "i32", "f32:blas", "f64:blas", "f16:sequential", "f16:pairwise", "f16:pairwise:32",
                           "bf16:kahan", "f16:chunked:128", "f32:multiterm", "f32:multiterm:16:2", "f32:sequential:rtz",
                           "e6m9:sequential", "e4m3b9:fnuz:kahan"}) {
    const auto a = parse_accumulation(spec);
    EXPECT_TRUE(a) << spec << ": " << a.error();
  }
  const auto sideways = parse_accumulation("f32:sideways");
  ASSERT_FALSE(sideways);
  EXPECT_NE(sideways.error().find(accumulation_grammar()), std::string::npos) << sideways.error();
}

// Bug: "f32:sequential:rtz:rne" said "'rtz' is not a size": two roundings are said to be two.
TEST(AccumulationSpec, TwoRoundingsAreSaidToBeTwo) {
  for (const char* spec : {"f32:sequential:rtz:rne", "f16:pairwise:8:up:down"}) {
    const auto a = parse_accumulation(spec);
    ASSERT_FALSE(a) << spec;
    EXPECT_NE(a.error().find("gives two roundings: give one, at the end"), std::string::npos) << a.error();
  }
  EXPECT_TRUE(parse_accumulation("f16:pairwise:8:rtz"));
}

// Bug: a size with a space or a sign before its digits ("f32:pairwise: 8", "+8") was taken.
TEST(AccumulationSpec, ASizeIsDigitsAlone) {
  for (const char* spec :
       {"f32:pairwise: 8", "f32:pairwise:+8", "f32:chunked:8 ", "f32:pairwise:0x8", "f16:multiterm:16: 3"}) {
    const auto a = parse_accumulation(spec);
    EXPECT_FALSE(a) << spec;
  }
  EXPECT_TRUE(parse_accumulation("f32:pairwise:8"));
  EXPECT_TRUE(parse_accumulation("f16:multiterm:16:3"));
}

}  // namespace
}  // namespace pl::experiment
