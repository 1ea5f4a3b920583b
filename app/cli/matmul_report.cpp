#include "app/cli/matmul_report.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "app/cli/stderr_filter.h"
#include "core/experiment/matmul_files.h"
#include "core/io/json_text.h"
#include "core/util/interrupt.h"

namespace pl::cli {

using namespace experiment;

ProgressBar::ProgressBar(bool quiet) : shown_(!quiet && stderr_is_terminal()) {}
ProgressBar::~ProgressBar() {
  if (shown_) std::fprintf(stderr, "\r%45s\r", "");
}
std::function<void(double)> ProgressBar::callback() const {
  if (!shown_) return {};
  return [](double f) {
    const int width = 30, filled = static_cast<int>(std::clamp(f, 0.0, 1.0) * width);
    std::fprintf(stderr, "\r[%.*s%*s] %5.1f%%", filled, "==============================", width - filled, "", 100 * f);
  };
}

Expected<SpecRun> run_spec_with_progress(const MatmulSpec& spec, bool quiet) {
  const ProgressBar bar(quiet);
  return run_spec(spec, bar.callback(), interrupt_flag());  // Ctrl-C stops the run between its stages
}

// The framework's answer and, when it raises, each fix's experiment in one line.
void print_framework_report(const FrameworkRun& f, bool json) {
  if (json) {
    std::cout << to_json(f).dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return;
  }
  std::printf(
      "%s: %s\n  raises %s: %s\n  rule: %s\n\nthe fixes, each run as an experiment against the same float64 "
      "reference:\n",
      f.engine.c_str(), f.call.c_str(), f.as_written.error_type.c_str(), f.as_written.message.c_str(),
      f.as_written.rule.c_str());
  // The fix column as wide as its longest code (TensorFlow's two casts take 56 characters), so
  // every row's numbers sit under their headers.
  int width = 28;
  for (const auto& x : f.fixes) width = std::max(width, static_cast<int>(x.code.size()));
  std::printf("  %-*s %-10s %11s %11s %9s %9s %9s\n", width, "fix", "computes", "max rel", "normwise", "mean bits",
              "SQNR dB", "seconds");
  for (const auto& x : f.fixes) {
    if (!x.result) {
      std::printf("  %-*s %s\n", width, x.code.c_str(), x.note.c_str());
      continue;
    }
    const auto& s = x.result->total.stats;
    std::printf("  %-*s %-10s %11.3e %11.3e %9.2f %9.1f %9.3f\n", width, x.code.c_str(),
                short_name(*x.outcome.result).c_str(), s.max_rel, s.normwise_rel, s.mean_bits, s.sqnr_db,
                x.result->seconds.total());
  }
}

void print_report(const MatmulResult& r) {
  const MatmulConfig& c = r.config;
  const bool lin = c.op == MatmulOp::Linear;
  std::printf("%s: %s (%zu x %zu) %s  x  %s (%zu x %zu) %s%s -> %s\n", std::string(matmul_op_name(c.op)).c_str(),
              lin ? "x" : "A", c.m, c.k, r.input_report.recipe.c_str(), lin ? "W^T, W" : "B", lin ? c.n : c.k,
              lin ? c.k : c.n, r.weight_report.recipe.c_str(),
              c.bias ? (" + bias " + std::string(name(*c.bias))).c_str() : "", std::string(name(c.output)).c_str());
  std::printf("arithmetic: %s\n", r.product_method.c_str());
  if (r.product_device_seconds)
    std::printf("on:         %s, %.3f ms on the device\n", r.product_backend.c_str(), *r.product_device_seconds * 1e3);
  if (!r.backend_note.empty()) std::printf("note:       %s\n", r.backend_note.c_str());
  if (r.analysis_backend != "cpu" && !r.analysis_backend.empty())
    std::printf("statistics: made on %s; |A||B|: %s\n", r.analysis_backend.c_str(), r.bound_method.c_str());
  // The reference is of the operands before any rounding; the casts' rounding and overflow are the
  // operands', the bias's and the output's, said on a line of their own. Integer operands always
  // round to nearest, ties to even, and clamp to their range.
  std::printf("reference:  %s (of the operands before rounding)\n", r.reference_method.c_str());
  const bool int_in = !is_float(c.input), int_w = !is_float(c.weight);
  const std::string how = std::string(rounding_name(c.cast.rounding)) +
                          (c.cast.rounding == Rounding::Stochastic ? " (seed " + std::to_string(c.seed) + ")" : "") +
                          ", overflow " + overflow_name(c.cast.overflow);
  if (int_in && int_w)
    std::printf("casts:      integer operands to nearest, ties to even, clamped; %s rounded %s\n\n",
                c.bias ? "bias and output" : "output", how.c_str());
  else
    std::printf("casts:      %s%s and output rounded %s%s\n\n", int_in || int_w ? "the float operand" : "operands",
                c.bias ? ", bias" : "", how.c_str(),
                int_in || int_w ? "; the integer operand to nearest, ties to even, clamped" : "");
  std::printf("%-16s %11s %11s %11s %11s %9s %9s %9s\n", "error", "max |e|", "mean |e|", "max rel", "normwise",
              "max ulp", "mean bits", "SQNR dB");
  const double largest_ulp = experiment::largest_max_ulp(r);
  for (const ErrorComponent* e : {&r.total, &r.input, &r.arithmetic, &r.output}) {
    const ErrorStats& s = e->stats;
    if (s.count == 0) {  // every element NaN or Inf (the outright line counts them): no error to show
      std::printf("%-16s %11s %11s %11s %11s %9s %9s %9s\n", e->name.c_str(), "-", "-", "-", "-", "-", "-", "-");
      continue;
    }
    std::printf("%-16s %11.3e %11.3e %11.3e %11.3e %9s %9.2f %9.1f\n", e->name.c_str(), s.max_abs, s.mean_abs,
                s.max_rel, s.normwise_rel, ulps_text(s.max_ulp, largest_ulp).c_str(), s.mean_bits, s.sqnr_db);
  }
  if (const std::string outright = experiment::outright_line(r); !outright.empty())
    std::printf("%s\n", outright.c_str());
  std::printf("\n%s\n", experiment::bounds_line(r).c_str());
  for (const auto& [label, o] : {std::pair{"input", &r.input_report}, std::pair{"weight", &r.weight_report}})
    if (o->saturated || o->flushed)
      std::printf("%s: %zu values past the dtype's range (%s), %zu nonzero values rounded to zero by the recipe\n",
                  label, o->saturated, o->out_of_range.c_str(), o->flushed);
  std::printf("seconds: generate %.3f, quantise %.3f, reference %.3f, product %.3f, analysis %.3f, total %.3f\n",
              r.seconds.generate, r.seconds.quantise, r.seconds.reference, r.seconds.product, r.seconds.analysis,
              r.seconds.total());
}

}  // namespace pl::cli
