// precision-lab train [--models M,M,...] [--features D] [--samples N] [--steps S] [--lr R]
//                     [--noise SD] [--seed S] [--json] [--save DIR]
// A linear regression fitted by gradient descent in each format's own arithmetic (MODEL:
// "bfloat16", or "bfloat16:float32" for float32 master weights): loss per step, lost updates.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/cli/matmul_report.h"
#include "app/cli/run_report.h"
#include "core/experiment/spec/train_json.h"
#include "core/figure/train_figures.h"
#include "core/io/json_text.h"
#include "core/util/interrupt.h"

namespace pl::cli {
namespace {

struct TrainArgs {
  std::string models = "float64,float32,float16,bfloat16,bfloat16:float32";
  size_t features = 16, samples = 256, steps = 400;
  double learning_rate = 0.05, noise = 0.01;
  uint64_t seed = 0;
  bool json = false, force = false;
  std::string save;
};

}  // namespace

Runner add_train(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  app.add_option("--models", args->models,
                 "Comma-separated models: a float dtype (weights and arithmetic in it) or COMPUTE:MASTER "
                 "(arithmetic in COMPUTE, weights kept in MASTER: bfloat16:float32)");
  app.add_option("--features", args->features, "Weights to fit (default 16)");
  app.add_option("--samples", args->samples, "Rows of the data (default 256)");
  app.add_option("--steps", args->steps, "Gradient-descent steps (default 400)");
  app.add_option("--lr", args->learning_rate, "Learning rate (default 0.05)");
  app.add_option("--noise", args->noise, "The targets' noise sd (default 0.01)");
  app.add_option("--seed", args->seed, "Seed of the data");
  app.add_flag("--json", args->json, "Machine-readable output (the result.json of a train experiment)");
  app.add_option("--save", args->save,
                 "Write result.json, setup.json and the figures (PNG, SVG, PDF, CSV) into this folder (whole or not "
                 "at all; an existing folder must be empty)");
  app.add_flag("--force", args->force, "replace a non-empty --save folder as a whole");
  return [args]() {
    experiment::TrainConfig c;
    auto models = experiment::parse_train_models(args->models);
    if (!models) {
      std::fprintf(stderr, "error: --models: %s\n", models.error().c_str());
      return kExitBadInput;
    }
    c.models = std::move(models).value();
    c.features = args->features, c.samples = args->samples, c.steps = args->steps;
    c.learning_rate = args->learning_rate, c.noise = args->noise, c.seed = args->seed;
    if (auto st = experiment::check(c); !st) {
      std::fprintf(stderr, "error: %s\n", st.error().c_str());
      return kExitBadInput;
    }
    if (const int st = !args->save.empty() ? output_problem(args->save, args->force) : 0) return st;
    auto r = experiment::run_train(c, {}, interrupt_flag());
    if (interrupt_signal()) return 128 + interrupt_signal();
    if (!r) {
      std::fprintf(stderr, "error: %s\n", r.error().c_str());
      return kExitFailed;
    }
    if (!args->save.empty())
      if (const int status = write_output(args->save, args->force,
                                          [&](const std::string& dir) {
                                            auto saved = save_figures(figure::train_figures(*r), dir);
                                            if (saved) saved = save_json(dir, "result.json", experiment::to_json(*r));
                                            if (saved) saved = save_json(dir, "setup.json", experiment::to_json(c));
                                            return saved;
                                          });
          status != kExitOk)
        return status;
    if (args->json) {
      std::cout << experiment::to_json(*r).dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
      return kExitOk;
    }
    print_train_table(*r);
    return kExitOk;
  };
}

}  // namespace pl::cli
