// The check behind `--screenshot FILE --check-layout`: after a frame, every window whose content
// runs past its edge with no scrollbar to reach it (a control off the window); every table
// column drawn narrower than its header (its cells cut to "0 0 +" with no way to read them), or
// narrower than its cells' text;
// every figure drawn smaller than the minimum, past the pane it is drawn in, with a plot area
// too small to read, or with its legend running out of the figure. The tests take every panel
// at 1280x800, 1600x1000 and 1920x1080, in normal and presentation mode, through it.
#pragma once

#include <string>
#include <vector>

struct ImVec2;

namespace pl::ui::layout_audit {

inline constexpr float kMinFigureWidth = 320, kMinFigureHeight = 180;
inline constexpr float kMinPlotWidth = 240, kMinPlotHeight = 140;  // the axes' box inside it

void begin_frame();  // forgets the previous frame's figures
// A figure drawn in the current window (its pane) from `min` to `max`, in screen pixels, with
// its plot area and legend box (from plot_layout) at `plot_min`..`plot_max`, `legend_min`..`legend_max`
// (an empty legend box: none).
void note_figure(const char* name, const ImVec2& min, const ImVec2& max, const ImVec2& plot_min, const ImVec2& plot_max,
                 const ImVec2& legend_min, const ImVec2& legend_max);
// Call inside a table (after BeginTable) whose columns are meant to fit the pane's width, as the
// Promotion grid's do (its text shrinks to 0.8 for them): a table that still scrolls sideways is
// a problem, where other tables may scroll to their long last column.
void note_fits_width(const char* what);
// Call right after an item that must be in view, unscrolled (a scenario's look-at in presentation
// mode, which a long story pushed below its pane): one outside its window's visible part is a
// problem.
void note_in_view(const char* what);
// Text that was given `shown` pixels of height where it needs `needed` to be read (a scenario's
// story in presentation mode: stacked above a figure at 1280x800, two lines of it stood above the
// figure and the rest scrolled). Less than that is a problem.
void note_room(const char* what, float shown, float needed);
// Call inside a table, right after its first body row's TableNextRow: fewer than `rows` body rows
// of `row` pixels in view from there, in the table and the panes around it, is a problem (a table
// with one row in view above a figure is a table in name only).
void note_rows_in_view(const char* what, float rows, float row);
// What the frame just ended got wrong, one line each; empty: nothing. Call after ImGui::Render().
std::vector<std::string> problems();

}  // namespace pl::ui::layout_audit
