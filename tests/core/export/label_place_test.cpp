// A point's name goes where it covers no other name and no other marker, inside the plot.
#include "core/export/label_place.h"

#include <gtest/gtest.h>

namespace pl::figure {
namespace {

double overlap(const LabelBox& a, const LabelBox& b) {
  return std::max(0.0, std::min(a.x1, b.x1) - std::max(a.x0, b.x0)) *
         std::max(0.0, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
}

const LabelBox kPlot{0, 0, 400, 300};

TEST(LabelPlace, RightOfItsMarkerWhenNothingIsThere) {
  const LabelBox b = choose_label_box(60, 12, 5, 100, 150, kPlot, {}, {{96, 146, 104, 154}});
  EXPECT_DOUBLE_EQ(b.x0, 105);
  EXPECT_DOUBLE_EQ((b.y0 + b.y1) / 2, 150);
}

// Two candidates of nearly the same bits and SQNR: the first one's name, right of it, would run
// under the second one's marker (drawn on top of it, it hid the name's first letter).
TEST(LabelPlace, NotUnderAnotherMarker) {
  const std::vector<LabelBox> markers = {{96, 146, 104, 154}, {116, 146, 124, 154}};
  const LabelBox b = choose_label_box(60, 12, 5, 100, 150, kPlot, {}, markers);
  EXPECT_EQ(overlap(b, markers[1]), 0) << b.x0 << "," << b.y0;
  EXPECT_EQ(overlap(b, markers[0]), 0);
  EXPECT_LE(kPlot.x0, b.x0);
}

TEST(LabelPlace, NotOverANamePlacedBeforeAndInsideThePlot) {
  const std::vector<LabelBox> placed = {{105, 144, 165, 156}};
  const LabelBox b = choose_label_box(60, 12, 5, 100, 150, kPlot, placed, {});
  EXPECT_EQ(overlap(b, placed[0]), 0);
  // At the right edge the name goes to the left of its marker.
  const LabelBox edge = choose_label_box(60, 12, 5, 390, 150, kPlot, {}, {});
  EXPECT_LE(edge.x1, kPlot.x1);
}

}  // namespace
}  // namespace pl::figure
