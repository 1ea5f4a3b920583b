#include "app/ui/value_controls.h"

#include <imgui.h>

#include "core/dtype/cast_policy.h"

namespace pl::ui {

bool draw_value_rounding_overflow(char* value, size_t value_size, int* rounding, int* overflow) {
  bool changed = false;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  changed |= ImGui::InputText("value", value, value_size);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("decimal, hex-float (0x1.8p+3), nan, inf, -inf, -0");
  ImGui::SameLine();
  const char* roundings[kRoundingCount];
  for (int i = 0; i < kRoundingCount; ++i) roundings[i] = rounding_label(static_cast<Rounding>(i));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 13);
  changed |= ImGui::Combo("rounding", rounding, roundings, kRoundingCount);
  ImGui::SameLine();
  const char* overflows[] = {"format default", "saturate", "no saturation"};
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  changed |= ImGui::Combo("overflow", overflow, overflows, kOverflowCount);
  return changed;
}

std::optional<FormatRef> draw_custom_format_adder(char* spelling, size_t size, std::string* error) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  ImGui::InputText("##custom", spelling, size);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("eXmY[bBIAS][:ieee|fn|fnuz|finite], e.g. e5m7 or e4m3b11:fnuz");
  ImGui::SameLine();
  if (!ImGui::Button("add custom format")) return std::nullopt;
  auto f = parse_float_format(spelling);
  if (!f) {
    *error = f.error();
    return std::nullopt;
  }
  return *f;
}

}  // namespace pl::ui
