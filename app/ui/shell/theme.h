// The window's look: the everyday dark theme, or presentation mode for teaching -- larger type
// (the font atlas rebuilt at 1.5x, so text stays sharp), high contrast (white on black, bright
// accents, thicker borders) and less chrome. Figures follow: the cairo drawer scales its text
// and lines by figure_font_scale(), which grows with the figure's pane in presentation mode.
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
// 1x, 10 px ticks beside 16 px controls read as fine print, and would stay so in presentation mode.
constexpr float kFigureTextScale = 1.3f;
// In presentation mode a small figure pane sets its text smaller than that: a figure's margins
// grown with the UI's 1.5x would take 230 of a 400 px pane at 1280x800. A pane of kRoomyFigureLines
// lines of the UI's text or more gets the full kFigureTextScale; one of kCompactFigureLines or
// fewer gets kPresentationFigureTextScale; one between, a scale between.
constexpr float kPresentationFigureTextScale = 1.1f;
constexpr float kCompactFigureLines = 14.0f;
constexpr float kRoomyFigureLines = 22.0f;
float figure_text_scale(bool presentation, float ui_scale, int width, int height);
// figure_text_scale() for the current theme and a figure of width x height pixels.
float figure_font_scale(int width, int height);
bool presentation_mode();

}  // namespace pl::ui
