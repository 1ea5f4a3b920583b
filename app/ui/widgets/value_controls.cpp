#include "app/ui/widgets/value_controls.h"

#include <imgui.h>

#include <iterator>

#include "app/ui/widgets/flow_layout.h"
#include "core/dtype/custom_dtype.h"
#include "core/dtype/device/cast_policy.h"

namespace pl::ui {

bool draw_rounding_combo(const char* label, Rounding* r) {
  const char* roundings[kRoundingCount];
  for (int i = 0; i < kRoundingCount; ++i) roundings[i] = rounding_label(static_cast<Rounding>(i));
  int index = static_cast<int>(*r);
  const float width = ImGui::CalcItemWidth();
  const bool picked = ImGui::Combo(label, &index, roundings, kRoundingCount);
  tooltip_if_cut(roundings[index], width);
  if (!picked) return false;
  *r = static_cast<Rounding>(index);
  return true;
}

bool draw_overflow_combo(const char* label, Overflow* o) {
  const char* overflows[] = {"format default", "saturate", "no saturation"};
  static_assert(std::size(overflows) == kOverflowCount);
  int index = static_cast<int>(*o);
  const bool changed = ImGui::Combo(label, &index, overflows, kOverflowCount);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Beyond the largest finite value: this app's default for the format, as ml_dtypes casts\n"
        "(IEEE formats -> inf, fn/fnuz -> NaN, fp6/fp4 saturate; PyTorch saturates float8_e4m3fn),\n"
        "clamp to max finite, or never saturate (Inf, else NaN; fp6/fp4 have neither and still clamp).");
  if (changed) *o = static_cast<Overflow>(index);
  return changed;
}

bool draw_value_rounding_overflow(char* value, size_t value_size, int* rounding, int* overflow) {
  bool changed = false;
  label_before("value");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  changed |= ImGui::InputText("##value", value, value_size);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "decimal, hex-float (0x1.8p+3), nan, inf, -inf, -0, or A/B or A*B of two of them\n"
        "(worked out in float64, to nearest, then cast: 1/3)");
  same_line_if_fits(labelled_width(ImGui::GetFontSize() * 13, "rounding"));
  label_before("rounding");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 13);
  Rounding r = static_cast<Rounding>(*rounding);
  if (draw_rounding_combo("##rounding", &r)) *rounding = static_cast<int>(r), changed = true;
  same_line_if_fits(labelled_width(ImGui::GetFontSize() * 9, "overflow"));
  label_before("overflow");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  Overflow o = static_cast<Overflow>(*overflow);
  if (draw_overflow_combo("##overflow", &o)) *overflow = static_cast<int>(o), changed = true;
  return changed;
}

std::optional<Expected<FormatRef>> draw_custom_format_adder(char* spelling, size_t size) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  ImGui::InputText("##custom", spelling, size);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("eXmY[bBIAS][:ieee|fn|fnuz|finite], e.g. e5m7 or e4m3b11:fnuz");
  same_line_if_fits(button_width("add custom format"));
  if (!ImGui::Button("add custom format")) return std::nullopt;
  auto f = parse_float_format(spelling);
  if (!f) return Expected<FormatRef>(Error{f.error()});
  return Expected<FormatRef>(*f);
}

std::vector<FormatRef> newly_named_custom_formats(size_t* seen) {
  const std::vector<DType> named = custom_dtypes();
  std::vector<FormatRef> out;
  for (size_t i = *seen; i < named.size(); ++i) out.push_back(format_ref(named[i]));
  *seen = named.size();
  return out;
}

}  // namespace pl::ui
