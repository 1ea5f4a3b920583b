// The Scenarios panel's table of checks: how its columns share the width.
#include "app/ui/panels/check_columns.h"

#include <gtest/gtest.h>

namespace pl::ui {
namespace {

// Text 10 px a character.
float ten_a_character(const std::string& s) { return 10.0f * static_cast<float>(s.size()); }

scenario::CheckResult check(std::string expected, std::string observed) {
  scenario::CheckResult c;
  c.passed = expected == observed;
  c.expected = std::move(expected);
  c.observed = std::move(observed);
  return c;
}

// Bug: scenario 20's observations ("the same text" under every exception's message, and one
// dtype, "torch.float16") kept 2.5 parts of 8 of the table, 400 px at 1280x800 in presentation
// mode, while the messages beside them wrapped to three lines. Observations that fit a line in a
// quarter of the table take a column as wide as the widest, and the expected column the rest.
TEST(CheckColumns, ShortObservationsTakeAColumnAsWideAsTheWidest) {
  const std::string message = "AttributeError: 'Tensor' object has no attribute 'to_'";
  const std::vector<scenario::CheckResult> rows = {check(message, message), check("torch.float16", "torch.float16")};
  EXPECT_EQ(observed_shown(rows[0]), "the same text");
  const CheckColumns c = check_columns(rows, 1200, ten_a_character);
  EXPECT_FLOAT_EQ(c.observed_width, 131);  // "torch.float16", 13 characters, and a pixel to spare
  EXPECT_GT(c.expected_weight, c.check_weight);
}

// Observations too long for a line in a quarter of the table share the width with the others.
TEST(CheckColumns, LongObservationsStretchWithTheRest) {
  const std::vector<scenario::CheckResult> rows = {check("between 1e-05 and 0.0003", "2.0503997802734375e-05")};
  const CheckColumns c = check_columns(rows, 600, ten_a_character);
  EXPECT_EQ(c.observed_width, 0);
  EXPECT_FLOAT_EQ(c.observed_weight, c.expected_weight);
}

}  // namespace
}  // namespace pl::ui
