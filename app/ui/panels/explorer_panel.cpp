#include "app/ui/panels/explorer_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <tuple>
#include <vector>

#include <imgui.h>

#include "app/ui/shell/layout_audit.h"
#include "app/ui/shell/theme.h"
#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/format_limits_table.h"
#include "app/ui/widgets/value_controls.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/dtype/describe.h"
#include "core/export/experiment_export.h"
#include "core/export/export_dir.h"
#include "core/export/result_folder.h"
#include "core/figure/number_line_figure.h"
#include "core/util/number_text.h"

namespace pl::ui {
namespace {

// Okabe & Ito colours, as the Formats panel's bits: sign, exponent, mantissa.
const ImVec4 kFieldColour[3] = {{0.84f, 0.37f, 0.00f, 1.0f}, {0.00f, 0.62f, 0.45f, 1.0f}, {0.34f, 0.71f, 0.91f, 1.0f}};
const char* const kFieldName[3] = {"sign", "exponent", "mantissa"};

std::string value_text(const FloatFormat& f, std::optional<uint64_t> code) {
  return code ? display_value(describe_code(f, *code)) : std::string("none");
}

// A value in a narrow column (what x rounds to, a neighbour): exact when that is short
// (float8_e4m3fn's 416), else its first `digits` significant digits and "..." (float32's
// 0.100000001490116119384765625 is 0.1000000014...). Never the shortest decimal that reads back
// to it: float16's 0.0999755859375 would read "0.1", as if nothing had been rounded, and e4m3fn's
// 416 "420". The tooltip has the exact value.
std::string compact_value_text(const CodeReport& r, int digits = 10) {
  constexpr size_t kShort = 12;
  return r.value_exact.size() <= kShort ? r.value_exact : exact_digits_text(r.value, r.value_exact, digits);
}

// A window narrower than 1400 px: the bits take tighter boxes there, a format wider than 16 bits
// its mantissa on a second line and the neighbours eight digits (float32's 32 boxes on one line
// would run the table 69 px past 1280 px for 1e-40, whose neighbours and interval ends carry exponents,
// and bfloat16's neighbours of -3e38, -3.0173475504...e+38 at ten digits, 19 px).
bool narrow_window() { return ImGui::GetMainViewport()->Size.x < 1400; }

// Whether a format's bits take two lines: its mantissa under its sign and exponent.
bool bits_split(const FloatFormat& f) {
  return (presentation_mode() || narrow_window()) && f.total_bits() > 16 && f.mantissa_bits > 0;
}

}  // namespace

ExplorerPanel::ExplorerPanel(RunLog& log, std::string initial_value) : log_(log) {
  view_.set_log(&log_, "explorer");
  std::snprintf(value_text_, sizeof value_text_, "%s", initial_value.c_str());
  for (FormatRef& f : table_float_formats()) {
    Row r;
    for (DType shown : {DType::float32, DType::bfloat16, DType::float16, DType::float8_e4m3fn, DType::float8_e5m2,
                        DType::float4_e2m1fn})
      r.shown |= f.dtype == shown;
    r.format = std::move(f);
    rows_.push_back(std::move(r));
  }
  recompute();
}

std::vector<FormatRef> ExplorerPanel::shown_formats() const {
  std::vector<FormatRef> out;
  for (const Row& r : rows_)
    if (r.shown) out.push_back(r.format);
  return out;
}

void ExplorerPanel::recompute() {
  auto v = parse_number_expression(value_text_);
  figures_.clear();
  if (!v) {
    error_ = v.error();
    return;
  }
  error_.clear();
  x_ = *v;
  const auto rounding = static_cast<Rounding>(rounding_);
  const auto overflow = static_cast<Overflow>(overflow_);
  version_ = std::string(value_text_) + "|" + std::to_string(rounding_) + std::to_string(overflow_) + "|" +
             std::to_string(radius_) + "|";
  for (Row& r : rows_) {
    if (!r.shown) continue;
    r.n = neighbourhood(r.format.format, x_, rounding, overflow, radius_);
    figures_.push_back(figure::number_line_figure(r.format.format, r.format.name, r.n));
    figures_.back().tab = r.format.name;  // else six "number-line-..." tabs look alike
    version_ += r.format.name + ",";
  }
}

void ExplorerPanel::set_value(double v, std::string why) {
  pending_value_ = v;
  pending_why_ = std::move(why);
  value_pending_ = true;
}

// Left / Right step to the next representable value below / above in the format whose number
// line is on screen: a teacher walks through float8's values one by one.
void ExplorerPanel::handle_keys() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl) return;
  const bool left = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow), false),
             right = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow), false);
  if (!left && !right) return;
  int index = 0;
  for (Row& r : rows_) {
    if (!r.shown || index++ != view_.chosen()) continue;
    const auto code = right ? r.n.above : r.n.below;
    if (!code) return;
    set_value(decode(r.format.format, *code),
              std::string(right ? "next above" : "next below") + " in " + r.format.name);
    return;
  }
}

std::string ExplorerPanel::export_all() {
  if (export_.running()) return "an export is still being written";
  if (figures_.empty()) return "nothing to export";
  auto folder = exporting::new_export_dir("explorer");
  if (!folder) return "export failed: " + folder.error();
  nlohmann::json shown = nlohmann::json::array();
  for (const Row& r : rows_)
    if (r.shown) shown.push_back(to_json(r.format.format, r.format.name, r.n));
  nlohmann::json j = explore_record(value_text_, static_cast<Rounding>(rounding_), static_cast<Overflow>(overflow_),
                                    std::move(shown));
  export_.start([figures = figures_, j = std::move(j), dir = *folder, this] {
    auto saved = exporting::fill_export_dir(dir, [&](const std::string& tmp) {
      auto s = exporting::save_figures(figures, tmp);
      if (s) s = exporting::save_json(tmp, "explore.json", j);
      return s;
    });
    const std::string what = saved ? "exported to " + dir : "export failed: " + saved.error();
    log_.add("explorer", what);
    return what;
  });
  return "exporting...";
}

void ExplorerPanel::draw_controls() {
  bool changed = draw_value_rounding_overflow(value_text_, sizeof value_text_, &rounding_, &overflow_);
  same_line_if_fits(labelled_width(ImGui::GetFontSize() * 7, "neighbours each side"));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  changed |= ImGui::SliderInt("neighbours each side", &radius_, 1, 32);
  draw_format_picker();
  if (changed) recompute();
  if (!error_.empty()) ImGui::TextColored({1.0f, 0.4f, 0.3f, 1.0f}, "%s", error_.c_str());
}

void ExplorerPanel::draw_format_picker() {
  // Beside the controls before it where they leave room for it and the custom format's box and
  // button after it (kept together): on a line of their own they take a line the table's rows
  // need in presentation mode at 1280x800.
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  same_line_if_fits(button_width("Formats shown...") + spacing + ImGui::GetFontSize() * 7 + spacing +
                    button_width("add custom format"));
  if (ImGui::Button("Formats shown...")) ImGui::OpenPopup("explorer-formats");
  if (ImGui::BeginPopup("explorer-formats")) {
    for (Row& r : rows_)
      if (ImGui::Checkbox(r.format.name.c_str(), &r.shown)) recompute();
    ImGui::EndPopup();
  }
  same_line_if_fits(ImGui::GetFontSize() * 7);
  if (auto added = draw_custom_format_adder(custom_text_, sizeof custom_text_); added && !*added) {
    error_ = added->error();
  } else if (added) {
    error_.clear();
    Row r;
    r.format = **added;
    r.shown = true;
    rows_.push_back(std::move(r));
    recompute();
  }
}

void ExplorerPanel::draw_bits(Row& row, size_t index) {
  const FloatFormat& f = row.format.format;
  const uint64_t code = row.n.rounded.code;
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, {1, 1});
  // Tighter boxes in presentation mode's large type (float32's 32 of them would take half of
  // 1280 px), and in a narrow window: at 1280 x 800 the 64 px they save keep the neighbours'
  // "0.1000000089... >" in view, which would otherwise scroll sideways.
  const bool tight = presentation_mode() || narrow_window();
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, {tight ? 1.0f : 2.0f, 0});
  ImGui::PushStyleColor(ImGuiCol_Button, {0.14f, 0.14f, 0.16f, 1.0f});  // dark, so the field colours read
  // Presentation mode's rows have two lines: a format wider than 16 bits puts its mantissa on
  // the second (float32's 32 boxes on one line would push the neighbours past 1280 px), as it does in
  // a narrow window.
  const bool split = bits_split(f);
  for (int b = f.total_bits() - 1; b >= 0; --b) {
    const int field = f.is_signed() && b == f.total_bits() - 1 ? 0 : b >= f.mantissa_bits ? 1 : 2;
    ImGui::PushID(static_cast<int>(index * 64 + b));
    ImGui::PushStyleColor(ImGuiCol_Text, kFieldColour[field]);
    if (ImGui::SmallButton(((code >> b) & 1) ? "1" : "0"))
      set_value(decode(f, toggle_bit(f, code, b)), "flipped bit " + std::to_string(b) + " of " + row.format.name);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
      const uint64_t flipped = toggle_bit(f, code, b);
      ImGui::SetTooltip("bit %d (%s): click to flip it\n%s -> %s (%s)", b, kFieldName[field],
                        value_text(f, code).c_str(), value_text(f, flipped).c_str(),
                        describe_code(f, flipped).bits_hex.c_str());
    }
    ImGui::PopID();
    if (split && b == f.mantissa_bits) continue;  // the mantissa starts the next line
    ImGui::SameLine();
    if (b > 0 && (field == 0 || b == f.mantissa_bits)) ImGui::SameLine(0, 6);
  }
  ImGui::NewLine();
  ImGui::PopStyleColor();
  ImGui::PopStyleVar(2);
}

namespace {
// The spacing of values where x lies: "2^-27", or "ulp 2^-27" dimmed under the format's name.
void draw_ulp(double ulp, bool stacked, bool x_is_nan) {
  const std::string two = power_of_two_text(ulp);
  // (None where x rounds to Inf or NaN: the column would read "nan" there, like a value.)
  const std::string spacing = !std::isfinite(ulp) ? "-" : two.empty() ? leading_digits_text(ulp, 6) : two;
  const std::string text = (stacked ? "ulp " : "") + spacing;
  if (stacked) ImGui::TextDisabled("%s", text.c_str());
  else ImGui::TextUnformatted(text.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", std::isfinite(ulp)
                                ? ("the spacing of representable values in this binade: " + float64_text(ulp)).c_str()
                            : x_is_nan ? "no spacing: x is not a number"
                                       : "no spacing: x rounds to Inf or NaN");
}
}  // namespace

void ExplorerPanel::draw_table() {
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY;
  // Presentation mode's large type stacks the table into four columns of two lines: the ulp under
  // the format's name, the rounding interval under the value, the neighbour above under the one
  // below. Side by side the columns need 1800 px there: at 1280 px the interval, the ulp and the
  // neighbours would be off the edge; three lines a row would leave one row in view above the
  // number line. A window wide enough for the columns side by side keeps them so (at 1920x1080 the
  // stacked rows, two lines each, would leave five formats in view): 78 of the text's heights,
  // where at 75 -3e38's neighbours would run 2 px past a 1850 px window.
  const bool stacked = presentation_mode() && ImGui::GetContentRegionAvail().x < 78 * ImGui::GetFontSize();
  int shown = 0, split = 0;
  for (const Row& r : rows_) shown += r.shown, split += r.shown && !stacked && bits_split(r.format.format);
  // Every row and the horizontal scrollbar where the table needs one (its room kept would read as
  // a blank row), with room to spare: a close fit would cut the last row.
  const float row_height = stacked ? 2 * ImGui::GetFrameHeightWithSpacing() : ImGui::GetFrameHeightWithSpacing();
  const SidewaysBar bar("explorer");
  // (The header is a line of text: a frame's height for it would leave a blank strip below the rows.)
  const float height =
      table_row_height() + row_height * float(shown) + (ImGui::GetFontSize() + 1) * float(split) + bar.height();
  // Its rows' height, not the space left: the pane above the figures fits its content, and a
  // table that fitted the pane would shrink with it, frame after frame. (The pane scrolls instead.)
  struct Column {
    const char* name;
    const char* tip;
  };
  // Stacked, the value's column holds its rounding interval too, and its header names both lines
  // ("448" over a bare "[447.875, 448.125]" would read as 448 rounding to an interval).
  const std::vector<Column> columns =
      stacked
          ? std::vector<Column>{{"format", "the format; below it, the spacing of values where x lies (ulp)"},
                                {"bits (click one to flip it)", nullptr},
                                {"rounds to; from",
                                 "the value x rounds to; below it, every x that rounds to it (stochastic rounding: "
                                 "one draw, and every x that may round to it)"},
                                {"neighbours",
                                 "the representable values next to the one x rounds to, below and above it: click one "
                                 "to explore it"}}
          : std::vector<Column>{
                {"format", nullptr},
                {"bits (click one to flip it)", nullptr},
                {"rounds to", "the value x rounds to (stochastic rounding: one draw)"},
                {"rounding interval", "every x that rounds to the same value (stochastic rounding: every x that may)"},
                {"ulp", "the spacing of representable values where x lies"},
                {"neighbours", "the representable values either side of the one x rounds to: click one to explore it"}};
  if (!ImGui::BeginTable("explorer", int(columns.size()), flags,
                         ImVec2(0, std::min(height, ImGui::GetFontSize() * 22))))
    return;
  layout_audit::note_fits_width("the Explorer table");
  ImGui::TableSetupScrollFreeze(1, 1);
  // The bits come second: at 1280 px the last column can be off-screen, and they are what a class
  // clicks first.
  for (const Column& c : columns) ImGui::TableSetupColumn(c.name);
  table_headers([&](int c) { return std::string(columns[size_t(c)].tip ? columns[size_t(c)].tip : ""); });
  for (size_t i = 0; i < rows_.size(); ++i) {
    Row& r = rows_[i];
    if (!r.shown) continue;
    const FloatFormat& f = r.format.format;
    const Neighbourhood& n = r.n;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(r.format.name.c_str());
    format_tooltip(r.format);
    if (stacked) draw_ulp(r.n.ulp, true, std::isnan(r.n.x));
    ImGui::TableNextColumn();
    draw_bits(r, i);
    ImGui::TableNextColumn();
    const CodeReport result = describe_code(f, n.rounded.code);
    ImGui::AlignTextToFramePadding();
    ImGui::Text("%s%s", compact_value_text(result).c_str(), n.rounded.flags.overflow ? "  (overflow)" : "");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("exact: %s\n%s", result.value_exact.c_str(),
                        n.rounded.flags.nan_to_zero ? "x is NaN, which the format has no code for: the zero of its sign"
                        : std::isnan(n.x)           ? "x is NaN"
                        : n.rounded.flags.inexact   ? "rounded (inexact)"
                                                    : "exact: x is representable");
    auto draw_interval = [&] {
      if (!n.interval) {
        ImGui::TextDisabled("none: %s", no_interval_text(f, n).c_str());
        return;
      }
      const RoundingInterval& iv = *n.interval;
      ImGui::TextUnformatted(interval_text(iv, kIntervalLabelDigits, decode(f, n.rounded.code)).c_str());
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
        ImGui::TextUnformatted(interval_text(iv).c_str());
        ImGui::TextUnformatted(iv.rule.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
    };
    // Each neighbour as compact_value_text() gives it, the exact value in its tooltip; stacked, the
    // one above on a line under the one below.
    auto draw_neighbours = [&] {
      ImGui::PushID(static_cast<int>(i));
      for (const auto& [code, gap, label] :
           {std::tuple{n.below, n.gap_below, "<"}, std::tuple{n.above, n.gap_above, ">"}}) {
        const bool above = label[0] == '>';
        if (above && !stacked) ImGui::SameLine(0, ImGui::GetFontSize() * (narrow_window() ? 0.5f : 1.0f));
        if (!code) {
          ImGui::TextDisabled(above ? "none >" : "< none");
          continue;
        }
        const CodeReport v = describe_code(f, *code);
        const char* where = above ? "next above" : "next below";
        const char* button = label;  // (clang before 16 captures no structured binding)
        const auto neighbour = *code;
        auto clicked = [&] {
          if (ImGui::SmallButton(button)) set_value(decode(f, neighbour), std::string(where) + " in " + r.format.name);
          if (ImGui::IsItemHovered()) ImGui::SetTooltip("explore this neighbour");
        };
        if (!above) {
          clicked();
          ImGui::SameLine();
        }
        // (Eight digits side by side in presentation mode too: ten would run 0.1's table 12 px past 1920 px.)
        const int digits = narrow_window() || (presentation_mode() && !stacked) ? 8 : 10;
        ImGui::TextUnformatted(compact_value_text(v, digits).c_str());
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s: %s\n%s\ngap to it: %s", where, v.value_exact.c_str(), v.bits_hex.c_str(),
                            float64_text(gap).c_str());
        if (above) {
          ImGui::SameLine();
          clicked();
        }
      }
      ImGui::PopID();
    };
    if (stacked) {
      draw_interval();
      ImGui::TableNextColumn();
      draw_neighbours();
    } else {
      ImGui::TableNextColumn();
      ImGui::AlignTextToFramePadding();
      draw_interval();
      ImGui::TableNextColumn();
      ImGui::AlignTextToFramePadding();
      draw_ulp(n.ulp, false, std::isnan(n.x));
      ImGui::TableNextColumn();
      draw_neighbours();
    }
  }
  bar.note();
  ImGui::EndTable();
}

void ExplorerPanel::draw_content() {
  // Custom formats named elsewhere join the picker's list (not shown until ticked).
  for (FormatRef& f : newly_named_custom_formats(&customs_seen_))
    if (std::none_of(rows_.begin(), rows_.end(), [&](const Row& r) { return r.format.format == f.format; }))
      rows_.push_back(Row{std::move(f), false, {}});
  handle_keys();
  if (auto done = export_.take()) status_ = *done;
  draw_controls();
  ImGui::Separator();
  if (error_.empty()) {
    ImGui::Text("x = %s  (float64 %s, %s)", value_text_, float64_text(x_).c_str(), hex_float(x_).c_str());
    same_line_if_fits(button_width("Export (Ctrl+E)"));
    const char* keys = "Left/Right: step to the next value of the format whose number line is shown.";
    if (ImGui::Button("Export (Ctrl+E)") || (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed('E', false)))
      status_ = export_all();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "write the number line (PNG, SVG, PDF and CSV) and explore.json, every shown format's\n"
          "rounding of x, to a new folder in precision-lab-export/");
    // The keys beside the button where they fit on its line, and an export's outcome always; in
    // presentation mode at 1280 px the keys would wrap under the float64's digits, and the line
    // they take would leave the number line's plot 133 px tall.
    std::string beside(keys);
    if (!status_.empty()) beside.append("  ").append(status_);
    ImGui::SameLine();
    if (status_.empty() && ImGui::CalcTextSize(keys).x > ImGui::GetContentRegionAvail().x) {
      ImGui::NewLine();  // (nothing beside the button: the line ends there)
    } else {
      wrapped_text_disabled(beside);
    }
    // A number line reads in 13 lines of text (18, the default, would leave presentation mode's
    // table one row at 1280x800, under a figure mostly white; 10 would leave its plot 65 px tall).
    split_.begin_top("explorer", 3, 13);
    draw_table();
    if (ImGui::CollapsingHeader("Limits side by side")) draw_format_limits_table("explorer-limits", shown_formats());
    split_.begin_bottom();
    if (!figures_.empty()) view_.draw("explorer-number-lines", figures_, version_);
    split_.end();
  } else if (ImGui::CollapsingHeader("Limits side by side")) {
    draw_format_limits_table("explorer-limits", shown_formats());
  }
  if (value_pending_) {
    value_pending_ = false;
    const std::string before = value_text_;
    std::snprintf(value_text_, sizeof value_text_, "%s", shortest_double(pending_value_).c_str());
    recompute();
    log_.add("explorer", pending_why_ + ": " + before + " -> " + value_text_);
  }
}

}  // namespace pl::ui
