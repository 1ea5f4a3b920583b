#include "app/ui/widgets/split_view.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace pl::ui {
namespace {

float bar_height() { return std::max(6.0f, 0.35f * ImGui::GetFontSize()); }

// Whether a window in front of the current one (the Start window, a combo's list) overlaps the
// rectangle: the foreground list draws over every window, and would draw the panel's "more
// below" across the Start window.
bool covered_from_in_front(const ImRect& r) {
  const ImGuiContext& g = *GImGui;
  const ImGuiWindow* root = ImGui::GetCurrentWindowRead()->RootWindow;
  bool in_front = false;
  for (const ImGuiWindow* w : g.Windows) {  // back to front
    if (w == root) {
      in_front = true;
      continue;
    }
    // (ImGui's implicit "Debug" window is begun every frame and drawn only when used.)
    if (!in_front || w->RootWindow != w || !(w->Active || w->WasActive) || w->Hidden || w->IsFallbackWindow ||
        (w->Flags & ImGuiWindowFlags_Tooltip))
      continue;
    if (w->Rect().Overlaps(r)) return true;
  }
  return false;
}

// How tall the current child window's content is (its cursor's reach, scrolling included).
// (It counts the style's window padding, which the panes, without a border, do not have: content
// that fills its pane measures 8 px taller and the pane grows that much a frame towards its share.
// Measuring exactly would cost the Promotion grid its scrollbar with the numpy engines at 1280x800, so
// content that fills its pane says how tall it would be instead: reserve().)
float content_height() {
  const ImGuiStyle& style = ImGui::GetStyle();
  return ImGui::GetCursorPosY() - style.ItemSpacing.y + style.WindowPadding.y;
}

enum class Edge { Top, Bottom, Right };

// A pane whose content goes on past its edge fades out towards it and says so: a line cut through
// at the edge, with the scrollbar the only other sign, would read as the end of the text in
// presentation mode. The words, the first of `words` that fit (a one-column grid's pane would cut
// "more below (scroll)" to "ore below (scroll)" at its left edge), sit in the edge's corner on the
// right (at the top for the right edge, over a table's header row rather than its values), on a
// strip of the background that runs the whole edge, and the content fades out over `fade` pixels
// into that strip: a box over only the words would cut the line beside them through mid-word
// ("e4m3fn chann" over the Checkpoint table's header, "float32 accum" in a story), with the tops
// of its letters showing above the box. Where no words fit, the fade alone says it, at the edge.
// All clipped to `area` (the part of the pane the content shows in).
void mark_edge(Edge edge, const ImRect& area, float fade, std::initializer_list<const char*> words) {
  if (area.GetWidth() <= 0 || area.GetHeight() <= 0) return;
  const bool top = edge == Edge::Top, bottom = edge == Edge::Bottom, right = edge == Edge::Right;
  const float pad = ImGui::GetStyle().ItemSpacing.x;
  // The strip the words sit on, along the edge, `depth` deep (0: no words).
  auto strip_of = [&](float depth) {
    return bottom ? ImRect(area.Min.x, area.Max.y - depth, area.Max.x, area.Max.y)
           : top  ? ImRect(area.Min, ImVec2(area.Max.x, area.Min.y + depth))
                  : ImRect(area.Max.x - depth, area.Min.y, area.Max.x, area.Max.y);
  };
  // The words: the first that fits, and whose strip no window in front covers (the foreground
  // list draws over every window: the Formats table's "more >" would be drawn over the Start
  // window's first line); without them the fade alone marks the edge.
  const char* said = nullptr;
  ImVec2 text(0, 0);
  ImRect strip = strip_of(0);
  for (const char* w : words) {
    text = ImGui::CalcTextSize(w);
    if (text.x + 3 * pad > area.GetWidth() || (right && text.x + 3 * pad > 0.5f * area.GetWidth())) continue;
    const ImRect under = strip_of(right ? text.x + 2 * pad : text.y + 2);
    if (covered_from_in_front(under)) continue;
    said = w;
    strip = under;
    break;
  }
  // With the strip, the fade before it is two thirds as deep (the strip is most of a line already).
  if (said != nullptr) fade *= 2.0f / 3.0f;
  const ImRect band = bottom ? ImRect(area.Min.x, strip.Min.y - fade, area.Max.x, strip.Min.y)
                      : top  ? ImRect(area.Min.x, strip.Max.y, area.Max.x, strip.Max.y + fade)
                             : ImRect(strip.Min.x - fade, area.Min.y, strip.Min.x, area.Max.y);
  if (covered_from_in_front(band)) return;
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const ImU32 clear = ImGui::GetColorU32(ImVec4(bg.x, bg.y, bg.z, 0.0f)),
              solid = ImGui::GetColorU32(ImVec4(bg.x, bg.y, bg.z, 1.0f));
  // Over everything in the pane, child windows too (a table's own window would draw its rows over
  // the marker); clipped to the pane.
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  draw->PushClipRect(area.Min, area.Max, false);
  // (Corners from the upper left, clockwise: solid towards the edge.)
  draw->AddRectFilledMultiColor(band.Min, band.Max, top ? solid : clear, top || right ? solid : clear,
                                bottom || right ? solid : clear, bottom ? solid : clear);
  if (said != nullptr) {
    draw->AddRectFilled(strip.Min, strip.Max, solid);
    const ImVec2 at(area.Max.x - text.x - pad, bottom ? area.Max.y - text.y - 1 : area.Min.y + 1);
    draw->AddText(at, ImGui::GetColorU32(ImGuiCol_TextDisabled), said);
  }
  draw->PopClipRect();
}

// The current window's rectangle less its scrollbars, from `frozen` pixels below its top, and
// the depth of a fade at its top or bottom edge.
ImRect pane_area(float frozen) {
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  const ImGuiWindow* w = ImGui::GetCurrentWindowRead();
  const float bar = ImGui::GetStyle().ScrollbarSize;
  // (At the bottom, above a sideways scrollbar: a table that scrolls both ways marks its own rows.)
  return ImRect(pos.x, pos.y + frozen, pos.x + size.x - (ImGui::GetScrollMaxY() > 0 ? bar : 0.0f),
                pos.y + size.y - (w->ScrollbarX ? bar : 0.0f));
}
float row_fade(const ImRect& area) {
  return std::min(1.5f * ImGui::GetTextLineHeightWithSpacing(), 0.4f * area.GetHeight());
}

}  // namespace

void mark_more_below() {
  if (ImGui::GetScrollMaxY() - ImGui::GetScrollY() < 1.0f) return;
  const ImRect area = pane_area(0);
  mark_edge(Edge::Bottom, area, row_fade(area), {"more below (scroll)", "more below", "more"});
}

void mark_more_above(float frozen) {
  if (ImGui::GetScrollY() < 1.0f) return;
  const ImRect area = pane_area(frozen);
  mark_edge(Edge::Top, area, row_fade(area), {"more above (scroll)", "more above", "more"});
}

void mark_more_right() {
  if (ImGui::GetScrollMaxX() - ImGui::GetScrollX() < 1.0f) return;
  // The window's visible part, its parents' clipping included (a scenario's live pane scrolls
  // the table's own sideways scrollbar out of sight).
  const ImRect seen = ImGui::GetCurrentWindowRead()->InnerClipRect;
  // Short words: over the header row, "more right (scroll)" would hide most of a column's name
  // (the Checkpoint table's "e4m3fn channel" would read "e4n" at 1280x800).
  mark_edge(Edge::Right, seen, std::min(1.5f * ImGui::GetFontSize(), 0.3f * seen.GetWidth()), {"more >", "more"});
}

void SplitView::begin_top(const char* id, float min_top_lines, float min_bottom_lines, float max_share) {
  if (first_share_ < 0) first_share_ = share_;
  id_ = id;
  total_ = std::max(ImGui::GetContentRegionAvail().y - bar_height() - ImGui::GetStyle().ItemSpacing.y * 2, 2.0f);
  const float line = ImGui::GetTextLineHeightWithSpacing();
  // The bottom's lines, but never more than 72% of the height: in presentation mode's
  // large type 18 lines would leave the table above a strip of 50 px.
  const float min_bottom = std::min({min_bottom_lines * line, 0.72f * total_, total_ - 1});
  const float min_top = std::max(std::min(min_top_lines * line, total_ - min_bottom), 1.0f);
  float fitted = std::min((dragged_ ? share_ : std::min(share_, max_share)) * total_, content_);
  if (fit_ == Fit::Top && !dragged_ && bottom_content_ > 0)
    fitted = std::min(content_, std::max(fitted, total_ - bottom_content_));
  const float wanted = fit_ == Fit::Top ? fitted : total_ - fitted;
  top_ = std::clamp(wanted, min_top, std::max(total_ - min_bottom, min_top));
  ImGui::BeginChild((std::string(id) + "-top").c_str(), ImVec2(0, top_), false);
}

void SplitView::reserve(float height) {
  // (Whole pixels, up: a child window's height is, and the Promotion grid's 467.6 px in a 467 px
  // pane would lose a row to a scrollbar that never shows.)
  reserved_ = std::max(reserved_, std::ceil(ImGui::GetCursorPosY() + height + ImGui::GetCursorStartPos().y));
}

void SplitView::begin_bottom(bool scrolls) {
  // Content that reserved its height fills the pane: its cursor says only how tall the pane is
  // (and a padding more, which would grow a short table's pane 8 px a frame up to its share).
  if (fit_ == Fit::Top) content_ = reserved_ > 0 ? reserved_ : content_height();
  reserved_ = 0;
  mark_more_below();
  ImGui::EndChild();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x, h = bar_height();
  ImGui::InvisibleButton((std::string(id_) + "-split").c_str(), ImVec2(std::max(w, 1.0f), h));
  const bool hot = ImGui::IsItemHovered() || ImGui::IsItemActive();
  if (hot) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeNS);
  if (ImGui::IsItemActivated() && total_ > 0) {
    // Dragging starts from the split as drawn, which the content may have made smaller than the share.
    share_ = (fit_ == Fit::Top ? top_ : total_ - top_) / total_;
    content_ = 1e9f;
    dragged_ = true;
  }
  if (ImGui::IsItemActive() && total_ > 0) {
    const float moved = ImGui::GetIO().MouseDelta.y / total_;
    share_ = std::clamp(share_ + (fit_ == Fit::Top ? moved : -moved), 0.05f, 0.95f);
  }
  if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
    share_ = first_share_, dragged_ = false;
  if (ImGui::IsItemHovered() && !ImGui::IsItemActive())
    ImGui::SetTooltip("drag to share the height between the panes; double-click: as it was");
  const ImU32 colour = ImGui::GetColorU32(hot ? ImGuiCol_SeparatorActive : ImGuiCol_Separator);
  const float y = at.y + h * 0.5f;
  ImGui::GetWindowDrawList()->AddLine(ImVec2(at.x, y), ImVec2(at.x + w, y), colour, hot ? 3.0f : 1.0f);
  ImGui::BeginChild((std::string(id_) + "-bottom").c_str(), ImVec2(0, 0), false,
                    scrolls ? 0 : ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  bottom_scrolls_ = scrolls;
}

void SplitView::end() {
  if (fit_ == Fit::Bottom) content_ = reserved_ > 0 ? reserved_ : content_height();
  // Text only (a figure below is drawn to the room it gets, which says nothing of its need), and
  // only text that fits its pane: text that scrolls claims no height, so the top pane goes back to
  // its share. (Without the padding content_height() counts: the panes have none, and with it the
  // split would move 8 px a frame.)
  const float text = content_height() - ImGui::GetStyle().WindowPadding.y;
  bottom_content_ = fit_ == Fit::Top && bottom_scrolls_ && text <= ImGui::GetWindowHeight() + 0.5f ? text : 0;
  reserved_ = 0;
  mark_more_below();
  ImGui::EndChild();
}

}  // namespace pl::ui
