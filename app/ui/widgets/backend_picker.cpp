#include "app/ui/widgets/backend_picker.h"

#include <imgui.h>

#include <chrono>

#include "app/ui/widgets/flow_layout.h"
#include "core/backend/backend.h"

namespace pl::ui {
namespace {

std::vector<BackendPicker::Entry> find_backends() {
  std::vector<BackendPicker::Entry> out;
  for (const BackendChoice choice : registered_backends()) {
    BackendPicker::Entry e{choice, "", ""};
    auto b = shared_backend(choice);  // the one the experiments will use
    if (!b) {
      e.device = "not available";
      e.unusable = b.error();
    } else {
      const DeviceInfo d = b->backend->device_info();
      e.device = d.name + (d.compute_capability.empty() ? "" : ", sm " + d.compute_capability);
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

BackendPicker::BackendPicker() : pending_(std::async(std::launch::async, find_backends)) {}

bool BackendPicker::draw(const char* label) {
  if (pending_.valid() && pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    entries_ = pending_.get();
  std::string preview(backend_choice_name(chosen_));
  for (const Entry& e : entries_)
    if (e.choice == chosen_) preview += " (" + e.device + ")";
  bool changed = false;
  const float width = ImGui::CalcItemWidth();
  const bool open = ImGui::BeginCombo(label, preview.c_str());
  if (!open) tooltip_if_cut(preview.c_str(), width);
  if (open) {
    if (entries_.empty()) ImGui::TextDisabled("looking for devices...");
    for (const Entry& e : entries_) {
      const std::string item = std::string(backend_choice_name(e.choice)) + " (" + e.device + ")";
      if (!e.unusable.empty()) ImGui::BeginDisabled();
      if (ImGui::Selectable(item.c_str(), e.choice == chosen_) && e.choice != chosen_)
        chosen_ = e.choice, changed = true;
      if (!e.unusable.empty()) ImGui::EndDisabled();
      if (!e.unusable.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", e.unusable.c_str());
    }
    ImGui::EndCombo();
  }
  return changed;
}

std::string BackendPicker::where(const ProductSpec& s) const {
  if (chosen_ == BackendChoice::Cpu) return "";
  for (const Entry& e : entries_) {
    if (e.choice != chosen_ && !(chosen_ == BackendChoice::Auto && e.choice == BackendChoice::Cuda)) continue;
    const std::string name(backend_choice_name(e.choice));
    if (!e.unusable.empty()) return name + " unavailable (" + e.unusable + "): the CPU will run the product";
    auto device = device_for(e.choice, s);  // opened when the list was made: no wait here
    if (!device) return device.error() + "; the CPU will run the product";
    return *device ? "the product runs on " + name + " (" + e.device + ")" : "";
  }
  return "";
}

}  // namespace pl::ui
