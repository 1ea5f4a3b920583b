// Two panes stacked in the space left, with a bar between them that is dragged to move the
// split. One pane fits its content, up to its share of the height (the rest goes to the other,
// so no blank band sits above a squashed figure); in a space too small, each keeps a minimum
// and the panes scroll. Fixed pixel reserves would leave the Promotion panel's third fix below
// the window's edge with hundreds of pixels of grid empty above it.
#pragma once

namespace pl::ui {

// In a scrolling child window, before its EndChild: when its content goes on below the edge,
// fades out the last line and says "more below". (Each SplitView pane does it.)
void mark_more_below();
// The same at the top when it is scrolled down, under `frozen` pixels that stay in place (a
// table's header row): a grid scrolled to a link's row would otherwise hide its first rows
// without a word.
void mark_more_above(float frozen = 0);
// The same at the right edge when the content goes on past it, its words at the top (over a
// table's header row); in a table that scrolls sideways, before its EndTable. Without it, a
// scenario's live Formats table, as tall as its rows, would keep its sideways scrollbar below the
// pane's edge, and float64's bits would run off the right edge with nothing to say so (scenario
// 19's 2^-40).
void mark_more_right();

class SplitView {
 public:
  enum class Fit {
    Top,     // controls, tables and text above a figure that takes the rest
    Bottom,  // a grid above that takes the rest, text below
  };
  explicit SplitView(float fitted_share, Fit fit = Fit::Top) : share_(fitted_share), fit_(fit) {}
  // Begins the top pane (it scrolls when its content needs more than it gets). Each pane keeps
  // at least its lines of text, the bottom at most 72% of the height that way; in a space
  // too small for both, the bottom keeps its lines first.
  // `max_share`, until the bar is dragged, holds the fitted pane to less than its share (a panel's
  // presentation mode, whose large type needs the figure's room).
  void begin_top(const char* id, float min_top_lines = 3, float min_bottom_lines = 18, float max_share = 1.0f);
  // Until the bar is dragged, the fitted pane's share from now on: a pane whose partner has
  // little to show takes more (the Promotion grid while no pair is selected, whose pane below
  // starts with a line of help: at 75% it would scroll above 130 px left blank).
  void prefer_share(float share) {
    if (!dragged_) share_ = share;
  }
  // Ends the top pane, draws the bar (drag it; a double-click restores the first split) and
  // begins the bottom pane: fixed for a figure drawn at its size, or scrolling for text.
  void begin_bottom(bool scrolls = false);
  void end();
  // In the fitted pane, last in it: content that takes the room it gets (a table that scrolls)
  // would reach `height` more pixels below the cursor with room enough. The pane takes that
  // height, up to its share, at once, rather than fitting what was drawn in the room it had.
  void reserve(float height);

 private:
  float share_;  // the most of the height the fitted pane takes
  float first_share_ = -1;
  bool dragged_ = false;  // the bar was dragged since the first split (or its double-click)
  Fit fit_;
  float total_ = 0;       // the height both panes share, this frame (the bar apart)
  float top_ = 0;         // the top pane's height, this frame
  float content_ = 1e9f;  // the fitted pane's content height, measured on the frame before
  float reserved_ = 0;    // this frame's reserve(): how far the fitted pane's content would reach
  // A scrolling bottom pane's content height, measured on the frame before (0: none measured). A
  // Fit::Top pane takes what the text below does not need, up to its content: else the Promotion
  // grid of a scenario's live preview would stand two rows short above a 50 px blank under its
  // answer.
  float bottom_content_ = 0;
  bool bottom_scrolls_ = false;
  const char* id_ = "";
};

}  // namespace pl::ui
