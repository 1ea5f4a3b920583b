// Rows of controls that wrap instead of running off the window's right edge: the next item goes
// on the current line when it fits there, else it starts the next line. (At 1280x800 in
// presentation mode the Throughput panel's Export button and int8 box would otherwise be past the edge.)
#pragma once

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <string>

namespace pl::ui {

// The width of a checkbox or a button with this label, as ImGui draws it.
inline float checkbox_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}
inline float button_width(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
}
// A combo or input of `width` with its label beside it.
inline float labelled_width(float width, const char* label) {
  return width + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}
// A control's label before it, in a row of controls (the control then takes "##" ids): ImGui's
// label after its control reads as naming the next one, "[add] op [tensor] a [tensor] b [cpu] a on".
inline void label_before(const char* label) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
}

// Call right after a combo whose box was `width` wide (ImGui::CalcItemWidth() before it): its
// whole preview as the tooltip when the box cuts it ("nearest, ties to eve", "cpu (Intel(R) Xeon(R").
// The room a combo box `width` wide leaves its preview text, beside the arrow.
inline float combo_preview_room(float width) {
  return width - ImGui::GetFrameHeight() - 2 * ImGui::GetStyle().FramePadding.x;
}
inline void tooltip_if_cut(const char* preview, float width) {
  if (ImGui::IsItemHovered() && ImGui::CalcTextSize(preview).x > combo_preview_room(width))
    ImGui::SetTooltip("%s", preview);
}

// The height of one text row of a table, and the height for a table that scrolls both ways and
// has `rows` rows of `row` pixels (its header one of them): all of them and a sideways scrollbar
// when the space left holds that; else the space, and a little less than its rows so that it
// scrolls. ImGui 1.86 draws the vertical bar only for content taller than the table, not
// taller than the table less the sideways bar: a table a row or less short of its rows would leave
// the last row under the sideways bar with no vertical bar to reach it (the Promotion grid at
// 1400x650, and in scenario 02's live grid at 1600x1000).
inline float table_row_height() { return ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y; }
// `sideways_bar`: false for a table known to fit the width, which keeps no room for that bar (a
// blank row under scenario 30's 4 x 4 grid).
inline float table_height(float rows, float row, bool sideways_bar = true) {
  const float space = ImGui::GetContentRegionAvail().y, bar = sideways_bar ? ImGui::GetStyle().ScrollbarSize : 0;
  if (rows * row + bar <= space) return rows * row + bar;
  // Else the table fills the space, but never holds all its rows: ImGui 1.86 would show no
  // vertical bar to reach the last row under the sideways one. Not a whole row less: that would
  // leave a band of blank pane under a grid whose last row is cut.
  return std::max(std::min(space, rows * row - std::max(2.0f, 0.25f * row)), row);
}

// Whether a table needs room under its rows for a sideways scrollbar: one that fits the width
// does not (a blank strip under the Formats panel's tables at 1920x1080). Made before
// BeginTable, in the window around the table, whose storage keeps the answer; note() inside the
// table, before EndTable. ImGui knows a table's scroll range from the frame before, so the room
// is kept for its first two frames and decided on the second; and kept for good once the table
// scrolled either way without it (a vertical bar narrows the table and may bring the sideways
// one back: the table must not jump between the two from frame to frame) -- until the window
// around it grows wider by more than a scrollbar, when it is decided again.
class SidewaysBar {
 public:
  // Called before BeginTable, in the window around the table. A table that needed the bar is
  // looked at again once that window is wider than when it was decided by more than a scrollbar
  // (a window grown past the table's width would keep a blank strip under it for good; the window's own
  // vertical scrollbar coming and going must not make the table jump).
  explicit SidewaysBar(const char* table_id)
      : storage_(ImGui::GetStateStorage()),
        key_(ImGui::GetID((std::string(table_id) + "#sideways").c_str())),
        width_key_(ImGui::GetID((std::string(table_id) + "#sideways-width").c_str())),
        width_(ImGui::GetContentRegionAvail().x) {
    if (storage_->GetInt(key_, kUnknown) == kNeeded && width_ > storage_->GetFloat(width_key_, 0) + ImGui::GetStyle().ScrollbarSize + 1)
      storage_->SetInt(key_, kUnknown);
  }
  bool needed() const { return storage_->GetInt(key_, kUnknown) != kFits; }
  float height() const { return needed() ? ImGui::GetStyle().ScrollbarSize : 0; }
  void note() const {
    const bool sideways = ImGui::GetScrollMaxX() > 0, either = sideways || ImGui::GetScrollMaxY() > 0;
    const int state = storage_->GetInt(key_, kUnknown);
    int next = state;
    if (state == kUnknown) next = kSeen;
    else if (state == kSeen) next = sideways ? kNeeded : kFits;
    else if (state == kFits && either) next = kNeeded;
    if (next == state) return;
    storage_->SetInt(key_, next);
    if (next == kNeeded) storage_->SetFloat(width_key_, width_);
  }

 private:
  static constexpr int kUnknown = 0, kSeen = 1, kFits = 2, kNeeded = 3;
  ImGuiStorage* storage_;
  ImGuiID key_, width_key_;
  float width_;
};

// In a table with a frozen header that scrolls, called in row `row` (0: the first under the
// header) with `first_row_y`, the cursor's y in the first row: scrolls by whole rows so that
// `above` rows show above this one (SetScrollHereY would leave the top row half under the header).
// Past the last whole row the scroll would stop at its limit, a part of a row short: it stops
// at a whole row. The limit is known once the table has been laid out, a frame or two after it
// first showed; returns whether the scroll is settled (false: call again next frame, up to
// three frames for a table that does not scroll at all). `target`, when given, gets the scroll
// asked for.
inline bool scroll_to_row(size_t row, float first_row_y, int above, int& frames_waited, float* target_out = nullptr) {
  const float y = ImGui::GetCursorPosY();
  const float row_h = row > 0 ? (y - first_row_y) / float(row) : table_row_height() + 1;
  float target = float(std::max(0, int(row) - above)) * row_h;
  const float limit = ImGui::GetScrollMaxY();
  if (limit > 0) target = std::min(target, std::floor(limit / row_h) * row_h);
  ImGui::SetScrollY(target);
  if (target_out) *target_out = target;
  return limit > 0 || ++frames_waited >= 3;
}

// The current table's header row, each column named as TableSetupColumn named it, with `tip(c)`
// as column c's tooltip on hover (empty: none).
inline void table_headers(const std::function<std::string(int)>& tip) {
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (int c = 0; c < ImGui::TableGetColumnCount(); ++c) {
    ImGui::TableSetColumnIndex(c);
    ImGui::TableHeader(ImGui::TableGetColumnName(c));
    if (ImGui::IsItemHovered())
      if (const std::string t = tip(c); !t.empty()) ImGui::SetTooltip("%s", t.c_str());
  }
}

// Call between two items: SameLine() when `next_width` more pixels fit on this line.
inline void same_line_if_fits(float next_width) {
  const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + next_width;
  if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
}

}  // namespace pl::ui
