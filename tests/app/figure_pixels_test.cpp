// How big a panel draws its figure in the space it has left (figure_view.h's figure_pixels).
#include <gtest/gtest.h>

#include "app/ui/views/figure_view.h"

namespace pl::ui {
namespace {

TEST(FigurePixels, RoomEnoughGivesTheAspectWithinTheSpace) {
  const FigurePixels p = figure_pixels(1000, 500, 16, 1.6f, false);
  EXPECT_EQ(p.width, 800);  // held by the height
  EXPECT_EQ(p.height, 500);
  const FigurePixels wide = figure_pixels(600, 900, 16, 1.6f, false);
  EXPECT_EQ(wide.width, 600);  // held by the width
  EXPECT_EQ(wide.height, 375);
}

TEST(FigurePixels, NeverShorterThanSixteenLines) {
  const FigurePixels p = figure_pixels(990, 100, 16, 1.6f, false);
  EXPECT_EQ(p.height, 256);  // 16 lines of 16 pixels: the view scrolls to the rest
  EXPECT_EQ(p.width, 409);
}

TEST(FigurePixels, PresentationModeFillsTheWidthEvenWithNoHeightLeft) {
  // In presentation mode's large type the checks took the whole screen: the aspect came from a
  // height of about nothing, and the figure was a strip a few pixels high.
  const FigurePixels p = figure_pixels(1240, 4, 24, 1.6f, true);
  EXPECT_EQ(p.width, 1240);
  EXPECT_EQ(p.height, 384);  // 16 lines of 24 pixels
  const FigurePixels roomy = figure_pixels(1240, 700, 24, 1.6f, true);
  EXPECT_EQ(roomy.width, 1240);  // the whole space, its own aspect (at least 1.2)
  EXPECT_EQ(roomy.height, 700);
}

}  // namespace
}  // namespace pl::ui
