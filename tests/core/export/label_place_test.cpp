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

// A line drawn through the place right of the marker (a frontier passing by, scenario 29's
// "i8 channel") struck through the name: the name goes where no line is.
TEST(LabelPlace, NotAcrossALine) {
  const std::vector<LabelSegment> lines = {{90, 148, 200, 152}};
  const LabelBox b = choose_label_box(60, 12, 5, 100, 150, kPlot, {}, {}, lines);
  const LabelSegment& l = lines[0];
  for (double t = 0; t <= 1; t += 0.01) {  // no point of the line inside the name
    const double x = l.x0 + t * (l.x1 - l.x0), y = l.y0 + t * (l.y1 - l.y0);
    EXPECT_FALSE(x > b.x0 && x < b.x1 && y > b.y0 && y < b.y1) << b.x0 << "," << b.y0;
  }
  // A reference line down through the right-hand place: the name goes left of the marker.
  const LabelBox left = choose_label_box(60, 12, 5, 100, 150, kPlot, {}, {}, {{130, 0, 130, 300}});
  EXPECT_LT(left.x1, 100);
}

// Bug: a leader ran from its name past another marker (the plan frontier's "i8 channel" below its
// dot, the leader up past "e4m3fn channel"'s, at 1280x800 in presentation mode), and read as
// that marker's. A place whose leader passes through another marker is dearer than one clear.
TEST(LabelPlace, NoLeaderThroughAnotherMarker) {
  const std::vector<LabelBox> beside = {{105, 144, 165, 156}, {35, 144, 95, 156}};  // the line's own places taken
  const std::vector<LabelBox> markers = {{96, 146, 104, 154}, {101, 143, 104, 147}};  // its own, and one up-right
  const LabelBox b = choose_label_box(60, 12, 5, 100, 150, kPlot, beside, markers);
  const auto leader = leader_of(b, 100, 150, 12, 0);
  ASSERT_TRUE(leader.has_value()) << b.x0 << "," << b.y0;
  for (double t = 0; t <= 1; t += 0.01) {  // no point of the leader inside the other marker
    const double x = leader->x0 + t * (leader->x1 - leader->x0), y = leader->y0 + t * (leader->y1 - leader->y0);
    EXPECT_FALSE(x > 101 && x < 104 && y > 143 && y < 147) << "name at " << b.x0 << "," << b.y0;
  }
}

// The legend is drawn over the plot after the names: a name under it is hidden.
TEST(LabelPlace, NotUnderTheLegend) {
  const LabelBox legend{100, 100, 250, 200};
  const LabelBox b = choose_label_box(60, 12, 5, 90, 150, kPlot, {}, {}, {}, &legend);
  EXPECT_EQ(overlap(b, legend), 0) << b.x0 << "," << b.y0;
}

// A name moved off its marker's line does not take a place whose leader crosses a leader drawn
// before (at 1280x800 "e4m3fn mx" and "i8 channel" had two crossing leaders under their markers).
// Here the places beside the marker are taken, and an earlier leader runs just above the marker,
// across the way up to every place above it: the name goes below.
TEST(LabelPlace, LeadersDoNotCross) {
  const double h = 12;
  const std::vector<LabelBox> markers = {{105, 144, 165, 156}, {35, 144, 95, 156}};
  const std::vector<LabelSegment> leaders = {{90, 146, 110, 146}};
  const LabelBox b = choose_label_box(60, h, 5, 100, 150, kPlot, {}, markers, {}, nullptr, leaders);
  EXPECT_GT(b.y0, 150) << b.x0 << "," << b.y0;
  const auto leader = leader_of(b, 100, 150, h, 0);
  ASSERT_TRUE(leader);
  EXPECT_GT(std::min(leader->y0, leader->y1), leaders[0].y0);
}

// A name over or under its marker gets a leader straight up or down to it; one beside it, to the
// middle of its nearer end; one on the marker's line, none.
TEST(LabelPlace, LeaderToTheNearerEdge) {
  const auto down = leader_of({70, 170, 130, 182}, 100, 150, 12, 1);
  ASSERT_TRUE(down);
  EXPECT_DOUBLE_EQ(down->x1, 100);
  EXPECT_DOUBLE_EQ(down->y1, 171);
  const auto right = leader_of({110, 170, 170, 182}, 100, 150, 12, 1);
  ASSERT_TRUE(right);
  EXPECT_DOUBLE_EQ(right->x1, 109);
  EXPECT_DOUBLE_EQ(right->y1, 176);
  EXPECT_FALSE(leader_of({105, 145, 165, 157}, 100, 150, 12, 1));
}

}  // namespace
}  // namespace pl::figure
