#include "app/ui/shell/layout_audit.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdio>

namespace pl::ui::layout_audit {
namespace {

struct DrawnFigure {
  std::string name, pane;
  ImRect drawn, pane_rect, plot, legend;
};

std::vector<DrawnFigure>& figures() {
  static std::vector<DrawnFigure> drawn;
  return drawn;
}

struct FittedTable {
  std::string what;
  ImGuiID window;  // the table's own window, whose scroll range is known once the frame ends
};

std::vector<FittedTable>& fitted_tables() {
  static std::vector<FittedTable> noted;
  return noted;
}

// An item that must be on screen, and the visible part of the window it is in.
struct KeptInView {
  std::string what;
  ImRect item, visible;
};

struct Room {
  std::string what;
  float shown, needed;
};

std::vector<Room>& rooms() {
  static std::vector<Room> noted;
  return noted;
}

std::vector<KeptInView>& kept_in_view() {
  static std::vector<KeptInView> noted;
  return noted;
}

std::string rect_text(const ImRect& r) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.0fx%.0f at (%.0f, %.0f)", r.GetWidth(), r.GetHeight(), r.Min.x, r.Min.y);
  return buf;
}

// A window's name without the parent path ImGui gives children ("Precision Lab/results_1A2B").
std::string short_name(const ImGuiWindow& w) {
  std::string n = w.Name;
  if (auto slash = n.rfind('/'); slash != std::string::npos) n = n.substr(slash + 1);
  if (auto hash = n.rfind('_'); hash != std::string::npos && n.size() - hash == 9) n = n.substr(0, hash);
  return n;
}

}  // namespace

void begin_frame() {
  figures().clear();
  fitted_tables().clear();
  kept_in_view().clear();
  rooms().clear();
}

void note_room(const char* what, float shown, float needed) { rooms().push_back({what, shown, needed}); }

void note_rows_in_view(const char* what, float rows, float row) {
  const ImGuiWindow* w = ImGui::GetCurrentWindowRead();
  if (!w) return;
  // The lowest edge the rows show above: the table's own window and each child pane it is in.
  float bottom = w->InnerClipRect.Max.y;
  for (const ImGuiWindow* in = w; (in->Flags & ImGuiWindowFlags_ChildWindow) && in->ParentWindow;) {
    in = in->ParentWindow;
    bottom = std::min(bottom, in->InnerClipRect.Max.y);
  }
  // From the top of the row begun last: the first body row's, under the header however tall its
  // cells or whichever columns are hidden.
  const ImGuiTable* table = ImGui::GetCurrentTable();
  const float top = table ? table->RowPosY1 : ImGui::GetCursorScreenPos().y;
  rooms().push_back({what, bottom - top, rows * row});
}

void note_in_view(const char* what) {
  if (const ImGuiWindow* w = ImGui::GetCurrentWindowRead())
    kept_in_view().push_back({what, ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()), w->InnerClipRect});
}

void note_fits_width(const char* what) {
  if (const ImGuiWindow* w = ImGui::GetCurrentWindowRead()) fitted_tables().push_back({what, w->ID});
}

void note_figure(const char* name, const ImVec2& min, const ImVec2& max, const ImVec2& plot_min, const ImVec2& plot_max,
                 const ImVec2& legend_min, const ImVec2& legend_max) {
  const ImGuiWindow* w = ImGui::GetCurrentWindowRead();
  figures().push_back({name, w ? short_name(*w) : "", ImRect(min, max), w ? w->InnerClipRect : ImRect(),
                       ImRect(plot_min, plot_max), ImRect(legend_min, legend_max)});
}

std::vector<std::string> problems() {
  std::vector<std::string> out;
  const ImGuiContext& g = *GImGui;
  for (const ImGuiWindow* w : g.Windows) {
    if (!w->Active || w->Hidden) continue;
    if (w->Flags & (ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup | ImGuiWindowFlags_ChildMenu)) continue;
    // Content past the edge is reachable only through a scrollbar.
    if (w->ScrollMax.y > 1 && !w->ScrollbarY)
      out.push_back("window '" + short_name(*w) + "': content " + std::to_string(int(w->ScrollMax.y)) +
                    " px below its bottom edge, with no scrollbar");
    if (w->ScrollMax.x > 1 && !w->ScrollbarX)
      out.push_back("window '" + short_name(*w) + "': content " + std::to_string(int(w->ScrollMax.x)) +
                    " px past its right edge, with no scrollbar");
  }
  // Table columns narrower than their header: a stretched table squeezed its last five columns
  // to a letter each ("v a r e f") where a sideways scrollbar would have kept them readable.
  for (int n = 0; n < GImGui->Tables.GetMapSize(); ++n) {
    const ImGuiTable* t = GImGui->Tables.TryGetMapData(n);
    if (!t || t->LastFrameActive != g.FrameCount || !t->OuterWindow || t->OuterWindow->Hidden) continue;
    for (int c = 0; c < t->ColumnsCount; ++c) {
      const ImGuiTableColumn& col = t->Columns[c];
      if (!col.IsEnabled) continue;
      const char* header = ImGui::TableGetColumnName(t, c);
      const std::string name = header && *header ? std::string(header) : std::string("#").append(std::to_string(c));
      const float room = col.WorkMaxX - col.WorkMinX;
      // A cell's text past its column (the roundtrip table's "82 (to the largest finite)" read
      // "82 (to the larg"), named or not.
      const float cells = std::max(col.ContentMaxXFrozen, col.ContentMaxXUnfrozen) - col.WorkMinX;
      if (room > 0 && cells > room + 1)
        out.push_back("table in '" + short_name(*t->OuterWindow) + "': column '" + name + "' cuts its cells (" +
                      std::to_string(int(cells)) + " px in " + std::to_string(int(room)) + ")");
      if (!header || !*header) continue;
      // The header's width as drawn (in the table's own font scale), at most six characters' room.
      const float header_width = col.ContentMaxXHeadersIdeal - col.WorkMinX;
      const float need = std::min(header_width, 6 * g.FontSize);
      if (header_width > 0 && room + 1 < need)
        out.push_back("table in '" + short_name(*t->OuterWindow) + "': column '" + name + "' " +
                      std::to_string(int(room)) + " px wide, narrower than its header");
    }
  }
  for (const KeptInView& k : kept_in_view())
    if (!k.visible.Contains(k.item))
      out.push_back(k.what + " at " + rect_text(k.item) + " is not in view (" + rect_text(k.visible) + ")");
  for (const Room& r : rooms())
    if (r.shown + 0.5f < r.needed)
      out.push_back(r.what + " is given " + std::to_string(int(r.shown)) + " px of height where it needs " +
                    std::to_string(int(r.needed)));
  for (const FittedTable& t : fitted_tables())
    if (const ImGuiWindow* w = ImGui::FindWindowByID(t.window); w && w->ScrollMax.x > 1)
      out.push_back(t.what + " scrolls sideways: " + std::to_string(int(w->ScrollMax.x)) + " px past its pane");
  for (const DrawnFigure& f : figures()) {
    if (f.drawn.GetWidth() < kMinFigureWidth || f.drawn.GetHeight() < kMinFigureHeight)
      out.push_back("figure '" + f.name + "': drawn " + rect_text(f.drawn) + ", smaller than " +
                    std::to_string(int(kMinFigureWidth)) + "x" + std::to_string(int(kMinFigureHeight)));
    if (f.plot.GetWidth() < kMinPlotWidth || f.plot.GetHeight() < kMinPlotHeight)
      out.push_back("figure '" + f.name + "': plot area " + rect_text(f.plot) + ", smaller than " +
                    std::to_string(int(kMinPlotWidth)) + "x" + std::to_string(int(kMinPlotHeight)));
    if (f.legend.GetWidth() > 0 && !ImRect(f.drawn.Min, f.drawn.Max).Contains(f.legend))
      out.push_back("figure '" + f.name + "': legend " + rect_text(f.legend) + " runs out of the figure " +
                    rect_text(f.drawn));
    ImRect pane = f.pane_rect;
    pane.Expand(1.0f);
    if (!pane.Contains(f.drawn))
      out.push_back("figure '" + f.name + "': drawn " + rect_text(f.drawn) + ", past its pane '" + f.pane + "' " +
                    rect_text(f.pane_rect));
  }
  return out;
}

}  // namespace pl::ui::layout_audit
