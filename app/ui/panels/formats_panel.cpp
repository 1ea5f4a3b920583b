#include "app/ui/panels/formats_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <imgui.h>

#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/format_limits_table.h"
#include "app/ui/widgets/value_controls.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/dtype/framework_cast_paths.h"
#include "core/dtype/int_convert.h"
#include "core/util/number_text.h"

namespace pl::ui {
namespace {

// Field colours chosen to stay distinct for the common colour-vision deficiencies
// (Okabe & Ito palette: vermillion, bluish green, blue).
const ImVec4 kSignColour{0.84f, 0.37f, 0.00f, 1.0f};
const ImVec4 kExponentColour{0.00f, 0.62f, 0.45f, 1.0f};
const ImVec4 kMantissaColour{0.34f, 0.71f, 0.91f, 1.0f};

void bits_coloured(const FloatFormat& f, uint64_t code) {
  const int total = f.total_bits();
  for (int b = total - 1; b >= 0; --b) {
    bool is_sign = f.is_signed() && b == total - 1;
    bool is_exp = !is_sign && b >= f.mantissa_bits;
    const ImVec4& c = is_sign ? kSignColour : is_exp ? kExponentColour : kMantissaColour;
    ImGui::TextColored(c, "%c", ((code >> b) & 1) ? '1' : '0');
    ImGui::SameLine(0, 0);
    bool gap = b > 0 && (is_sign || b == f.mantissa_bits);
    if (gap) {
      ImGui::TextUnformatted(" ");
      ImGui::SameLine(0, 0);
    }
  }
  ImGui::NewLine();
}

std::string flags_short(const CastFlags& f) {
  std::string s;
  auto add = [&](bool on, const char* n) {
    if (on) s += s.empty() ? n : std::string(" ") + n;
  };
  add(f.overflow, "overflow");
  add(f.saturated, "saturated");
  add(f.underflow, "underflow");
  add(f.nan_to_zero, "nan->0");
  add(f.to_nan, "->nan");
  add(f.flushed_input, "daz");
  add(f.flushed_output, "ftz");
  if (s.empty()) s = f.inexact ? "inexact" : "exact";
  return s;
}

}  // namespace

FormatsPanel::FormatsPanel(std::string initial_value) {
  std::snprintf(value_text_, sizeof value_text_, "%s", initial_value.c_str());
  formats_ = table_float_formats();
  recompute();
}

void FormatsPanel::show(const std::string& value, std::optional<DType> row, const std::string& path) {
  std::snprintf(value_text_, sizeof value_text_, "%s", value.c_str());
  marked_ = row;
  scroll_to_marked_ = row.has_value();
  value_rows_.cancel_scroll();
  // A link shows what its text means: a path it does not name is the direct one, not the one
  // another link left.
  CastPath p = CastPath::Direct;
  if (!path.empty()) parse_cast_path(path.c_str(), &p);
  path_ = static_cast<int>(p);
  recompute();
}

void FormatsPanel::recompute() {
  auto v = parse_number_expression(value_text_);
  results_.clear();
  if (!v) {
    parse_error_ = v.error();
    return;
  }
  parse_error_.clear();
  value_ = *v;
  CastOptions o;
  o.rounding = static_cast<Rounding>(rounding_);
  o.overflow = static_cast<Overflow>(overflow_);
  o.path = static_cast<CastPath>(path_);
  o.flush_input_subnormals = daz_;
  o.flush_output_subnormals = ftz_;
  o.seed = seed_;
  for (const auto& f : formats_) results_.push_back(describe_cast(f.format, value_, o));
}

void FormatsPanel::draw_controls() {
  bool changed = draw_value_rounding_overflow(value_text_, sizeof value_text_, &rounding_, &overflow_);
  const char* paths[] = {"direct (one rounding)", "via float32 (two roundings)"};
  same_line_if_fits(labelled_width(ImGui::GetFontSize() * 14, "path"));
  label_before("path");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  changed |= ImGui::Combo("##path", &path_, paths, 2);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "direct: the value rounded once into each format.\n"
        "via float32: rounded to float32 first, then into the format, as PyTorch and ml_dtypes 0.6\n"
        "cast a float64 value (their float8_e8m0fnu casts differ from both: docs/numerics.md).");
  same_line_if_fits(checkbox_width("flush subnormal inputs (DAZ)"));
  changed |= ImGui::Checkbox("flush subnormal inputs (DAZ)", &daz_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "DAZ reads a subnormal source value as zero. The source here is the float64 value typed,\n"
        "so only |x| < 2^-1022 flushes (a float32 subnormal such as 1e-40 does not).");
  same_line_if_fits(checkbox_width("flush subnormal results (FTZ)"));
  changed |= ImGui::Checkbox("flush subnormal results (FTZ)", &ftz_);
  if (rounding_ == static_cast<int>(Rounding::Stochastic)) {
    same_line_if_fits(labelled_width(ImGui::GetFontSize() * 6, "seed"));
    label_before("seed");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    const uint64_t step = 1;
    changed |= ImGui::InputScalar("##seed", ImGuiDataType_U64, &seed_, &step);
  }
  same_line_if_fits(ImGui::GetFontSize() * 7);
  if (auto added = draw_custom_format_adder(custom_text_, sizeof custom_text_); added && !*added) {
    parse_error_ = added->error();
  } else if (added) {
    parse_error_.clear();
    formats_.push_back(**added);
    changed = true;
  }
  if (changed) recompute();
  if (!parse_error_.empty()) ImGui::TextColored({1.0f, 0.4f, 0.3f, 1.0f}, "%s", parse_error_.c_str());
}

void FormatsPanel::draw_value_table() {
  if (results_.empty()) return;
  // The float64 by its own digits, as the table's rows give theirs (the shortest decimal,
  // 1.0625000000009095, would stand over the float64 row's 1.0625000000009094...).
  ImGui::Text("%s as float64 is %s (%s)", value_text_, float64_text(value_).c_str(), hex_float(value_).c_str());
  // Columns at their content's width, scrolling sideways when they do not fit (squeezed to the
  // window, the last five would be a letter wide in presentation mode); as tall as its rows.
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY;
  const float rows = float(results_.size() + 1);
  const SidewaysBar bar("values");
  // In the compact view (a scenario's live pane) as tall as all its rows, and the pane scrolls:
  // filling the space left, it would hold two rows in a scrolling table of its own at 1600x1000.
  const float pitch = value_rows_.pitch(table_row_height() + 1);
  const float height = compact_ ? rows * pitch + bar.height() : table_height(rows, pitch, bar.needed());
  if (!ImGui::BeginTable("values", 7, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  // The value, its errors and the flags before the bits: float64's 64 bits in presentation mode's
  // large type would push every column after them past the edge at 1280 px.
  for (const char* h :
       {"format", "value", "abs error", "rel error", "error (ulps)", "flags", "bits (sign | exponent | mantissa)"})
    ImGui::TableSetupColumn(h);
  table_headers([](int c) -> std::string {
    if (c != 5) return "";
    return "what the cast did: overflow: past the largest finite; saturated: clamped to it; underflow: tiny and\n"
           "inexact; nan->0: a NaN into a format without NaN became zero; ->nan: no code holds the value\n"
           "(e8m0 has no zero and no negatives); daz / ftz: the input / the result flushed to zero;\n"
           "else inexact or exact";
  });
  for (size_t i = 0; i < results_.size(); ++i) {
    const CastReport& r = results_[i];
    ImGui::TableNextRow();
    if (formats_[i].dtype) mark_row(*formats_[i].dtype, i);
    value_rows_.at_row(i, results_.size());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formats_[i].name.c_str());
    format_tooltip(formats_[i]);
    ImGui::TableNextColumn();
    // The stored value itself, not the shortest decimal that reads back to it: students should
    // see that float16's "0.1" is 0.0999755859375.
    ImGui::TextUnformatted(
        stored_value_text(r.result.value, r.result.value_exact, formats_[i].format.precision()).c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("exact: %s\nshortest decimal that reads back: %s", r.result.value_exact.c_str(),
                        r.result.value_shortest.c_str());
    ImGui::TableNextColumn();
    if (const auto why = no_finite_error(r)) {
      ImGui::TextUnformatted(why->c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("-");
    } else {
      ImGui::TextUnformatted(error_size_text(r.abs_error, 4).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(error_size_text(r.rel_error, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(ulp_error_text(r.ulp_error).c_str());
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(flags_short(r.flags).c_str());
    // Past the largest the table shows this app's default for the format (ml_dtypes' cast);
    // PyTorch's float8_e4m3fn cast saturates where that default gives NaN. A NaN into a format without one is a zero of
    // its sign, where ml_dtypes gives the other sign's.
    if (ImGui::IsItemHovered()) {
      if (const std::string who = past_largest_note(formats_[i].dtype, r, "\n  "); !who.empty())
        ImGui::SetTooltip("past the largest finite, the frameworks' own casts, as recorded:\n  %s", who.c_str());
      else if (const std::string nan_who = nan_note(formats_[i].dtype, r, "\n  "); !nan_who.empty())
        ImGui::SetTooltip("a NaN here is a zero of its sign; the frameworks' own casts, as recorded:\n  %s",
                          nan_who.c_str());
    }
    ImGui::TableNextColumn();
    bits_coloured(formats_[i].format, r.result.code);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.result.bits_hex.c_str());
  }
  bar.note();
  mark_more_right();
  mark_more_below();  // rows hidden below the pane's edge, as every pane marks them
  ImGui::EndTable();
}

void FormatsPanel::mark_row(DType t, size_t row) {
  if (marked_ != t) return;  // the row a scenario points at
  ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, ImGui::GetColorU32(ImVec4(0.85f, 0.65f, 0.15f, 0.35f)));
  if (!scroll_to_marked_ || !is_float(t)) return;  // (the integer table is brought up whole)
  // Two rows of context above it (the first frame's scroll limit is 0, and at 1600x1000 the
  // clamp that follows would leave float32's row half under the header).
  value_rows_.scroll_to(row);
  scroll_to_marked_ = false;
}

bool FormatsPanel::integer_marked() const { return marked_ && !is_float(*marked_); }

// The value in each integer dtype: a float64 array holding it, cast. The C cast column is what
// NumPy's astype prints for an array of one element on x86-64; NumPy's and PyTorch's vectorised
// loops (an array of 64) differ for NaN and past uint32's range into uint32, and PyTorch's .to() also for some
// values past int32's range into uint8 (IntConvertGolden compares it with their recorded casts);
// the saturating one clamps.
void FormatsPanel::draw_integer_table() {
  const bool open = ImGui::CollapsingHeader("Into integer dtypes", ImGuiTreeNodeFlags_DefaultOpen);
  const std::string about = printf_text(
      "%s as a float64 array cast to each integer dtype. Both casts drop the fraction toward zero. They differ "
      "for a value the dtype cannot hold. The C cast keeps the low bits of a 32- or 64-bit conversion (300.0 "
      "into int8 is 44), as NumPy's astype of a one-element array does on x86-64. Longer arrays take NumPy's and "
      "PyTorch's vectorised loops, which can give other values for NaN and past uint32's range cast to uint32; "
      "PyTorch's .to() also differs for some values past int32's range cast to uint8. The saturating cast clamps "
      "to the dtype's range (300.0 into int8 is 127) and turns NaN into 0. bool is neither: any nonzero value, NaN "
      "included, is true in both.",
      value_text_);
  if (compact_ && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", about.c_str());
  if (!open) return;
  if (scroll_to_marked_ && integer_marked()) {
    ImGui::SetScrollHereY(0.0f);
    scroll_to_marked_ = false;
  }
  if (results_.empty()) return;
  if (!compact_) wrapped_text(about);
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("integers", 4, flags)) return;
  for (const char* h : {"dtype", "C cast (x86-64)", "saturating", "what happened"}) ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const DTypeInfo& d : all_dtypes()) {
    if (!is_integer(d.id) && d.id != DType::bool_) continue;
    // int4 and uint4 have no C cast (check_int_cast): the saturating one alone.
    const bool c_cast = has_c_cast(d.id);
    const IntResult s = float_to_int(d.id, value_, IntOverflow::Saturate);
    const IntResult c = c_cast ? float_to_int(d.id, value_, IntOverflow::Wrap) : s;
    ImGui::TableNextRow();
    mark_row(d.id);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(d.name.data(), d.name.data() + d.name.size());
    ImGui::TableNextColumn();
    if (c_cast) {
      ImGui::TextUnformatted(int_bits_to_string(d.id, c.bits).c_str());
    } else {
      ImGui::TextDisabled("-");
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "no C type: NumPy with ml_dtypes converts into %s its own way; PyTorch 2.15 has no "
            "conversion into it",
            d.name.data());
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(int_bits_to_string(d.id, s.bits).c_str());
    ImGui::TableNextColumn();
    const char* what = d.id == DType::bool_ ? (c.bits ? "nonzero: true" : "zero: false")
                       : c.nan_input        ? "NaN: no integer holds it"
                       : c.out_of_range     ? (c.inexact ? "fraction dropped; out of range" : "out of range")
                       : c.inexact          ? "fraction dropped"
                                            : "exact";
    ImGui::TextUnformatted(what);
  }
  ImGui::EndTable();
}

void FormatsPanel::draw_properties_table() {
  if (!ImGui::CollapsingHeader("Format properties", ImGuiTreeNodeFlags_DefaultOpen)) return;
  draw_format_limits_table("props", formats_);
}

// Custom formats named elsewhere (an experiment's dtype or accumulator) join the rows, so the
// format a user just tried is here to compare.
bool FormatsPanel::add_named_custom_formats() {
  bool added = false;
  for (FormatRef& f : newly_named_custom_formats(&customs_seen_))
    if (std::none_of(formats_.begin(), formats_.end(), [&](const FormatRef& r) { return r.format == f.format; })) {
      formats_.push_back(std::move(f));
      added = true;
    }
  return added;
}

void FormatsPanel::draw_content() {
  if (add_named_custom_formats()) recompute();
  if (!compact_) {
    draw_controls();
    ImGui::Separator();
  } else {
    // The one setting a link may change besides the value (scenario 19's two links differ in it).
    ImGui::TextDisabled("%s", path_ == static_cast<int>(CastPath::ViaFloat32)
                                  ? "each cast through float32 first (two roundings), as PyTorch casts a float64 tensor"
                                  : "each cast directly from float64 (one rounding)");
  }
  // Compact: one scrolling column, the table the link marks first (no room for two panes). Its
  // scrollbar always shows: coming and going, it would leave the tables sized for the width without
  // it, 21 px past the edge.
  if (compact_) {
    ImGui::BeginChild("formats-compact", ImVec2(0, 0), false, ImGuiWindowFlags_AlwaysVerticalScrollbar);
    if (integer_marked()) draw_integer_table();
    draw_value_table();
    if (!integer_marked()) draw_integer_table();
    mark_more_below();
    ImGui::EndChild();
    return;
  }
  // The values above, as tall as they need up to half the height; the formats' properties and
  // the integer casts below -- or the integer casts above, when a link marks an integer dtype.
  split_.begin_top("formats", 4, 6);
  if (integer_marked()) {
    draw_integer_table();
    split_.begin_bottom(/*scrolls=*/true);
    draw_value_table();
    draw_properties_table();
  } else {
    draw_value_table();
    split_.begin_bottom(/*scrolls=*/true);
    draw_properties_table();
    draw_integer_table();
  }
  split_.end();
}

}  // namespace pl::ui
