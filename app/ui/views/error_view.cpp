#include "app/ui/views/error_view.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>

#include "app/ui/shell/theme.h"
#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/wrapped_text.h"
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
    wrapped_text(printf_text("%s: %s -> %s (%s); the output dtype follows it.", f.engine.c_str(), f.call.c_str(),
                             std::string(pl::name(*f.as_written.result)).c_str(), f.as_written.rule.c_str()));
    return;
  }
  ImGui::Text("%s: %s", f.engine.c_str(), f.call.c_str());
  ImGui::SetWindowFontScale(1.25f);
  wrapped_text_colored({1.0f, 0.5f, 0.38f, 1}, f.as_written.error_type + ": " + f.as_written.message);
  ImGui::SetWindowFontScale(1.0f);
  ImGui::TextDisabled("%s", f.as_written.rule.c_str());
  wrapped_text("The fixes people try, each run against " + experiment::fixes_reference_text(f) +
               " (click one to see its figures):");
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
  if (r.product_device_seconds)
    std::snprintf(device_time, sizeof device_time, ", %.3f ms on the device", *r.product_device_seconds * 1e3);
  // One short line; the library's build string and the reference's method are a hover away.
  const std::string& on = r.product_backend;
  const std::string on_short = on.substr(0, std::min(on.find(" ("), on.find(',')));
  const std::string& how = r.product_method;
  const std::string how_short = how.substr(0, how.find(" ("));  // "f32 OpenBLAS sgemm", its build string apart
  wrapped_text(printf_text("%s   on: %s%s", how_short.c_str(), on_short.c_str(), device_time));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("products: %s\non: %s%s\nreference: %s\nstatistics: %s", r.product_method.c_str(), on.c_str(),
                      device_time, r.reference_method.c_str(), r.analysis_backend.c_str());
  if (!r.backend_note.empty()) ImGui::TextColored({1.0f, 0.75f, 0.3f, 1}, "%s", r.backend_note.c_str());
  if (ImGui::BeginTable("stats", 8,
                        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame)) {
    // The parts' names at their own width, the numbers sharing the rest (at 1280 wide, equal
    // columns would cut "output rounding" and a ten-digit ulp count).
    // Each statistic's header says, on hover, what it is (core/analysis/error_stats.h).
    static constexpr std::pair<const char*, const char*> kColumns[] = {
        {"error", "the whole error, and its parts: rounding the inputs, the arithmetic, rounding the output"},
        {"max |e|", "the largest |result - exact| over the elements"},
        {"mean |e|", "the mean of |result - exact| over the elements"},
        {"max rel", "the largest |e| / max(|exact|, floor): the floor keeps near-zero elements from dominating"},
        {"normwise", "||result - exact||_F / ||exact||_F: the whole output's relative error"},
        {"max ulp", "the largest |e| in units in the last place of the output format at the exact value"},
        {"mean bits", "bits of agreement with the exact value, -log2 of the relative error (capped), averaged"},
        {"SQNR dB", "signal to quantisation noise: 10 log10(sum exact^2 / sum e^2); inf when exact"},
    };
    ImGui::TableSetupColumn(kColumns[0].first, ImGuiTableColumnFlags_WidthFixed);
    for (size_t i = 1; i < std::size(kColumns); ++i) ImGui::TableSetupColumn(kColumns[i].first);
    table_headers([&](int c) { return std::string(kColumns[size_t(c)].second); });
    const double largest_ulp = experiment::largest_max_ulp(r);
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
      ImGui::TextUnformatted(experiment::ulps_text(s.max_ulp, largest_ulp).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", s.mean_bits);
      ImGui::TableNextColumn();
      ImGui::Text("%.1f", s.sqnr_db);
    }
    ImGui::EndTable();
  }
  // Wrapped: at 1280x800 the recipe's line would run 48 px past the pane.
  if (const std::string outright = experiment::outright_line(r); !outright.empty())
    wrapped_text_colored({1.0f, 0.45f, 0.4f, 1}, outright);
  wrapped_text(experiment::bounds_line(r));
  if (r.input_report.saturated || r.weight_report.saturated || r.input_report.flushed || r.weight_report.flushed)
    wrapped_text(printf_text(
        "recipe: input %zu out of range (%s), %zu rounded to zero; weight %zu out of range (%s), %zu rounded to zero",
        r.input_report.saturated, r.input_report.out_of_range.c_str(), r.input_report.flushed,
        r.weight_report.saturated, r.weight_report.out_of_range.c_str(), r.weight_report.flushed));
}

void ErrorView::draw_attribution_toggle(const MatmulResult& r) {
  const std::string parts[] = {r.total.name, r.input.name, r.arithmetic.name, r.output.name};
  // The parts the figure on screen plots, the only ones to choose between: the signed-error
  // figure plots the total, the bound figure the arithmetic, the ulp figure two parts, the heat
  // map none as a series ("every part" above them would promise what is not drawn).
  const int tab = figure_view_.chosen();
  const std::vector<std::string> plotted = tab >= 0 && size_t(tab) < figures_.size()
                                               ? figure::error_parts_plotted(figures_[size_t(tab)], parts)
                                               : std::vector<std::string>{};
  auto plots = [&](const std::string& part) {
    return std::find(plotted.begin(), plotted.end(), part) != plotted.end();
  };
  ImGui::AlignTextToFramePadding();  // on the radio buttons' baseline, not 3 px above it
  ImGui::TextUnformatted("show");
  bool changed = false;
  for (int i = 0; i <= 4; ++i) {
    ImGui::SameLine();
    ImGui::BeginDisabled(i == 0 ? plotted.size() < 2 : plotted.size() < 2 || !plots(parts[i - 1]));
    changed |= ImGui::RadioButton(i == 0 ? "every part" : parts[i - 1].c_str(), &attribution_, i);
    ImGui::EndDisabled();
  }
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(
        "where the error came from: rounding the inputs, the products and their accumulation, "
        "rounding the output -- or all of it (total)");
  if (plotted.size() < 4) {
    std::string note = "(this figure plots ";
    if (plotted.empty()) note = "(this figure has no parts to choose between)";
    for (size_t i = 0; i < plotted.size(); ++i) {
      note += (i == 0 ? "the " : " and the ") + plotted[i];
      if (i + 1 == plotted.size()) note += plotted.size() == 1 ? " alone)" : ")";
    }
    ImGui::SameLine();
    ImGui::TextDisabled("%s", note.c_str());
  }
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
    const bool fits = other_run_ && (mode == ExperimentMode::Mlp         ? other_run_->mlp.has_value()
                                     : mode == ExperimentMode::Roundtrip ? other_run_->roundtrip.has_value()
                                     : mode == ExperimentMode::Train     ? other_run_->train.has_value()
                                                                         : other_run_->dot_config.has_value());
    if (!fits) {
      ImGui::TextDisabled(computing ? "computing the first result..." : "no result yet");
      return;
    }
    split_.begin_top("other-kind");
    if (other_run_->mlp) draw_mlp_table(*other_run_->mlp);
    else if (other_run_->roundtrip) draw_cast_table(*other_run_->roundtrip);
    else if (other_run_->train) draw_train_table(*other_run_->train);
    else draw_sweep_table(other_run_->dot_rows);
    split_.begin_bottom();
    figure_view_.draw("figures", other_figures_, std::to_string(run_id_));
    split_.end();
    return;
  }
  if (!run_) {
    ImGui::TextDisabled(computing ? "computing the first result..." : "no result yet");
    return;
  }
  const MatmulResult* shown_result = shown();
  if (!shown_result) {  // no fix ran: the verdict alone
    if (run_->framework) draw_framework();
    return;
  }
  // The verdict, the fixes and the statistics above (scrolling when long); the figures below. In
  // presentation mode the figures keep fewer lines of the large type: 18 of them would leave the
  // fixes table one row at 1280x800.
  split_.begin_top("matrix", 3, presentation_mode() ? 13 : 18);
  if (run_->framework) draw_framework();
  if (run_->raised()) {
    ImGui::Separator();
    ImGui::Text("below: %s", run_->framework->fixes[fix_].code.c_str());
  }
  // In presentation mode the figures get the room; the table is one click away.
  if (!presentation_mode() || ImGui::CollapsingHeader("statistics table")) draw_stats(*shown_result);
  draw_attribution_toggle(*shown_result);
  split_.begin_bottom();
  figure_view_.draw("figures", figures_, std::to_string(run_id_));
  split_.end();
}

}  // namespace pl::ui
