#include "app/ui/widgets/format_limits_table.h"

#include <cmath>
#include <string>

#include <imgui.h>

#include "app/ui/widgets/flow_layout.h"
#include "core/dtype/device/float_format.h"
#include "core/dtype/framework_cast_paths.h"
#include "core/util/number_text.h"

namespace pl::ui {

void format_tooltip(const FormatRef& r) {
  if (!ImGui::IsItemHovered()) return;
  const FloatFormat& f = r.format;
  ImGui::BeginTooltip();
  ImGui::Text("%s: %s, %d exponent bits, %d mantissa bits, bias %d", r.name.c_str(),
              f.is_signed() ? "a sign bit" : "no sign bit", f.exponent_bits, f.mantissa_bits, f.bias);
  // Each limit by its own leading digits: printf's %.6g wrote float32's smallest normal as
  // 1.17549e-38, below 2^-126, so the range began at a subnormal.
  const std::string normal = leading_digits_text(min_normal(f), 6), largest = leading_digits_text(max_finite(f), 6);
  if (f.has_subnormals())
    ImGui::Text("range %s .. %s (smallest subnormal %s)", normal.c_str(), largest.c_str(),
                leading_digits_text(min_subnormal(f), 6).c_str());
  else ImGui::Text("range %s .. %s (no subnormals)", normal.c_str(), largest.c_str());
  ImGui::Text("precision p = %d bits: epsilon 2^%d, unit roundoff u = 2^%d", f.precision(), -f.mantissa_bits,
              -f.precision());
  if (r.dtype) ImGui::Text("defined by: %s", std::string(info(*r.dtype).defined_by).c_str());
  ImGui::EndTooltip();
}

double power_limit(const FloatFormat& f, PowerLimit k) {
  switch (k) {
    case PowerLimit::SmallestNormal: return min_normal(f);
    case PowerLimit::SmallestSubnormal: return min_subnormal(f);
    case PowerLimit::Epsilon: return machine_epsilon(f);
    default: return unit_roundoff(f);
  }
}

std::string power_limit_text(const FloatFormat& f, PowerLimit k) {
  // A format without subnormals (float8_e8m0fnu) has none: 2^-127 there repeated its smallest
  // normal as if it were a subnormal. (Its smallest normal is the same value, and is one.)
  if (k == PowerLimit::SmallestSubnormal && !f.has_subnormals()) return "none";
  return "2^" + std::to_string(std::ilogb(power_limit(f, k)));
}

void draw_format_limits_table(const char* id, const std::vector<FormatRef>& formats) {
  struct Column {
    const char* name;
    const char* meaning;
  };
  static const Column columns[] = {
      {"format", ""},
      {"bits", "total bits: sign + exponent + mantissa"},
      {"e", "exponent bits"},
      {"m", "mantissa (fraction) bits; precision p = m + 1 with the implicit bit"},
      {"bias",
       "exponent bias: a normal number's power of two is its stored exponent - bias; a subnormal's (stored "
       "exponent 0) is 1 - bias"},
      {"largest\nfinite",
       "the largest finite value; rounding to nearest, values up to half an ulp past it round to it (half an ulp "
       "itself too where its last bit is even: float8_e4m3fn's 464 gives 448), and from there on overflow "
       "(float16: 65504, from 65520)"},
      {"smallest\nnormal", "2^emin: below it values lose precision (subnormals)"},
      {"smallest\nsubnormal",
       "the smallest positive value; rounding to nearest, values up to half of it round to zero (half itself "
       "too: the tie goes to the even zero)"},
      {"machine\nepsilon", "the gap between 1 and the next larger value: 2^(1-p)"},
      {"unit\nroundoff u", "bounds the relative error of rounding to nearest in the normal range: 2^-p = epsilon / 2"},
      {"specials;\noverflow",
       "the special values the format has (Inf, NaN, negative zero -0); then what a value past the largest finite "
       "becomes by default: Inf, NaN, or the largest finite (saturates)"},
  };
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY;
  // As tall as all its rows (and the sideways scrollbar): the window around it scrolls. Filling
  // the space left, below the Formats panel's integer casts, made it a row high, and its window
  // scrolled by a different amount from frame to frame.
  const SidewaysBar bar(id);
  // The headers take two lines: on one, at 1600 px in presentation mode, they pushed the last
  // column (the specials, overflow) past the window's edge.
  const float height = float(formats.size() + 1) * table_row_height() + ImGui::GetTextLineHeight() + bar.height();
  if (!ImGui::BeginTable(id, IM_ARRAYSIZE(columns), flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (const Column& c : columns) ImGui::TableSetupColumn(c.name);
  table_headers([&](int c) { return std::string(columns[c].meaning); });
  for (const auto& r : formats) {
    const FloatFormat& f = r.format;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.name.c_str());
    format_tooltip(r);
    for (int v : {f.total_bits(), f.exponent_bits, f.mantissa_bits, f.bias}) {
      ImGui::TableNextColumn();
      ImGui::Text("%d", v);
    }
    ImGui::TableNextColumn();
    // Whole up to six digits (float8_e5m2's 57344); past that four and "...", its digits on hover:
    // six pushed the last column past a 1280 px window in presentation mode.
    const double largest = max_finite(f);
    ImGui::TextUnformatted(leading_digits_text(largest, largest < 1e6 ? 6 : 4).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s (%a)", float64_text(largest).c_str(), largest);
    // The other four are powers of two, written as such: the exponent is what a teacher writes
    // on the board (float16's epsilon 2^-10), and six digits of each pushed the table's last
    // column past a 1280 px window in presentation mode. The decimal is on hover.
    for (PowerLimit k : {PowerLimit::SmallestNormal, PowerLimit::SmallestSubnormal, PowerLimit::Epsilon,
                         PowerLimit::UnitRoundoff}) {
      ImGui::TableNextColumn();
      if (k == PowerLimit::SmallestSubnormal && !f.has_subnormals()) {
        ImGui::TextDisabled("%s", power_limit_text(f, k).c_str());  // "none"
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("no subnormals: the smallest positive value is the smallest normal");
        continue;
      }
      ImGui::TextUnformatted(power_limit_text(f, k).c_str());
      const double v = power_limit(f, k);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s (%a)", float64_text(v).c_str(), v);
    }
    ImGui::TableNextColumn();
    const char* ovf = f.overflow_default() == OverflowDefault::ToInf   ? "to Inf"
                      : f.overflow_default() == OverflowDefault::ToNaN ? "to NaN"
                                                                       : "saturates";
    // Only the specials the format has: "yes / yes / no" asked the reader to map each word to the
    // header, and pushed the column past a 1280 px window in presentation mode.
    std::string specials;
    if (f.has_inf()) specials += "Inf ";
    if (f.has_nan()) specials += "NaN ";
    if (f.has_negative_zero()) specials += "-0 ";
    if (specials.empty()) specials = "none ";
    specials.back() = ';';
    ImGui::Text("%s %s", specials.c_str(), ovf);  // "NaN -0; to NaN"
    // The default is this app's for the format (ml_dtypes' cast); a framework's own cast may
    // differ (PyTorch's float8_e4m3fn saturates, inf too, where ml_dtypes' gives NaN).
    if (ImGui::IsItemHovered() && r.dtype) {
      if (const std::string who = overflow_attribution(*r.dtype, "\n  "); !who.empty()) {
        ImGui::SetTooltip(
            "past the largest finite, by this app's default (ml_dtypes' cast): %s\nthe frameworks' own casts, as "
            "recorded:\n  %s",
            ovf, who.c_str());
      }
    }
  }
  bar.note();
  ImGui::EndTable();
}

}  // namespace pl::ui
