// A scrolling table's body rows as they are drawn: the pitch between them, measured (a line of
// text and the cell padding undercount a row in presentation mode's scaled grid, by a pixel and
// a half a row), and one row to bring into view by whole rows. The Formats panel's value table
// and the Promotion grid keep one each.
#pragma once

#include <cstddef>
#include <optional>

#include "app/ui/widgets/flow_layout.h"

namespace pl::ui {

class TableRows {
 public:
  // Brings body row `row` into view over the next frames, with two rows above it.
  void scroll_to(std::optional<size_t> row) {
    wanted_ = row;
    frames_waited_ = 0;
  }
  void cancel_scroll() { wanted_.reset(); }
  // First thing in each body row `r` of `count` (0: the first under the header), after
  // TableNextRow.
  void at_row(size_t r, size_t count) {
    const float y = ImGui::GetCursorPosY();
    if (r == 0) first_row_y_ = y;
    else if (r + 1 == count) pitch_ = (y - first_row_y_) / float(r);
    if (wanted_ == r && scroll_to_row(r, first_row_y_, 2, frames_waited_)) wanted_.reset();
  }
  // A body row's height as drawn on an earlier frame; `estimate` until one drew two rows.
  float pitch(float estimate) const { return pitch_ > 0 ? pitch_ : estimate; }

 private:
  std::optional<size_t> wanted_;
  int frames_waited_ = 0;  // frames the scroll waited for the table's scroll limit
  float first_row_y_ = 0;  // the first body row's y, under the frozen header
  float pitch_ = 0;
};

}  // namespace pl::ui
