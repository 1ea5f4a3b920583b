// Figure text keeps the UI's proportion in presentation mode where the pane has room: at
// 1920x1080 the ticks stayed at 16 px beside 24 px controls. A small pane (1280x800's) keeps the
// smaller text that leaves the plot its area.
#include <gtest/gtest.h>

#include "app/ui/shell/theme.h"

namespace pl::ui {
namespace {

TEST(FigureTextScale, EverydayModeIsTheFixedProportion) {
  EXPECT_FLOAT_EQ(figure_text_scale(false, 1.0f, 300, 200), kFigureTextScale);
  EXPECT_FLOAT_EQ(figure_text_scale(false, 2.0f, 1800, 900), 2 * kFigureTextScale);
}

TEST(FigureTextScale, PresentationGrowsWithThePane) {
  const float s = kPresentationScale;
  const float line = kBaseFontPixels * s;
  const auto at = [&](float lines) {
    return figure_text_scale(true, s, static_cast<int>(4 * lines * line), static_cast<int>(lines * line));
  };
  EXPECT_FLOAT_EQ(at(kCompactFigureLines - 4), kPresentationFigureTextScale * s);
  EXPECT_FLOAT_EQ(at(kRoomyFigureLines + 4), kFigureTextScale * s);
  const float mid = at(0.5f * (kCompactFigureLines + kRoomyFigureLines));
  EXPECT_GT(mid, kPresentationFigureTextScale * s);
  EXPECT_LT(mid, kFigureTextScale * s);
  // A wide, short pane is as small as its height; a tall, narrow one as its width allows.
  EXPECT_FLOAT_EQ(figure_text_scale(true, s, 4000, static_cast<int>(8 * line)), kPresentationFigureTextScale * s);
  EXPECT_FLOAT_EQ(figure_text_scale(true, s, static_cast<int>(10 * line), 4000), kPresentationFigureTextScale * s);
}

}  // namespace
}  // namespace pl::ui
