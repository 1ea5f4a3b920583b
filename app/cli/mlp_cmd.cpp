// precision-lab mlp [--layers L] [--width W] [--batch B] [--activation relu|gelu|identity]
//   [--input-dtype T] [--weight-dtype T] [--bias-dtype T] [--accumulate SPEC] [--output-dtype T]
//   [--rounding MODE] [--input-scaling R] [--weight-scaling R] [--data DIST] [--seed S]
//   [--backend auto|cpu|cuda] [--threads N] [--save DIR] [--json]
// Error through the layers of a small MLP (nn.Linear init) against the float64 network.
#include <iostream>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "app/cli/matmul_report.h"
#include "app/cli/run_report.h"
#include "core/figure/experiment_figures.h"
#include "core/io/json_text.h"
#include "core/util/interrupt.h"

namespace pl::cli {
namespace {
struct MlpArgs {
  int layers = 8;
  size_t width = 256, batch = 64;
  std::string activation = "relu", input = "bfloat16", weight = "bfloat16", bias, output = "bfloat16";
  std::string accumulate = "f32:blas", rounding = "rne", input_scaling = "none", weight_scaling = "none",
              data = "normal", save;
  std::optional<BackendChoice> backend;  // none: the config's default (cpu)
  uint64_t seed = 0;
  uint64_t threads = 0;  // 0: all cores
  bool json = false, force = false;
};

// The MLP the options describe, as an experiment file (`run` reads such files through
// run_experiment_file).
int run_mlp_json(const nlohmann::json& j, const std::string& save, bool force, bool json_out) {
  auto c = experiment::mlp_config_from_json(j);
  if (!c) {
    const std::string why = in_option_terms(c.error(), {{"input", "--input-dtype"},
                                                        {"weight", "--weight-dtype"},
                                                        {"output", "--output-dtype"},
                                                        {"bias", "--bias-dtype"},
                                                        {"input_data", "--data"}});
    std::fprintf(stderr, "error: %s\n", why.c_str());
    return kExitBadInput;
  }
  if (const int st = !save.empty() ? output_problem(save, force) : 0) return st;
  auto r = experiment::run_mlp(*c, {}, interrupt_flag());
  if (interrupt_signal()) return 128 + interrupt_signal();
  if (!r) {
    std::fprintf(stderr, "error: %s\n", r.error().c_str());
    return r.environment_failure() ? kExitFailed : kExitBadInput;
  }
  if (!save.empty())
    if (const int status = write_output(save, force,
                                        [&](const std::string& dir) {
                                          auto saved = save_figures(figure::mlp_figures(*r), dir);
                                          if (saved) saved = save_json(dir, "result.json", experiment::to_json(*r));
                                          if (saved) saved = save_json(dir, "setup.json", experiment::to_json(*c));
                                          return saved;
                                        });
        status != kExitOk)
      return status;
  if (json_out) {
    std::cout << experiment::to_json(*r).dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return kExitOk;
  }
  print_mlp_report(*r);
  return kExitOk;
}

}  // namespace

Runner add_mlp(CLI::App& app) {
  auto a = std::make_shared<MlpArgs>();
  app.add_option("--layers", a->layers, "number of layers");
  app.add_option("--width", a->width, "width of every layer");
  app.add_option("--batch", a->batch, "rows of the input");
  app.add_option("--activation", a->activation, "relu | gelu | identity");
  app.add_option(
      "--input-dtype", a->input,
      "dtype the activations are fed in: a table name or a custom format eXmY[bB][:fn|:fnuz|:finite] (e5m7)");
  app.add_option("--weight-dtype", a->weight, "dtype of the weights");
  app.add_option("--bias-dtype", a->bias,
                 "dtype of the biases (default: the weight dtype; float32 beside integer weights)");
  app.add_option("--accumulate", a->accumulate, "accumulation model, as for matmul");
  app.add_option("--output-dtype", a->output, "dtype of each layer's output");
  add_rounding_option(app, &a->rounding,
                      "rounding of every layer's inputs and outputs (integer ones: to nearest, ties to even)");
  app.add_option("--input-scaling", a->input_scaling, "recipe for the activations");
  app.add_option("--weight-scaling", a->weight_scaling, "recipe for the weights");
  app.add_option("--data", a->data, "distribution of the input");
  app.add_option("--seed", a->seed,
                 "seed of the input, the weights and biases, and --rounding stochastic's draws (each layer "
                 "draws its own)");
  add_backend_option(app, &a->backend,
                     "where every layer's product runs (default cpu); a model the device cannot run falls back "
                     "to the CPU, with a note");
  app.add_option("--threads", a->threads, "CPU threads the run may use, OpenBLAS's included (default 0: all cores)");
  app.add_option("--save", a->save,
                 "write the figures (error-vs-layer, rms-vs-layer), result.json and setup.json into this folder "
                 "(whole or not at all; an existing folder must be empty)");
  app.add_flag("--force", a->force, "replace a non-empty --save folder as a whole");
  app.add_flag("--json", a->json, "machine-readable results");
  return [a]() {
    nlohmann::json j = {{"experiment", "mlp"},
                        {"layers", a->layers},
                        {"width", a->width},
                        {"batch", a->batch},
                        {"activation", a->activation},
                        {"input", a->input},
                        {"weight", a->weight},
                        {"output", a->output},
                        {"accumulate", a->accumulate},
                        {"rounding", a->rounding},
                        {"input_scaling", a->input_scaling},
                        {"weight_scaling", a->weight_scaling},
                        {"input_data", a->data},
                        {"seed", a->seed}};
    if (!a->bias.empty()) j["bias"] = a->bias;
    if (a->backend) j["backend"] = backend_choice_name(*a->backend);
    if (a->threads) j["threads"] = a->threads;  // (0, the default, is not written)
    return run_mlp_json(j, a->save, a->force, a->json);
  };
}

}  // namespace pl::cli
