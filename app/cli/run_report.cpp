#include "app/cli/run_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/util/number_text.h"
#include "core/util/printable.h"

namespace pl::cli {
namespace {

// A statistic of `s` as `format` prints it, or "-" where nothing was compared (every result NaN
// or Inf: no error to show, rather than 0).
std::string statistic(const char* format, double v, const experiment::ErrorStats& s) {
  if (s.count == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

void print_cast(const experiment::RoundtripResult& r) {
  const auto& s = r.stats;
  // ("round trip", as `roundtrip` itself and the experiment's kind say it)
  std::printf(
      "round trip through %s (%s): max rel %.3e, normwise %.3e, SQNR %.1f dB, out of range %zu (%s), rounded to "
      "zero %zu\n",
              std::string(name(r.config.dtype)).c_str(), experiment::scaling_spec(r.config.scaling).c_str(), s.max_rel,
              s.normwise_rel, s.sqnr_db, r.saturated, r.out_of_range.c_str(), r.flushed);
  print_cast_place(r);
}

}  // namespace

void print_cast_place(const experiment::RoundtripResult& r) {
  std::printf("rounded on %s\n", r.ran_on.c_str());
  if (!r.backend_note.empty()) std::printf("note: %s\n", r.backend_note.c_str());
}

void print_dot_table(const std::vector<experiment::DotSweepRow>& rows, bool sum) {
  // The models' names and the ulps set their columns' widths (a multi-term model's name, a custom
  // format's short name), and each max ulp names its unit: the ulps of the row's own result dtype,
  // which differ between rows.
  double largest_ulp = 0;
  for (const auto& r : rows)
    if (r.stats.count > 0) largest_ulp = std::max(largest_ulp, r.stats.max_ulp);
  std::vector<std::string> ulps;
  int name_width = 28, ulp_width = 14;
  for (const auto& r : rows) {
    ulps.push_back(r.stats.count == 0 ? "-"
                                      : experiment::ulps_text(r.stats.max_ulp, largest_ulp) + " " +
                                            std::string(short_name(experiment::result_dtype(r.model))));
    name_width = std::max(name_width, static_cast<int>(experiment::describe(r.model).size()));
    ulp_width = std::max(ulp_width, static_cast<int>(ulps.back().size()) + 3);  // (its inner space stands apart)
  }
  std::printf("%8s  %-*s %14s %13s %13s %10s %*s %11s\n", "K", name_width, "accumulation",
              sum ? "max|e|/S|a|" : "max|e|/S|ab|", "bound", "estimate", "mean bits", ulp_width, "max ulp", "NaN/Inf");
  // gamma_m = m u / (1 - m u) exists only while m u < 1 (m = K for a sequential sum): past that the
  // column says "none".
  bool unbounded = false, estimate_is_bound = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    unbounded |= !std::isfinite(r.bounds.deterministic);
    const bool same = experiment::estimate_is_the_bound(r.bounds);
    estimate_is_bound |= same;
    const experiment::ErrorStats& s = r.stats;
    std::printf(
        "%8zu  %-*s %14s %13s %13s %10s %*s %11s\n", r.length, name_width, experiment::describe(r.model).c_str(),
        statistic("%.3e", r.max_scaled, s).c_str(), experiment::gamma_text(r.bounds.deterministic).c_str(),
        same ? "= bound" : experiment::bound_value_text(r.bounds.probabilistic).c_str(),
        statistic("%.2f", s.mean_bits, s).c_str(), ulp_width, ulps[i].c_str(), experiment::not_finite_text(s).c_str());
  }
  for (const std::string& note : experiment::unreferenced_notes(rows)) std::printf("note: %s\n", note.c_str());
  if (estimate_is_bound)
    std::printf("\n= bound: %.*s\n", static_cast<int>(experiment::estimate_is_the_bound_text().size()),
                experiment::estimate_is_the_bound_text().data());
  if (unbounded)
    std::printf(
        "\nnone: the worst-case bound no longer exists at that length: gamma_m = m u / (1 - m u) needs "
        "m u < 1, m being K for a sequential sum and the model's own rounding steps (each with the u it "
        "rounds to) for the others\n");
  std::printf("\n");
  for (const auto& [what, note] : experiment::where_ran(rows)) {
    std::printf("%s\n", what.c_str());
    if (!note.empty()) std::printf("  note: %s\n", note.c_str());
  }
}

void print_mlp_report(const experiment::MlpResult& r) {
  const auto& c = r.config;
  std::printf("MLP: %d layers, width %zu, batch %zu, %s; %s x %s, %s -> %s\n", c.layers, c.layer.k, c.layer.m,
              std::string(experiment::activation_name(c.activation)).c_str(), std::string(name(c.layer.input)).c_str(),
              std::string(name(c.layer.weight)).c_str(), experiment::describe(c.layer.accumulate).c_str(),
              std::string(name(c.layer.output)).c_str());
  std::printf("products: %s on %s\n", r.product_method.c_str(), r.product_backend.c_str());
  if (!r.backend_note.empty()) std::printf("note: %s\n", r.backend_note.c_str());
  std::printf("%6s %14s %14s %14s %12s %12s %12s\n", "layer", "network err", "own err", "own arith", "mean bits",
              "ref RMS", "NaN/Inf");
  for (const auto& l : r.layers)
    std::printf("%6d %14s %14s %14s %12s %12.3e %12s\n", l.layer,
                statistic("%.3e", l.network.normwise_rel, l.network).c_str(),
                statistic("%.3e", l.own.normwise_rel, l.own).c_str(),
                statistic("%.3e", l.own_arithmetic.normwise_rel, l.own_arithmetic).c_str(),
                statistic("%.2f", l.network.mean_bits, l.network).c_str(), l.reference_rms,
                experiment::not_finite_text(l.network).c_str());
  std::printf(
      "(normwise relative errors; network err: against the float64 network; own err: the layer's output "
      "(before the activation) against the exact product of the activations it was fed and its weights, plus its "
      "bias; own arith: the part of "
      "that from the accumulation alone; mean bits: of the network error; ref RMS: the float64 network's "
      "activations)\nseconds: %.3f\n",
      r.seconds);
}

void print_throughput_report(const experiment::ThroughputResult& r) {
  const std::string base(name(r.config.baseline));
  std::printf("%zu^3 products on %s (%s), median of %d interleaved runs\n", r.config.n, r.device.c_str(),
              r.runtime.c_str(), r.config.repetitions);
  const bool sheet = !r.datasheet.empty();
  const experiment::RateUnit unit = experiment::rate_unit(r.gpu);
  std::vector<DType> timed;
  for (const auto& row : r.rows) timed.push_back(row.dtype);
  // ("int8: GOP/s" where an integer dtype ran: its operations are not floating-point ones.)
  std::printf("%-15s %12s %10s", "dtype", experiment::rate_axis_name(unit, timed).c_str(), ("x " + base).c_str());
  if (sheet) std::printf("   %-25s", (r.config.datasheet + " datasheet").c_str());
  std::printf("  how it runs here\n");
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    std::printf("%-15s %12.2f %10.2f", std::string(name(row.dtype)).c_str(), row.gflops * unit.scale, row.speedup);
    if (sheet) {
      const auto& d = r.datasheet[i];
      // The unit in the cell: a bare "T" beside the GFLOP/s column reads as a thousand of them.
      char cell[64] = "no such arithmetic";
      if (d.supported)
        std::snprintf(cell, sizeof cell, "%7.1f %-7s x%-6g", d.tflops, is_integer(row.dtype) ? "TOPS" : "TFLOP/s",
                      d.speedup);
      std::printf("   %-25s", cell);
    }
    std::printf("  %s\n", row.method.c_str());
  }
  if (sheet) std::printf("datasheet: %s\n", r.datasheet_source.c_str());
}

void print_scan_report(const experiment::ScanResult& r, const std::vector<experiment::PlanPoint>& frontier,
                       const std::optional<experiment::PlanReport>& plan) {
  using experiment::sqnr_db_text;
  const std::string left_out = r.skipped.empty() ? "" : " (" + experiment::skipped_summary(r.skipped) + ")";
  std::printf("%s: %zu tensor%s scanned (%s), %zu left out%s; rounded on %s\n", r.checkpoint.c_str(), r.tensors.size(),
              r.tensors.size() == 1 ? "" : "s", bytes_text(r.bytes).c_str(), r.skipped.size(), left_out.c_str(),
              r.ran_on.c_str());
  if (!r.backend_note.empty()) std::printf("note: %s\n", r.backend_note.c_str());
  if (const std::string nonfinite = experiment::nonfinite_text(r); !nonfinite.empty())
    std::printf("note: %s\n", nonfinite.c_str());
  if (by_output(r))
    std::printf("scored by the layers' outputs on %s%s\n", r.activations.c_str(),
                r.activation_format.empty() ? "" : (", inputs in " + r.activation_format).c_str());
  std::printf("\n%s in dB (higher is better; exact: no error) and bits per parameter:\n%-44s",
              by_output(r) ? "Output SQNR" : "SQNR", "tensor");
  for (size_t c = 0; c < r.candidates.size(); ++c) std::printf(" %8s", ("[" + std::to_string(c + 1) + "]").c_str());
  std::printf("\n");
  for (const experiment::TensorScan& t : r.tensors) {
    std::printf("%-44s", printable(t.name, 41).c_str());
    for (const experiment::CandidateScore& c : t.scores)
      std::printf(" %8s",
                  experiment::has_finite_elements(t) ? experiment::sqnr_text(scored_sqnr_db(r, c)).c_str() : "-");
    std::printf("\n");
  }
  for (size_t c = 0; c < r.candidates.size(); ++c) {
    double lo = INFINITY, hi = 0;
    for (const experiment::TensorScan& t : r.tensors)
      lo = std::min(lo, t.scores[c].bits_per_param), hi = std::max(hi, t.scores[c].bits_per_param);
    char bits[64];
    std::snprintf(bits, sizeof bits, lo == hi ? "%.4g bits/param" : "%.4g to %.4g bits/param", lo, hi);
    std::printf("  [%zu] %-30s %s\n", c + 1, r.candidates[c].c_str(), bits);
  }
  const char* sqnr = by_output(r) ? "output SQNR" : "SQNR";
  if (!frontier.empty())
    std::printf("\nfrontier: %zu plan%s from %.4g bits/param (%s %s) to %.4g bits/param (%s %s)\n", frontier.size(),
                frontier.size() == 1 ? "" : "s", frontier.front().bits_per_param, sqnr,
                sqnr_db_text(total_sqnr_db(r, frontier.front().error)).c_str(), frontier.back().bits_per_param, sqnr,
                sqnr_db_text(total_sqnr_db(r, frontier.back().error)).c_str());
  // Under the frontier, the first pooled figure, and so for the plan's below it too.
  if (const std::string dominant = experiment::dominant_energy_text(r); !dominant.empty() && !frontier.empty())
    std::printf("(pooled: %s, and sets these SQNRs)\n", dominant.c_str());
  if (!plan) return;
  std::printf("plan within %.4g bits/param: %.4g bits/param, %s %s over the scanned tensors\n", plan->budget,
              plan->plan.point.bits_per_param, sqnr, sqnr_db_text(total_sqnr_db(r, plan->plan.point.error)).c_str());
  if (const std::string spread = experiment::plan_tensors_text(r, plan->plan.choice); !spread.empty())
    std::printf("(by tensor: %s)\n", spread.c_str());
  if (const std::string far = experiment::plan_optimality_text(plan->plan); !far.empty())
    std::printf("(not proven the least error: %s)\n", far.c_str());
  if (const auto& w = plan->by_weights_alone)
    std::printf("(the plan the weights' own errors choose: %.4g bits/param, output SQNR %s)\n", w->bits_per_param,
                sqnr_db_text(total_sqnr_db(r, w->error)).c_str());
  for (size_t i = 0; i < r.tensors.size(); ++i) {
    const experiment::CandidateScore& c = r.tensors[i].scores[plan->plan.choice[i]];
    std::printf("  %-44s %-28s %s\n", printable(r.tensors[i].name, 41).c_str(), c.candidate.c_str(),
                experiment::has_finite_elements(r.tensors[i]) ? sqnr_db_text(scored_sqnr_db(r, c)).c_str()
                                                              : "not scored (no finite element)");
  }
}

void print_run_summary(const experiment::ExperimentRun& run) {
  if (run.dot_config) print_dot_table(run.dot_rows, run.dot_config->sum);
  else if (run.roundtrip) print_cast(*run.roundtrip);
  else if (run.mlp) print_mlp_report(*run.mlp);
  else if (run.throughput) print_throughput_report(*run.throughput);
  else if (run.train) print_train_table(*run.train);
  else if (run.scan) print_scan_report(run.scan->result, run.scan->plans.frontier, run.scan->plans.plan);
}

void print_train_table(const experiment::TrainResult& r) {
  std::printf("least-squares loss of the data (float64): %.4g\n\n", r.best_loss);
  std::printf("%-22s %12s %12s %17s  %s\n", "model (compute:master)", "final loss", "x best", "lost at the end",
              "learning stopped");
  for (const auto& row : r.rows) {
    const size_t lost = row.lost_updates.empty() ? 0 : row.lost_updates.back();
    char times[32] = "-";  // (a diverged row's loss is no multiple of the best)
    if (std::isfinite(row.final_loss) && r.best_loss > 0)
      std::snprintf(times, sizeof times, "%.3g", row.final_loss / r.best_loss);
    const std::string lost_text = std::to_string(lost) + " of " + std::to_string(r.config.features);
    std::printf("%-22s %12s %12s %17s  %s\n", experiment::train_model_name(row.model).c_str(),
                experiment::final_loss_text(row).c_str(), times, lost_text.c_str(),
                experiment::stall_text(row, r.best_loss).c_str());
  }
}

}  // namespace pl::cli
