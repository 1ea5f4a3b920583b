#include "app/ui/views/probe_view.h"

#include <imgui.h>

#include "app/ui/widgets/wrapped_text.h"
#include "core/backend/backend.h"

namespace pl::ui {
namespace {

constexpr DType kInputs[] = {DType::float16, DType::bfloat16, DType::tf32, DType::float8_e4m3fn, DType::float8_e5m2};
constexpr const char* kInputNames[] = {"float16", "bfloat16", "tf32", "float8_e4m3fn", "float8_e5m2"};

}  // namespace

void ProbeView::draw(BackendChoice backend) {
  if (auto said = task_.take(); said && !said->empty()) log_.add("throughput", *said);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  ImGui::Combo("input##probe", &dtype_index_, kInputNames, IM_ARRAYSIZE(kInputNames));
  ImGui::SameLine();
  ImGui::Checkbox("fast accumulation (float8, CUDA)", &fast_);
  ImGui::SameLine();
  if (task_.running()) {
    ImGui::TextDisabled("probing...");
  } else if (ImGui::Button("Probe")) {
    task_.start([this, backend, t = kInputs[dtype_index_], fast = fast_] {
      auto shared = shared_backend(backend);
      Expected<experiment::ProbeReport> r = Error{shared ? "" : shared.error()};
      if (shared) {
        std::lock_guard device(*shared->mutex);
        r = experiment::probe_accumulation(*shared->backend, t, {experiment::AccumKind::Blas, DType::float32}, fast);
      }
      std::lock_guard lock(mutex_);
      if (!r) {
        error_ = r.error();
        return "accumulation probe of " + std::string(name(t)) + " failed: " + error_;
      }
      report_ = *r, error_.clear();
      return "probed " + std::string(name(t)) + " on " + r->device + " (" + r->backend + "): model " +
             (r->model.empty() ? "none" : r->model);
    });
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Dot products of crafted powers of two through the library GEMM (after Fasi, Higham,\n"
        "Mikaitis and Pranesh, 2021): what comes back says how the hardware adds.");
  std::lock_guard lock(mutex_);
  if (!error_.empty()) ImGui::TextColored({1.0f, 0.45f, 0.4f, 1}, "error: %s", error_.c_str());
  if (!report_) return;
  const auto& r = *report_;
  // The model first, where it does not move with the length of the device's description.
  if (r.model.empty()) {
    ImGui::TextDisabled("as an accumulation model: none (%s)", r.model_note.c_str());
  } else {
    ImGui::Text("as an accumulation model: %s", r.model.c_str());
    if (use_model_) {
      ImGui::SameLine();
      if (ImGui::SmallButton("Use in the Experiment panel")) use_model_(r.model, r.input);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "The next experiment's accumulate model becomes %s, its input and weight %s:\n"
            "emulated by Precision Lab's own code on any backend (the CPU's and the GPU's agree bit for bit).\n"
            "How closely it matches this device's own product is the probe's last finding: its\n"
            "share of random-input elements bit for bit.",
            r.model.c_str(), std::string(name(r.input)).c_str());
    }
    ImGui::SameLine();
    ImGui::TextDisabled("(%s)", r.model_note.c_str());
  }
  wrapped_text(printf_text("%s (%s), %s x %s%s: %s", r.device.c_str(), r.backend.c_str(),
                           std::string(name(r.input)).c_str(), std::string(name(r.input)).c_str(),
                           r.fast_accumulation ? ", fast accumulation" : "", r.method.c_str()));
  if (ImGui::BeginTable("probe", 2,
                        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("question");
    ImGui::TableSetupColumn("answer (hover: evidence)");
    ImGui::TableHeadersRow();
    for (const auto& f : r.findings) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(f.question.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(f.answer.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.evidence.c_str());
    }
    ImGui::EndTable();
  }
}

}  // namespace pl::ui
