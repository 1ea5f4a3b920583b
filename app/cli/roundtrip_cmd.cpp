// precision-lab roundtrip --dtype T [--scaling R] [--rounding MODE] [--overflow POLICY]
//   [--data DIST] [--rows R --cols C] [--input FILE.npy|FILE.safetensors:NAME] [--seed S]
//   [--backend cpu|cuda|auto] [--save DIR] [--json]
// The cast experiment: an array through a dtype (and scaling recipe) and back, against the
// original float64 values.
#include <iostream>
#include <vector>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "app/cli/matmul_report.h"
#include "app/cli/run_report.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/roundtrip.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/figure/experiment_figures.h"
#include "core/io/json_text.h"
#include "core/io/load.h"
#include "core/quantise/data_source.h"
#include "core/quantise/scaling.h"
#include "core/util/interrupt.h"

namespace pl::cli {
namespace {
struct RoundtripArgs {
  std::string dtype = "float8_e4m3fn", scaling = "none", rounding = "rne", overflow = "default", data = "normal", input,
              save;
  BackendChoice backend = BackendChoice::Cpu;
  size_t rows = 256, cols = 1024;
  uint64_t seed = 0;
  bool json = false, force = false;
};

int bad(const std::string& why) {
  std::fprintf(stderr, "error: %s\n", why.c_str());
  return kExitBadInput;
}
}  // namespace

Runner add_roundtrip(CLI::App& app) {
  auto a = std::make_shared<RoundtripArgs>();
  app.add_option("--dtype", a->dtype,
                 "the dtype of the round trip: a table name or a custom format eXmY[bB][:fn|:fnuz|:finite]");
  app.add_option("--scaling", a->scaling,
                 "RECIPE[:BLOCK]: " + experiment::scaling_names() + " (group:G: G elements a group, 128 unless given)");
  add_rounding_option(app, &a->rounding, "the rounding of the elements (an integer dtype's: to nearest, ties to even)");
  app.add_option("--overflow", a->overflow, overflow_names(" | "));
  // For drawn values only: given with --input they would be ignored, so they are refused (the
  // data's distribution also draws a delayed recipe's amax history, so it is kept for that).
  CLI::Option* data = app.add_option("--data", a->data, experiment::distribution_names());
  const std::vector<CLI::Option*> shape{
      app.add_option("--rows", a->rows, "rows (channels, for per-channel recipes)"),
      app.add_option("--cols", a->cols, "values per row (MX / NVFP4 blocks run along rows)")};
  app.add_option(
      "--input", a->input,
      "a tensor from FILE.npy or FILE.safetensors:NAME[@R0:R1,C0:C1], as rows of its last dimension (1-D: one row)");
  CLI::Option* seed_option = app.add_option("--seed", a->seed, "seed");
  add_backend_option(app, &a->backend,
                     "where the elements are rounded (default cpu; scales, counts and statistics are the CPU's); "
                     "what the device cannot round, the CPU does, with a note");
  app.add_option("--save", a->save,
                 "write the figures (PNG, SVG, PDF, CSV), result.json and setup.json into this folder (whole or "
                 "not at all; an existing folder must be empty)");
  app.add_flag("--force", a->force, "replace a non-empty --save folder as a whole");
  app.add_flag("--json", a->json, "machine-readable results");
  return [a, data, shape, seed_option]() {
    if (!a->input.empty()) {
      for (const CLI::Option* o : shape)
        if (o->count() > 0) return bad(o->get_name() + " is for drawn values: with --input the shape is the tensor's");
      if (data->count() > 0 && a->scaling != "delayed")
        return bad(
            "--data is for drawn values (and a delayed recipe's history): with --input the values are the tensor's");
    }
    experiment::RoundtripConfig c;
    auto t = parse_dtype(a->dtype);
    if (!t) return bad(t.error());
    c.dtype = *t;
    auto s = experiment::parse_scaling_spec(a->scaling);
    if (!s) return bad("--scaling " + a->scaling + ": " + s.error());
    c.scaling = *s;
    if (!parse_rounding(a->rounding.c_str(), &c.cast.rounding)) return bad("unknown rounding '" + a->rounding + "'");
    // (The window keeps one rounding for every dtype and says an integer's is nearest-even; asked
    // for on the command line, another would be ignored and printed as if used, so cast's refusal.)
    if (!is_float(c.dtype) && c.cast.rounding != Rounding::NearestEven)
      return bad("--rounding " + a->rounding + " is for float dtypes: " + a->dtype +
                 "'s values round to nearest, ties to even");
    if (!parse_overflow(a->overflow.c_str(), &c.cast.overflow))
      return bad("unknown overflow policy '" + a->overflow + "'");
    auto d = experiment::parse_distribution(a->data);
    if (!d) return bad("unknown distribution '" + a->data + "'");
    c.data.distribution = *d;
    c.rows = a->rows;
    c.cols = a->cols;
    c.seed = a->seed;
    c.backend = a->backend;
    if (!a->input.empty() && seed_option->count() > 0 && !experiment::seed_read_with_file(c))
      return bad(
          "--seed is for drawn values, --rounding stochastic and a delayed recipe's history: with --input and "
          "none of the others it changes nothing");
    if (!a->save.empty())
      if (const int st = output_problem(a->save, a->force, {io::tensor_file(a->input)})) return st;
    auto r = experiment::run_roundtrip({c, a->input}, {}, interrupt_flag());
    if (interrupt_signal()) return 128 + interrupt_signal();
    if (!r && r.environment_failure()) {  // (a device lost: the machine's failure, not the input's)
      std::fprintf(stderr, "error: %s\n", r.error().c_str());
      return kExitFailed;
    }
    if (!r) return bad(r.error());
    const nlohmann::json j = experiment::to_json(*r);
    if (!a->save.empty())
      if (const int status = write_output(a->save, a->force,
                                          [&](const std::string& dir) {
                                            auto saved = save_figures(figure::roundtrip_figures(*r), dir);
                                            if (saved) saved = save_json(dir, "result.json", j);
                                            // The setup too, as matmul's, mlp's and train's --save write
                                            // theirs: `run DIR/setup.json` repeats the round trip.
                                            if (saved)
                                              saved = save_json(
                                                  dir, "setup.json",
                                                  experiment::to_json(experiment::RoundtripSpec{c, a->input}));
                                            return saved;
                                          });
          status != kExitOk)
        return status;
    if (a->json) {
      std::cout << j.dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
      return kExitOk;
    }
    const auto& st = r->stats;
    std::printf("round trip through %s (%s, %s), %zu x %zu %s values\n", std::string(name(c.dtype)).c_str(),
                a->scaling.c_str(), a->rounding.c_str(), r->config.rows, r->config.cols,
                a->input.empty() ? a->data.c_str() : "loaded");
    // The statistics are over the elements whose original and round trip are both finite: where
    // none is (an input of NaNs), zeros read as an exact round trip.
    const size_t values = r->config.rows * r->config.cols;
    if (st.count == 0)
      std::printf("no element to compare: of the %zu values, none is finite with a finite round trip\n", values);
    else
      // (Which values the figures cover comes first: it holds for every one of them.)
      std::printf("%smax |e| %.3e  mean |e| %.3e  max rel %.3e  mean rel %.3e  normwise %.3e  SQNR %.1f dB\n",
                  st.count < values ? ("over " + std::to_string(st.count) + " of " + std::to_string(values) +
                                       " values (the others or their round trips are not finite): ")
                                          .c_str()
                                    : "",
                  st.max_abs, st.mean_abs, st.max_rel, st.mean_rel, st.normwise_rel, st.sqnr_db);
    std::printf("out of range %zu (%s), rounded to zero %zu, NaN %zu, Inf %zu\n", r->saturated, r->out_of_range.c_str(),
                r->flushed, st.nan, st.inf);
    print_cast_place(*r);
    return kExitOk;
  };
}

}  // namespace pl::cli
