#include "app/ui/panels/check_columns.h"

#include <algorithm>
#include <cmath>

namespace pl::ui {

bool observed_same_text(const scenario::CheckResult& c) {
  return c.passed && c.observed.size() > 24 && c.observed == c.expected;
}

std::string observed_shown(const scenario::CheckResult& c) {
  if (observed_same_text(c)) return "the same text";
  return c.observed.empty() ? c.note : scenario::shown_answer(c, c.observed);
}

CheckColumns check_columns(const std::vector<scenario::CheckResult>& rows, float table_width,
                           const std::function<float(const std::string&)>& width_of) {
  CheckColumns out;
  // Where every observation reads "the same text" or is short, the expected column takes the
  // observed one's room (else scenario 30's messages would wrap to five lines beside a column that
  // says "the same text"). (Not numbers: "2.0503997802734375e-05" would break in three lines in a
  // column a fifth wide.)
  const bool short_ones = std::all_of(rows.begin(), rows.end(), [](const scenario::CheckResult& c) {
    return observed_same_text(c) || observed_shown(c).size() <= 12;
  });
  // Observations that each fit a line in a quarter of the table take a column as wide as the
  // widest of them, no wider: at 2.5 parts of 8, "the same text" and "torch.float16" would sit in
  // 400 px at 1280x800 in presentation mode while scenario 20's messages beside them wrap to three
  // lines.
  float widest = width_of("observed");
  for (const scenario::CheckResult& c : rows) widest = std::max(widest, width_of(observed_shown(c)));
  const bool fixed = widest <= 0.25f * table_width;
  out.expected_weight = short_ones || fixed ? 3.5f : 2.5f;
  // ImGui floors a fixed column's width to whole pixels: the width rounded up, and a pixel to
  // spare, keep the widest observation inside it.
  out.observed_width = fixed ? std::ceil(widest) + 1 : 0;
  out.observed_weight = short_ones ? 1.5f : 2.5f;
  return out;
}

}  // namespace pl::ui
