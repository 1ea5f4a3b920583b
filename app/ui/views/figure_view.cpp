#include "app/ui/views/figure_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "app/ui/shell/layout_audit.h"
#include "app/ui/shell/theme.h"
#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/split_view.h"
#include "core/export/export_dir.h"
#include "core/export/figure_export.h"
#include "core/figure/plot_layout.h"

namespace pl::ui {
namespace {

ImU32 imgui_color(const figure::Color& c) {
  return IM_COL32(static_cast<int>(c.r * 255), static_cast<int>(c.g * 255), static_cast<int>(c.b * 255), 255);
}

// Every label a legend toggle can hide: the series with data, then the reference lines, each once.
std::vector<std::pair<std::string, figure::Color>> toggles(const figure::Figure& f) {
  std::vector<std::pair<std::string, figure::Color>> out;
  auto add = [&](const std::string& label, const figure::Color& c) {
    if (label.empty()) return;
    for (const auto& [l, _] : out)
      if (l == label) return;
    out.emplace_back(label, c);
  };
  for (const auto& s : f.series)
    if (!s.x.empty()) add(s.label, s.color);  // (a legend key, with no data, hides nothing)
  for (const auto& a : f.annotations) add(a.label, a.color);
  return out;
}

std::string& requested_figure() {
  static std::string name;
  return name;
}

std::string& served_figure() {  // the last request a view brought forward
  static std::string name;
  return name;
}

}  // namespace

void request_figure(const std::string& name) { requested_figure() = name; }
bool figure_requested() { return !requested_figure().empty(); }
bool figure_served(const std::string& name) { return served_figure() == name; }

std::string figure_tab_text(const figure::Figure& f) {
  if (!f.tab.empty()) return f.tab;
  std::string words = f.name;
  std::replace(words.begin(), words.end(), '-', ' ');
  if (words.size() >= 5 && words.compare(words.size() - 5, 5, " vs k") == 0) words.back() = 'K';
  return words;
}

namespace {
// A tab's text cut at a word to at most 20 times the font size, padding included (a tab as wide
// as a run's whole label would take a row to itself). The tab's tooltip holds the figure's
// whole title.
std::string fit_tab_text(const std::string& text) {
  const float widest = ImGui::GetFontSize() * 20.0f - 2 * ImGui::GetStyle().FramePadding.x;
  if (ImGui::CalcTextSize(text.c_str()).x <= widest) return text;
  for (size_t cut = text.rfind(' '); cut != std::string::npos && cut > 0; cut = text.rfind(' ', cut - 1)) {
    std::string shorter = text.substr(0, cut);
    while (!shorter.empty() && std::string_view(",;:(-").find(shorter.back()) != std::string_view::npos)
      shorter.pop_back();
    shorter += "...";
    if (ImGui::CalcTextSize(shorter.c_str()).x <= widest) return shorter;
  }
  return text;
}
}  // namespace

FigurePixels figure_pixels(float width, float height) {
  return {std::max(1, static_cast<int>(width)), std::max(1, static_cast<int>(height))};
}

void FigureView::set_log(RunLog* log, std::string source) {
  log_ = log;
  source_ = std::move(source);
}

void FigureView::draw(const char* id, const std::vector<figure::Figure>& figures, const std::string& version,
                      const ExtraTab* extra) {
  if (auto done = export_.take()) {
    status_ = *done;
    if (log_) log_->add(source_, status_);
  }
  // Tabs keep their names and wrap onto another line when there are more than fit: squeezed,
  // a scenario's twenty runs would read "hist..." each, and scrolled, the strip would show a stub
  // of a tab ("ro") beside the last one and hide the rest behind arrows on a projector. Figures of
  // several runs (a scenario's) take two rows: the runs, then the chosen run's figures (one row of
  // every run's every figure would take three lines of scenario 07's pane).
  ImGui::PushID(id);
  // Rows of tabs as close as a tab bar's line under them (a scenario's figure at 1280x800 has
  // no pixel to spare).
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 2));
  const int extra_at = static_cast<int>(figures.size());
  auto name_of = [&](int i) -> const std::string& { return i == extra_at ? extra->name : figures[size_t(i)].name; };
  const int tabs = extra_at + (extra ? 1 : 0);
  // A scenario's figures are named by their run ("2: roundtrip-range"). An exact name wins; else
  // a bare name takes the lowest run's figure of that name, whatever the tabs' order (a scenario
  // brings its look-at figure forward).
  if (const std::string& asked = requested_figure(); !asked.empty()) {
    const std::string of_a_run = ": " + asked;
    int best = -1;
    long best_run = 0;
    for (int i = 0; i < tabs; ++i) {
      const std::string& n = name_of(i);
      if (n == asked) {
        best = i;
        break;
      }
      if (n.size() <= of_a_run.size() || n.compare(n.size() - of_a_run.size(), std::string::npos, of_a_run) != 0)
        continue;
      const long run = std::strtol(n.c_str(), nullptr, 10);
      if (best < 0 || run < best_run) best = i, best_run = run;
    }
    if (best >= 0) {
      chosen_name_ = name_of(best);
      served_figure() = asked;
      requested_figure().clear();
    }
  }
  chosen_ = 0;
  for (int i = 0; i < tabs; ++i)
    if (name_of(i) == chosen_name_) chosen_ = i;
  bool first = true;
  auto tab = [&](const std::string& text, const std::string& item_id, bool selected) {
    const ImGuiStyle& style = ImGui::GetStyle();
    if (!first) same_line_if_fits(ImGui::CalcTextSize(text.c_str()).x + 2 * style.FramePadding.x);
    first = false;
    // The chosen one in the pressed button's colour, as the scenarios' "Live:" links: the tab
    // bar's two blues are hard to tell apart on a projector.
    if (selected) ImGui::PushStyleColor(ImGuiCol_Button, style.Colors[ImGuiCol_ButtonActive]);
    const bool pressed = ImGui::Button((text + "###" + item_id).c_str());
    if (selected) ImGui::PopStyleColor();
    return pressed;
  };
  // The extra tab ("checks") ends the first row: after the runs, or after the figures.
  auto extra_tab = [&] {
    if (extra && tab(extra->label, extra->name, chosen_ == extra_at)) chosen_ = extra_at, chosen_name_ = extra->name;
  };
  auto figure_tab = [&](int i) {
    const figure::Figure& f = figures[size_t(i)];
    if (tab(fit_tab_text(figure_tab_text(f)), f.name, chosen_ == i)) chosen_ = i, chosen_name_ = f.name;
    if (ImGui::IsItemHovered())  // the figure's whole title, and what it shows
      ImGui::SetTooltip("%s%s%s", f.title.c_str(), f.subtitle.empty() ? "" : "\n", f.subtitle.c_str());
  };
  std::vector<std::string> groups;
  for (const figure::Figure& f : figures)
    if (!f.group.empty() && std::find(groups.begin(), groups.end(), f.group) == groups.end()) groups.push_back(f.group);
  if (groups.size() < 2) {
    for (int i = 0; i < extra_at; ++i) figure_tab(i);
    extra_tab();
  } else {
    // Each row says what it holds: two rows of like buttons read as one row wrapped, with two
    // of its tabs chosen.
    auto row_label = [&](const char* text) {
      ImGui::AlignTextToFramePadding();
      ImGui::TextDisabled("%s", text);
      first = false;
    };
    const std::string chosen_group = chosen_ < extra_at ? figures[size_t(chosen_)].group : "";
    row_label("run");
    for (const std::string& g : groups)
      if (tab(fit_tab_text(g), "group " + g, g == chosen_group)) {
        // The same kind of figure in the run chosen, if it has one, else its first.
        const std::string kind = chosen_ < extra_at ? figure_tab_text(figures[size_t(chosen_)]) : "";
        int to = -1;
        for (int i = 0; i < extra_at; ++i)
          if (figures[size_t(i)].group == g && (to < 0 || figure_tab_text(figures[size_t(i)]) == kind)) to = i;
        chosen_ = to;
        chosen_name_ = figures[size_t(to)].name;
      }
    extra_tab();
    if (chosen_ < extra_at) {
      row_label("figure");
      for (int i = 0; i < extra_at; ++i)
        if (figures[size_t(i)].group == figures[size_t(chosen_)].group) figure_tab(i);
    }
  }
  ImGui::PopStyleVar();
  ImGui::PopID();
  // The line under the tabs, in the selected tab's colour, as a tab bar draws it.
  {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float y = at.y - 1;
    ImGui::GetWindowDrawList()->AddLine(ImVec2(at.x, y), ImVec2(at.x + ImGui::GetContentRegionAvail().x, y),
                                        ImGui::GetColorU32(ImGuiCol_TabActive), 1.0f);
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + 3);
  }
  if (extra && chosen_ == static_cast<int>(figures.size())) {
    ImGui::BeginChild("extra-tab", ImVec2(0, 0));
    extra->body();
    mark_more_below();
    ImGui::EndChild();
    return;
  }
  if (chosen_ >= static_cast<int>(figures.size())) return;
  const figure::Figure& f = figures[chosen_];
  figure::View& v = views_[f.name];
  const bool chrome = !presentation_mode();
  const float controls = chrome ? ImGui::GetFrameHeightWithSpacing() : 0;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const auto [w, h] = figure_pixels(avail.x, avail.y - controls);
  const std::vector<figure::FileType> wanted = chrome ? draw_controls(f, v, w, h) : std::vector<figure::FileType>{};
  // The figure as the view shows it, made again only when the data or the view changed (it
  // copies the figure: a heat map's cells, every series).
  const std::string key = version + "/" + f.name + "/" + v.key();
  if (key != shown_key_) {
    shown_ = figure::apply_view(f, v);
    shown_key_ = key;
  }
  if (!wanted.empty()) export_shown(v, wanted, w, h);
  const float fs = figure_font_scale(w, h);
  if (!texture_.update(shown_, key, w, h, fs)) return;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, ImVec2(static_cast<float>(w), static_cast<float>(h)));
  ImGui::GetWindowDrawList()->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture_.texture())), at,
                                       ImVec2(at.x + static_cast<float>(w), at.y + static_cast<float>(h)));
  const figure::PlotLayout l = figure::layout_figure(shown_, w, h, fs);
  {
    const auto px = [&](double x, double y) {
      return ImVec2(at.x + static_cast<float>(x), at.y + static_cast<float>(y));
    };
    const auto& g = l.legend;
    layout_audit::note_figure(f.name.c_str(), at, px(w, h), px(l.x0, l.y0), px(l.x1, l.y1), px(g.left, g.top),
                              px(g.left + g.width, g.top + g.height));
  }
  if (shown_.heatmap) {
    // The cells through the colour-map shader, exactly over the plot area cairo drew them in.
    const int pw = static_cast<int>(l.x1 - l.x0), ph = static_cast<int>(l.y1 - l.y0);
    if (heatmap_.render(*shown_.heatmap, key, pw, ph)) {
      const ImVec2 p0(at.x + static_cast<float>(l.x0), at.y + static_cast<float>(l.y0));
      ImDrawList* draw = ImGui::GetWindowDrawList();
      draw->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(heatmap_.texture())), p0,
                     ImVec2(p0.x + static_cast<float>(pw), p0.y + static_cast<float>(ph)));
      // The cells' labels over the shader's cells (cairo's under them are covered), in the
      // window's type.
      for (const figure::CellLabel& label :
           figure::heatmap_cell_labels(*shown_.heatmap, pw, ph, ImGui::GetFontSize())) {
        const std::string text(label.text);
        const ImVec2 size = ImGui::CalcTextSize(text.c_str());
        draw->AddText(
            ImVec2(p0.x + static_cast<float>(label.x) - size.x / 2, p0.y + static_cast<float>(label.y) - size.y / 2),
            label.dark ? IM_COL32(25, 25, 25, 255) : IM_COL32(245, 245, 245, 255), text.c_str());
      }
    } else if (heatmap_error_ != heatmap_.error()) {
      heatmap_error_ = heatmap_.error();  // cairo's cells stay on screen
      if (log_) log_->add(source_, "heat map shader: " + heatmap_error_);
    }
  }
  handle_mouse(v, l, at.x, at.y, w, h);
}

std::vector<figure::FileType> FigureView::draw_controls(const figure::Figure& f, figure::View& v, int width,
                                                        int height) {
  std::vector<figure::FileType> wanted;
  ImGui::PushID(f.name.c_str());
  if (f.heatmap) {
    const figure::Colormap current = v.colormap.value_or(f.heatmap->map);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
    if (ImGui::BeginCombo("colour map", figure::colormap_name(current))) {
      for (auto m : {figure::Colormap::Diverging, figure::Colormap::Viridis, figure::Colormap::Cividis})
        if (figure::colormap_fits(*f.heatmap, m) && ImGui::Selectable(figure::colormap_name(m), m == current))
          v.colormap = m;
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered())
      // (Only a signed map's values change: apply_view draws their magnitudes on a sequential one.)
      ImGui::SetTooltip("%s", f.heatmap->vmin < 0
                                  ? "all three are colour-blind safe; a sequential map (viridis, cividis) draws "
                                    "the magnitudes, |value|"
                                  : "both are colour-blind safe; the map changes the colours only (the diverging "
                                    "map, white at zero, is offered where values go below zero)");
    ImGui::SameLine();
  }
  for (const bool x_axis : {true, false}) {
    if (f.heatmap) break;
    const bool possible = figure::can_log(f, x_axis);
    std::optional<bool>& choice = x_axis ? v.x_log : v.y_log;
    bool log = choice.value_or(x_axis ? f.x.log : f.y.log);
    if (!possible) ImGui::BeginDisabled();
    if (ImGui::Checkbox(x_axis ? "log x" : "log y", &log)) {
      choice = log;
      // A range zoomed on one scale means little on the other.
      if (x_axis) v.x_lo = v.x_hi = std::nullopt;
      else v.y_lo = v.y_hi = std::nullopt;
    }
    if (!possible) ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip(possible ? "switch this axis between a linear and a logarithmic scale"
                                 : "this axis has no positive numeric values to put on a log scale");
    ImGui::SameLine();
  }
  const auto labels = toggles(f);
  if (!labels.empty()) {
    const auto hidden = std::count_if(labels.begin(), labels.end(), [&](const auto& l) { return v.hides(l.first); });
    const std::string button = "shown " + std::to_string(labels.size() - static_cast<size_t>(hidden)) + "/" +
                               std::to_string(labels.size()) + "##series";
    if (ImGui::Button(button.c_str())) ImGui::OpenPopup("series");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("show or hide each series and reference line (the legend follows)");
    ImGui::SameLine();
  }
  if (ImGui::BeginPopup("series")) {
    for (const auto& [label, color] : labels) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float s = ImGui::GetTextLineHeight();
      ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + s, p.y + s), imgui_color(color));
      ImGui::Dummy(ImVec2(s, s));
      ImGui::SameLine();
      bool on = !v.hides(label);
      if (ImGui::Checkbox(label.c_str(), &on)) v.toggle(label);
    }
    ImGui::EndPopup();
  }
  if (!v.zoomed()) ImGui::BeginDisabled();
  if (ImGui::Button("reset zoom")) v.reset_zoom();
  if (!v.zoomed()) ImGui::EndDisabled();
  for (const auto& [label, type] : {std::pair{"PNG", figure::FileType::Png}, std::pair{"SVG", figure::FileType::Svg},
                                    std::pair{"PDF", figure::FileType::Pdf}, std::pair{"CSV", figure::FileType::Csv}}) {
    ImGui::SameLine();
    if (ImGui::Button(label)) wanted.push_back(type);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("write this plot as you see it (%dx%d) to a new file in precision-lab-export/", width, height);
  }
  // The PNG's resolution: 1x is a pixel a point, as on the screen; 2x and 3x for slides and print.
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("3x").x + ImGui::GetFrameHeight() + 2 * ImGui::GetStyle().FramePadding.x);
  ImGui::Combo("##png-scale", &png_scale_,
               "1x\0"
               "2x\0"
               "3x\0");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the PNG's resolution: %dx%d pixels (%d dpi); SVG and PDF stay vectors", width * (png_scale_ + 1),
                      height * (png_scale_ + 1), 96 * (png_scale_ + 1));
  if (!status_.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", status_.c_str());
  }
  ImGui::PopID();
  return wanted;
}

void FigureView::handle_mouse(figure::View& v, const figure::PlotLayout& l, float x, float y, int width, int height) {
  if (!ImGui::IsItemHovered() && !ImGui::IsItemActive()) return;
  const ImGuiIO& io = ImGui::GetIO();
  const float fs = figure_font_scale(width, height);
  const double px = io.MousePos.x - x, py = io.MousePos.y - y;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2)) {
    const ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 2);
    v = figure::panned(v, shown_, l, d.x, d.y);
    ImGui::ResetMouseDragDelta(ImGuiMouseButton_Left);
    return;
  }
  if (ImGui::IsItemHovered() && io.MouseWheel != 0 && l.contains(px, py))
    v = figure::zoomed(v, shown_, l, px, py, std::pow(0.85, io.MouseWheel));
  if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) v.reset_zoom();
  if (!ImGui::IsItemHovered()) return;
  if (io.KeyCtrl && ImGui::IsKeyPressed('S', false))
    export_shown(v, {figure::FileType::Png, figure::FileType::Svg, figure::FileType::Pdf, figure::FileType::Csv}, width,
                 height);
  const auto r = figure::readout_at(shown_, l, px, py, 8 * fs);
  if (!r) return;
  if (r->marker)
    ImGui::GetWindowDrawList()->AddCircle(ImVec2(x + static_cast<float>(r->mx), y + static_cast<float>(r->my)), 7 * fs,
                                          IM_COL32(0, 0, 0, 255), 0, 2);
  ImGui::BeginTooltip();
  for (const std::string& line : r->lines) ImGui::TextUnformatted(line.c_str());
  ImGui::EndTooltip();
}

void FigureView::export_shown(const figure::View& v, std::vector<figure::FileType> types, int width, int height) {
  figure::ExportOptions o;
  o.width = width;
  o.height = height;
  o.font_scale = figure_font_scale(width, height);
  o.scale = png_scale_ + 1;
  std::string how = v.zoomed() ? "zoomed" : "";
  for (const auto& [on, what] :
       {std::pair{v.x_log.has_value(), shown_.x.log ? "log x" : "linear x"},
        std::pair{v.y_log.has_value(), shown_.y.log ? "log y" : "linear y"},
        std::pair{!v.hidden.empty(), "some series hidden"}, std::pair{v.colormap.has_value(), "colour map chosen"}})
    if (on) how += (how.empty() ? "" : ", ") + std::string(what);
  auto copy = std::make_shared<const figure::Figure>(shown_);
  const bool started = export_.start([copy, types = std::move(types), o, how]() -> std::string {
    std::string wrote;
    for (const figure::FileType type : types) {
      auto path = exporting::new_export_file(copy->name, figure::extension(type));
      if (!path) return "export failed: " + path.error();
      if (auto ok = exporting::fill_export_file(*path, [&] { return figure::export_figure(*copy, *path, type, o); });
          !ok)
        return "export failed: " + ok.error();
      wrote += (wrote.empty() ? "" : " ") + *path;
    }
    return "wrote " + wrote + " (" + std::to_string(static_cast<int>(o.width)) + "x" +
           std::to_string(static_cast<int>(o.height)) +
           (o.scale != 1 ? ", PNG at " + std::to_string(96 * int(o.scale)) + " dpi" : "") +
           (how.empty() ? "" : ", " + how) + ")";
  });
  if (!started) status_ = "an export is still being written";
}

}  // namespace pl::ui
