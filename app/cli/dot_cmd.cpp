// precision-lab dot [--k 16,256,4096] [--a-dtype T] [--b-dtype T] [--accumulate M,M,...]
//                   [--trials N] [--seed S] [--sum] [--backend auto|cpu|cuda] [--json] [--save DIR]
// Error of K-long dot products versus K, per accumulation model, against the double-double
// reference, with each model's deterministic bound and probabilistic estimate beside it.

#include <cstdint>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "app/cli/matmul_report.h"
#include "app/cli/run_report.h"
#include "app/cli/stderr_filter.h"
#include "core/accumulate/accumulation_spec.h"
#include "core/analysis/histogram.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/figure/experiment_figures.h"
#include "core/io/json_text.h"
#include "core/util/comma_items.h"
#include "core/util/interrupt.h"

namespace pl::cli {
namespace {

using experiment::DotSweepConfig;
using experiment::DotSweepRow;

struct DotArgs {
  std::string lengths = "16,256,4096";
  std::string a_dtype = "bfloat16", b_dtype = "bfloat16";
  std::string models = "f64,f32:sequential,f32:pairwise:32,f32:kahan,f16:sequential,f16:chunked:128";
  int64_t trials = 64;  // (wide: a count past int's range is refused by its range, not a conversion)
  uint64_t seed = 0;
  bool json = false, sum = false, force = false;
  std::string save;
  BackendChoice backend = BackendChoice::Cpu;
};

}  // namespace

Runner add_dot(CLI::App& app) {
  auto args = std::make_shared<DotArgs>();
  app.add_option("--k", args->lengths, "Comma-separated dot-product lengths");
  app.add_option("--a-dtype", args->a_dtype,
                 "dtype of a (inputs are N(0,1) rounded to it): a table name or a custom format (e5m7)");
  const CLI::Option* b_dtype = app.add_option("--b-dtype", args->b_dtype, "dtype of b");
  app.add_flag("--sum", args->sum, "sum reductions of a instead of dot products (every b_k is 1)");
  app.add_option("--accumulate", args->models,
                 "Comma-separated models: " + experiment::accumulation_grammar(/*with_int32=*/false) +
                     ". chunked sums N products in FMT, then in float32; multiterm is a tensor core's block adder");
  app.add_option("--trials", args->trials, "Dot products per length and model (1 to 1000000)");
  app.add_option("--seed", args->seed, "Seed of the input draws");
  add_backend_option(app, &args->backend,
                     "where the dot products run (default cpu; auto: cuda when there); a model the device cannot "
                     "run runs on the CPU, and the table says why");
  app.add_flag("--json", args->json, "Machine-readable output");
  app.add_option("--save", args->save,
                 "Write the error-versus-K figure (PNG, SVG, PDF, CSV) into this folder (whole or not at all; an "
                 "existing folder must be empty)");
  app.add_flag("--force", args->force,
               "replace a non-empty --save folder as a whole, and run a sweep estimated past 10 minutes");
  return [args, b_dtype]() {
    // A sum reduction has no b: its b_k are 1, whatever dtype was named.
    if (args->sum && b_dtype->count() > 0) {
      std::fprintf(stderr, "error: --b-dtype is for dot products: --sum adds a's elements alone (every b_k is 1)\n");
      return kExitBadInput;
    }
    DotSweepConfig c;
    if (args->trials < 1 || args->trials > experiment::kMaxTrials) {
      std::fprintf(stderr, "error: --trials %lld: must be from 1 to %d\n", static_cast<long long>(args->trials),
                   experiment::kMaxTrials);
      return kExitBadInput;
    }
    c.trials = static_cast<int>(args->trials);
    c.sum = args->sum;
    c.seed = args->seed;
    c.backend = args->backend;
    auto lengths = experiment::parse_lengths(args->lengths);
    if (!lengths) {
      std::fprintf(stderr, "error: --k %s\n", lengths.error().c_str());
      return kExitBadInput;
    }
    c.lengths = *lengths;
    for (auto [text, out] : {std::pair{&args->a_dtype, &c.a_dtype}, std::pair{&args->b_dtype, &c.b_dtype}}) {
      auto t = parse_dtype(*text);
      if (!t) {
        std::fprintf(stderr, "error: %s\n", t.error().c_str());
        return kExitBadInput;
      }
      *out = *t;
    }
    const auto models = comma_items(args->models, "model");
    if (!models) {
      std::fprintf(stderr, "error: --accumulate '%s': %s\n", args->models.c_str(), models.error().c_str());
      return kExitBadInput;
    }
    for (const auto& m : *models) {
      auto a = experiment::parse_accumulation(m);
      if (!a) {
        std::fprintf(stderr, "error: %s\n", a.error().c_str());
        return kExitBadInput;
      }
      c.models.push_back(*a);
    }
    if (auto st = experiment::check(c); !st) {
      std::fprintf(stderr, "error: %s\n", st.error().c_str());
      return kExitBadInput;
    }
    if (const int st = !args->save.empty() ? output_problem(args->save, args->force) : 0) return st;
    if (const auto w = experiment::estimate_dot_sweep(c); w.seconds > experiment::kInteractiveSeconds && !args->force) {
      std::fprintf(stderr,
                   "error: this sweep is %s; give --force to run it anyway, or fewer trials or shorter lengths\n",
                   experiment::work_text(w).c_str());
      return kExitBadInput;
    }
    const bool tty = stderr_is_terminal() && !args->json;
    const auto rows = experiment::dot_sweep(
        c,
        [tty](double f) {
          if (tty) std::fprintf(stderr, "\r%5.1f%%", 100 * f);
        },
        interrupt_flag());
    if (tty) std::fprintf(stderr, "\r      \r");
    if (interrupt_signal()) return 128 + interrupt_signal();
    if (!args->save.empty())
      if (const int status = write_output(
              args->save, args->force,
              [&](const std::string& dir) { return save_figures({figure::dot_sweep_figure(rows, c)}, dir); });
          status != kExitOk)
        return status;
    if (args->json) {
      nlohmann::json out{{"a_dtype", name(c.a_dtype)},
                         {"b_dtype", name(c.b_dtype)},
                         {"sum", c.sum},
                         {"trials", c.trials},
                         {"seed", c.seed},
                         {"backend", backend_choice_name(c.backend)},
                         {"rows", nlohmann::json::array()}};
      for (const auto& r : rows) out["rows"].push_back(experiment::to_json(r));
      std::cout << out.dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
      return kExitOk;
    }
    const std::string what =
        c.sum ? "sums of " + std::string(name(c.a_dtype))
              : "dot products of " + std::string(name(c.a_dtype)) + " x " + std::string(name(c.b_dtype));
    std::printf(
        "%s, N(0,1) inputs, %d trials per cell, seed %llu;\n"
        "error against a double-double reference; e and bounds relative to %s\n\n",
        what.c_str(), c.trials, static_cast<unsigned long long>(c.seed),
        c.sum ? "S|a| = sum |a_k|" : "S|ab| = sum |a_k b_k|");
    print_dot_table(rows, c.sum);
    return kExitOk;
  };
}

}  // namespace pl::cli
