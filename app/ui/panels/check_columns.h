// How the Scenarios panel's table of checks shares its width: the check, what was expected, what
// was observed (a column as wide as its widest entry where those are short), and pass or FAIL.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/scenario/scenario_run.h"

namespace pl::ui {

// A long text observed exactly as expected (an exception's message) is not printed twice: the
// observed column says "the same text".
bool observed_same_text(const scenario::CheckResult& c);
// What the observed column shows for a check: "the same text", the observation as the
// expectation is shown, or the note where there is none.
std::string observed_shown(const scenario::CheckResult& c);

struct CheckColumns {
  float check_weight = 3, expected_weight = 2.5f;  // stretched
  float observed_width = 0;                        // > 0: fixed, pixels; 0: stretched by the weight
  float observed_weight = 2.5f;
};
// The columns for `rows` in a table `table_width` pixels wide, text measured by `width_of`.
CheckColumns check_columns(const std::vector<scenario::CheckResult>& rows, float table_width,
                           const std::function<float(const std::string&)>& width_of);

}  // namespace pl::ui
