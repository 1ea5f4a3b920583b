// How big a panel draws its figure in the space it has left (figure_view.h's figure_pixels).
#include <gtest/gtest.h>

#include "app/ui/views/figure_view.h"

namespace pl::ui {
namespace {

// A fixed aspect left a 780 px chart in a 1280 px window; a height kept above the space ran the
// figure past the window's edge. The figure is the space.
TEST(FigurePixels, TheFigureIsTheSpaceLeft) {
  const FigurePixels p = figure_pixels(1000, 500);
  EXPECT_EQ(p.width, 1000);
  EXPECT_EQ(p.height, 500);
  const FigurePixels tall = figure_pixels(600, 900);
  EXPECT_EQ(tall.width, 600);
  EXPECT_EQ(tall.height, 900);
}

TEST(FigurePixels, NoSpaceIsStillAPixel) {
  const FigurePixels p = figure_pixels(0, -4);
  EXPECT_EQ(p.width, 1);
  EXPECT_EQ(p.height, 1);
}

}  // namespace
}  // namespace pl::ui
