#include "app/ui/views/error_view.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "app/ui/shell/theme.h"
#include "core/figure/experiment_figures.h"

namespace pl::ui {

using namespace experiment;

ErrorView::ErrorView(RunLog& log) : log_(log) { figure_view_.set_log(&log_, "experiment"); }

void ErrorView::show(std::shared_ptr<const SpecRun> run) {
  run_ = std::move(run);
  fix_ = 0;
  if (run_->raised())  // the first fix that ran goes on screen
    for (size_t i = 0; i < run_->framework->fixes.size(); ++i)
      if (run_->framework->fixes[i].result) {
        fix_ = static_cast<int>(i);
        break;
      }
  show_result();
}

void ErrorView::show(std::shared_ptr<const ExperimentRun> run) {
  other_run_ = std::move(run);
  ++run_id_;
  other_figures_ = figure::experiment_figures(*other_run_);
}

const MatmulResult* ErrorView::shown() const {
  if (!run_) return nullptr;
  if (run_->result) return &*run_->result;
  const auto& fixes = run_->framework->fixes;
  if (fix_ < static_cast<int>(fixes.size()) && fixes[fix_].result) return &*fixes[fix_].result;
  return nullptr;
}

void ErrorView::show_result() {
  ++run_id_;
  const MatmulResult* r = shown();
  figures_ = r ? figure::matmul_figures(*r) : std::vector<figure::Figure>{};
}

void ErrorView::draw_framework() {
  const FrameworkRun& f = *run_->framework;
  if (!run_->raised()) {
    ImGui::TextWrapped("%s: %s -> %s (%s); the output dtype follows it.", f.engine.c_str(), f.call.c_str(),
                       std::string(pl::name(*f.as_written.result)).c_str(), f.as_written.rule.c_str());
    return;
  }
  ImGui::Text("%s: %s", f.engine.c_str(), f.call.c_str());
  ImGui::SetWindowFontScale(1.25f);
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored({1.0f, 0.5f, 0.38f, 1}, "%s: %s", f.as_written.error_type.c_str(), f.as_written.message.c_str());
  ImGui::PopTextWrapPos();
  ImGui::SetWindowFontScale(1.0f);
  ImGui::TextDisabled("%s", f.as_written.rule.c_str());
  ImGui::TextUnformatted(
      "The fixes people try, each run against the same float64 reference (click one to see its figures):");
  if (!ImGui::BeginTable("fixes", 7, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit))
    return;
  for (const char* h : {"fix", "computes in", "max rel", "normwise", "mean bits", "SQNR dB", "seconds"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < f.fixes.size(); ++i) {
    const FixRun& x = f.fixes[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool chosen = static_cast<int>(i) == fix_;
    if (ImGui::Selectable(x.code.c_str(), chosen, ImGuiSelectableFlags_SpanAllColumns) && x.result && !chosen) {
      fix_ = static_cast<int>(i);
      show_result();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", x.effect.c_str());
    ImGui::TableNextColumn();
    if (!x.result) {
      ImGui::TextDisabled("%s", x.note.c_str());
      continue;
    }
    const ErrorStats& st = x.result->total.stats;
    ImGui::TextUnformatted(std::string(pl::name(*x.outcome.result)).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.3e", st.max_rel);
    ImGui::TableNextColumn();
    ImGui::Text("%.3e", st.normwise_rel);
    ImGui::TableNextColumn();
    ImGui::Text("%.2f", st.mean_bits);
    ImGui::TableNextColumn();
    ImGui::Text("%.1f", st.sqnr_db);
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", x.result->seconds.total());
  }
  ImGui::EndTable();
}

void ErrorView::draw_stats(const MatmulResult& r) {
  char device_time[48] = "";
  if (r.product_device_seconds > 0)
    std::snprintf(device_time, sizeof device_time, ", %.3f ms on the device", r.product_device_seconds * 1e3);
  ImGui::TextWrapped("%s   on: %s%s   reference: %s   statistics: %s", r.product_method.c_str(),
                     r.product_backend.c_str(), device_time, r.reference_method.c_str(), r.analysis_backend.c_str());
  if (!r.backend_note.empty()) ImGui::TextColored({1.0f, 0.75f, 0.3f, 1}, "%s", r.backend_note.c_str());
  if (ImGui::BeginTable("stats", 8,
                        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame)) {
    // The parts' names at their own width, the numbers sharing the rest (at 1280 wide, equal
    // columns cut "output rounding" and a ten-digit ulp count).
    ImGui::TableSetupColumn("error", ImGuiTableColumnFlags_WidthFixed);
    for (const char* h : {"max |e|", "mean |e|", "max rel", "normwise", "max ulp", "mean bits", "SQNR dB"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const ErrorComponent* e : {&r.total, &r.input, &r.arithmetic, &r.output}) {
      const ErrorStats& s = e->stats;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(e->name.c_str());
      if (s.count == 0) {  // every element NaN or Inf (the outright line counts them): no error to show
        for (int column = 0; column < 7; ++column) ImGui::TableNextColumn(), ImGui::TextUnformatted("-");
        continue;
      }
      for (double v : {s.max_abs, s.mean_abs, s.max_rel, s.normwise_rel}) {
        ImGui::TableNextColumn();
        ImGui::Text("%.3e", v);
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(experiment::ulps_text(s.max_ulp).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", s.mean_bits);
      ImGui::TableNextColumn();
      ImGui::Text("%.1f", s.sqnr_db);
    }
    ImGui::EndTable();
  }
  if (const std::string outright = experiment::outright_line(r); !outright.empty())
    ImGui::TextColored({1.0f, 0.45f, 0.4f, 1}, "%s", outright.c_str());
  ImGui::TextUnformatted(experiment::bounds_line(r).c_str());
  if (r.input_report.saturated || r.weight_report.saturated || r.input_report.flushed || r.weight_report.flushed)
    ImGui::Text("recipe: input %zu out of range (%s), %zu flushed; weight %zu out of range (%s), %zu flushed",
                r.input_report.saturated, r.input_report.out_of_range.c_str(), r.input_report.flushed,
                r.weight_report.saturated, r.weight_report.out_of_range.c_str(), r.weight_report.flushed);
}

void ErrorView::draw_attribution_toggle(const MatmulResult& r) {
  const std::string parts[] = {r.total.name, r.input.name, r.arithmetic.name, r.output.name};
  ImGui::TextUnformatted("show");
  bool changed = false;
  for (int i = 0; i <= 4; ++i) {
    ImGui::SameLine();
    changed |= ImGui::RadioButton(i == 0 ? "every part" : parts[i - 1].c_str(), &attribution_, i);
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "where the error came from: rounding the inputs, the products and their accumulation, "
        "rounding the output -- or all of it (total)");
  if (!changed) return;
  for (const figure::Figure& f : figures_) {
    // A figure without the chosen part (the ulp figure has no arithmetic series) shows them all.
    const bool has_part = attribution_ != 0 && std::any_of(f.series.begin(), f.series.end(), [&](const auto& s) {
                            return figure::series_name(s.label) == parts[attribution_ - 1];
                          });
    figure::View& v = figure_view_.view(f.name);
    for (int i = 0; i < 4; ++i) {
      const bool hide = has_part && attribution_ != i + 1;
      if (hide != v.hides(parts[i])) v.toggle(parts[i]);
    }
  }
  log_.add("experiment",
           std::string("figures show ") + (attribution_ == 0 ? "every part of the error" : parts[attribution_ - 1]));
}

void ErrorView::draw(ExperimentMode mode, bool computing) {
  if (mode != ExperimentMode::Matrix) {
    const bool fits = other_run_ && (mode == ExperimentMode::Mlp    ? other_run_->mlp.has_value()
                                     : mode == ExperimentMode::Cast ? other_run_->cast.has_value()
                                                                    : other_run_->dot_config.has_value());
    if (!fits) {
      ImGui::TextDisabled(computing ? "computing the first result..." : "no result yet");
      return;
    }
    if (other_run_->mlp) draw_mlp_table(*other_run_->mlp);
    else if (other_run_->cast) draw_cast_table(*other_run_->cast);
    else draw_sweep_table(other_run_->dot_rows);
    figure_view_.draw("figures", other_figures_, std::to_string(run_id_), 1.6f);
    return;
  }
  if (!run_) {
    ImGui::TextDisabled(computing ? "computing the first result..." : "no result yet");
    return;
  }
  if (run_->framework) draw_framework();
  const MatmulResult* shown_result = shown();
  if (!shown_result) return;
  if (run_->raised()) {
    ImGui::Separator();
    ImGui::Text("below: %s", run_->framework->fixes[fix_].code.c_str());
  }
  // In presentation mode the figures get the room; the table is one click away.
  if (!presentation_mode() || ImGui::CollapsingHeader("statistics table")) draw_stats(*shown_result);
  draw_attribution_toggle(*shown_result);
  // 1.6:1 like the exported files.
  figure_view_.draw("figures", figures_, std::to_string(run_id_), 1.6f);
}

}  // namespace pl::ui
