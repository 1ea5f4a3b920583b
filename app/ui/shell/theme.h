// The window's look: the everyday dark theme, or presentation mode for teaching -- larger type
// (the font atlas rebuilt at 1.5x, so text stays sharp), high contrast (white on black, bright
// accents, thicker borders) and less chrome. Figures follow: the cairo drawer scales its text
// and lines by figure_font_scale().
#pragma once

namespace pl::ui {

constexpr float kBaseFontPixels = 16.0f;
constexpr float kPresentationScale = 1.5f;

// Sets the style and rebuilds the fonts for `presentation` at `dpi_scale` (the monitor's content
// scale). Call between frames. Returns the font file loaded.
const char* apply_theme(bool presentation, float dpi_scale);

// Figures on screen set their text at this many times the files' sizes (ticks of 10 px): the
// UI's own scale (the monitor's, and kPresentationScale in presentation mode) times
// kFigureTextScale, so that a tick label reads at about four fifths of the UI's text -- at
// 1x, 10 px ticks beside 16 px controls read as fine print, and stayed so in presentation mode.
constexpr float kFigureTextScale = 1.3f;
// In presentation mode the UI's text is already 1.5x: a figure's margins grown with it as well
// took 230 of a 400 px pane at 1280x800.
constexpr float kPresentationFigureTextScale = 1.1f;
float figure_font_scale();
bool presentation_mode();

}  // namespace pl::ui
