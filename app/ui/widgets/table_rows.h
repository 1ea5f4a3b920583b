// A scrolling table's body rows as they are drawn: the pitch between them, measured (a line of
// text and the cell padding undercount a row in presentation mode's scaled grid, by a pixel and
// a half a row), and one row to bring into view by whole rows. The Formats panel's value table
// and the Promotion grid keep one each.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "app/ui/widgets/flow_layout.h"

namespace pl::ui {

class TableRows {
 public:
  // Brings body row `row` into view over the next frames, with two rows above it.
  void scroll_to(std::optional<size_t> row) {
    wanted_ = row.value_or(kNone);
    kept_ = kNone;
    frames_waited_ = 0;
  }
  void cancel_scroll() { wanted_ = kept_ = kNone; }
  // First thing in each body row `r` of `count` (0: the first under the header), after
  // TableNextRow.
  void at_row(size_t r, size_t count) {
    const float y = ImGui::GetCursorPosY();
    if (r == 0) first_row_y_ = y;
    else if (r + 1 == count) pitch_ = (y - first_row_y_) / float(r), pitch_font_ = ImGui::GetFontSize();
    if (kept_ == r) keep_in_view(r);
    if (wanted_ == r && scroll_to_row(r, first_row_y_, 2, frames_waited_, &kept_y_)) {
      wanted_ = kNone;
      kept_ = r;
      kept_limit_ = ImGui::GetScrollMaxY();
    }
  }
  // A body row's height as drawn on an earlier frame, at the font size now (the text's line
  // grows with it, the padding does not); `estimate` until one drew two rows. (As drawn, it
  // would lag a frame behind a grid that tries three font scales: at 0.9 it would hold the 0.8
  // pitch, and the Promotion grid's pane would flip between two heights, scenario 25 at 1920x1080.)
  // (Whole pixels of the font, as the rows are laid out: 0.8 of a 13 px font makes 10 px lines;
  // within a tenth of a pixel of the pitch drawn.)
  float pitch(float estimate) const {
    return pitch_ > 0 ? pitch_ + std::floor(ImGui::GetFontSize()) - std::floor(pitch_font_) : estimate;
  }

 private:
  // A row brought into view stays there, by whole rows, when the table's height changes before
  // anyone scrolls it: ImGui clamps the scroll to the new, smaller limit, and the top row would sit
  // half under the header (scenario 23's live grid, its pane grown under it a few frames later).
  void keep_in_view(size_t r) {
    const float limit = ImGui::GetScrollMaxY(), y = ImGui::GetScrollY();
    if (std::fabs(limit - kept_limit_) <= 0.5f) {
      if (std::fabs(y - kept_y_) > 0.5f) kept_ = kNone;  // scrolled by hand: left where it is
      return;
    }
    const bool only_clamped = std::fabs(y - kept_y_) <= 0.5f || std::fabs(y - limit) <= 0.5f;
    kept_ = kNone;
    if (only_clamped) scroll_to(r);
  }

  // (Rows as plain numbers, none as kNone: GCC 12 warns that an inlined std::optional<size_t>
  // "may be used uninitialized".)
  static constexpr size_t kNone = SIZE_MAX;
  size_t wanted_ = kNone;
  size_t kept_ = kNone;  // the row scrolled to, while the scroll is where it was put
  float kept_y_ = 0, kept_limit_ = 0;
  int frames_waited_ = 0;  // frames the scroll waited for the table's scroll limit
  float first_row_y_ = 0;  // the first body row's y, under the frozen header
  float pitch_ = 0;
  float pitch_font_ = 0;  // the font size pitch_ was drawn at
};

}  // namespace pl::ui
