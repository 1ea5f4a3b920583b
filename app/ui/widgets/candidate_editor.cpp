#include "app/ui/widgets/candidate_editor.h"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/ui/widgets/flow_layout.h"
#include "core/dtype/dtype.h"
#include "core/experiment/scan/candidate.h"
#include "core/quantise/scaling.h"
#include "core/util/join.h"

namespace pl::ui {
namespace {

using experiment::Candidate;
using experiment::ScalingKind;

// The list as `scan --candidates` spells it.
std::string joined(const std::vector<Candidate>& cs) {
  return join(cs, ",", [](const Candidate& c) { return c.text(); });
}

// Whether `dtype` takes the recipe (a checkpoint has no amax history: delayed scaling is left out).
bool takes(DType dtype, ScalingKind kind) {
  if (kind == ScalingKind::PerTensorDelayed) return false;
  experiment::Scaling s;
  s.kind = kind;
  return static_cast<bool>(experiment::check(s, dtype));
}

}  // namespace

bool CandidateEditor::draw(const char* label, std::string& list, float width) {
  const auto dtypes = all_dtypes();
  if (dtype_ < 0) {
    const auto int8 =
        std::find_if(dtypes.begin(), dtypes.end(), [](const DTypeInfo& d) { return d.id == DType::int8; });
    dtype_ = int8 == dtypes.end() ? 0 : static_cast<int>(int8 - dtypes.begin());
    recipe_ = static_cast<int>(ScalingKind::Group);
  }
  auto parsed = experiment::parse_candidates(list);
  // The table's short names, as many as fit the box and then "... (8 in all)": cut by the box, the
  // list read as whole ("e4m3fn mx, i8 chann"). The hover spells each out as --candidates does.
  std::string preview, spelled;
  if (parsed) {
    const float room = combo_preview_room(width);
    for (size_t i = 0; i < parsed->size(); ++i) {
      const Candidate& c = (*parsed)[i];
      spelled.append(spelled.empty() ? "" : "\n").append(c.short_text()).append(": ").append(c.text());
      const std::string more = preview + (preview.empty() ? "" : ", ") + c.short_text();
      const std::string tail = i + 1 < parsed->size() ? ", ... (" + std::to_string(parsed->size()) + " in all)" : "";
      if (ImGui::CalcTextSize((more + tail).c_str()).x <= room || preview.empty()) {
        preview = more;
        continue;
      }
      preview += ", ... (" + std::to_string(parsed->size()) + " in all)";
      break;
    }
  } else {
    preview = "(" + parsed.error() + ")";
  }
  bool changed = false;
  ImGui::SetNextItemWidth(width);
  if (!ImGui::BeginCombo(label, preview.c_str(), ImGuiComboFlags_HeightLargest)) {
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "the formats every weight is scored in (scan --candidates): click to edit; Scan again to apply%s%s",
          spelled.empty() ? "" : "\n\n", spelled.c_str());
    return false;
  }
  if (parsed) {
    for (size_t i = 0; i < parsed->size(); ++i) {
      const Candidate& c = (*parsed)[i];
      ImGui::PushID(static_cast<int>(i));
      const bool drop = ImGui::SmallButton("x") && parsed->size() > 1;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip(parsed->size() > 1 ? "leave it out" : "the last one stays");
      ImGui::SameLine();
      ImGui::TextUnformatted(c.text().c_str());
      ImGui::SameLine();
      ImGui::TextDisabled("(%s in the table)", c.short_text().c_str());
      ImGui::PopID();
      if (drop) {
        std::vector<Candidate> kept = *parsed;
        kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
        list = joined(kept);
        changed = true;
        break;
      }
    }
  } else {
    ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1), "%s", parsed.error().c_str());
  }
  ImGui::Separator();
  // Add one: a dtype, then one of the recipes it takes.
  const DType dtype = dtypes[static_cast<size_t>(dtype_)].id;
  ImGui::TextUnformatted("add");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  if (ImGui::BeginCombo("##add-dtype", std::string(dtypes[static_cast<size_t>(dtype_)].name).c_str())) {
    for (size_t i = 0; i < dtypes.size(); ++i) {
      bool any = false;  // a dtype that takes no recipe (complex, bool) is not offered
      for (size_t k = 0; k < experiment::kScalingKindCount && !any; ++k)
        any = takes(dtypes[i].id, static_cast<ScalingKind>(k));
      if (any && ImGui::Selectable(std::string(dtypes[i].name).c_str(), static_cast<int>(i) == dtype_)) {
        dtype_ = static_cast<int>(i);
        if (!takes(dtypes[i].id, static_cast<ScalingKind>(recipe_)))
          for (size_t k = 0; k < experiment::kScalingKindCount; ++k)
            if (takes(dtypes[i].id, static_cast<ScalingKind>(k))) {
              recipe_ = static_cast<int>(k);
              break;
            }
      }
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  const auto kind = static_cast<ScalingKind>(recipe_);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  if (ImGui::BeginCombo("##add-recipe", std::string(experiment::scaling_name(kind)).c_str())) {
    for (size_t k = 0; k < experiment::kScalingKindCount; ++k)
      if (takes(dtype, static_cast<ScalingKind>(k)) &&
          ImGui::Selectable(std::string(experiment::scaling_name(static_cast<ScalingKind>(k))).c_str(),
                            static_cast<int>(k) == recipe_))
        recipe_ = static_cast<int>(k);
    ImGui::EndCombo();
  }
  if (experiment::is_group(kind)) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt("group", &group_, 32)) group_ = std::clamp(group_, 2, experiment::kMaxGroup);
  }
  ImGui::SameLine();
  if (ImGui::Button("Add")) {
    Candidate add;
    add.dtype = dtype;
    add.scaling.kind = kind;
    add.scaling.group = group_;
    const std::string added = add.text();
    if (!parsed) {
      error_ = "the list does not read (" + parsed.error() + "): Defaults first";  // never dropped unasked
    } else if (auto ok = experiment::parse_candidates(joined(*parsed) + "," + added)) {
      list = joined(*ok);
      changed = true;
      error_.clear();
    } else {
      error_ = ok.error();
    }
  }
  if (!error_.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1), "%s", error_.c_str());
  ImGui::Separator();
  if (ImGui::Button("Defaults")) {
    list = std::string(experiment::kDefaultCandidates);
    changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(experiment::kDefaultCandidates).c_str());
  ImGui::EndCombo();
  return changed;
}

}  // namespace pl::ui
