// The Experiment panel's other ops beside the matrix product: a small MLP (error through its
// layers), a dot sweep (error of dot products against their length) and a cast (an array through
// a dtype and its scaling recipe and back). The panel's one setup -- dtypes, accumulation,
// rounding, recipes, data, seed, backend -- becomes their experiment file, so each runs through
// experiment_file's one door exactly as `precision-lab run` runs the file it exports.
#pragma once

#include <atomic>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/spec/experiment_file.h"
#include "core/experiment/spec/matmul_json.h"

namespace pl::ui {

enum class ExperimentMode { Matrix, Mlp, DotSweep, Roundtrip, Train };

// The kinds the panel runs, in the op combo's order: each named as its experiment file names it
// ("linear", "matmul", "mlp", "dot", "roundtrip"), so the combo, the files and `run` agree.
struct PanelKind {
  std::string_view name;  // the combo entry and the file's "experiment"
  ExperimentMode mode;
  experiment::MatmulOp op;  // the product the matrix kinds run (the others' layers are linear)
  std::string_view what;    // a line of the combo's tooltip
};
std::span<const PanelKind> panel_kinds();
std::string panel_kind_names();  // "linear, matmul, mlp, dot, roundtrip"

struct OtherKindParams {
  int layers = 8;
  experiment::Activation activation = experiment::Activation::ReLU;
  std::string lengths = "16,64,256,1024,4096";  // the dot sweep's lengths, as typed
  int trials = 64;
  // The training run's own setup (its data are its own: samples x features, drawn from the seed).
  std::string train_models = "float32,bfloat16,bfloat16:float32";  // compute[:master], as `train --models` takes
  size_t features = 16, samples = 256;
  int steps = 400;
  double learning_rate = 0.05, noise = 0.01;
};

// The experiment file for `mode` (Mlp: batch m, width k; Sweep: input and weight dtypes as the
// dot product's a and b, every model in `models`; Cast: the input file's tensor, or m rows of k
// values drawn, through the input dtype and its recipe; Train: the params' models and sizes, the
// setup's seed), or what is wrong with the setup.
Expected<nlohmann::json> other_kind_file(ExperimentMode mode, const experiment::MatmulSpec& s,
                                         const std::vector<experiment::Accumulation>& models, const OtherKindParams& p);

// Reads an mlp, dot, cast or train file back into the panel's setup (for --setup and the remembered one).
Expected<ExperimentMode> read_other_kind(const nlohmann::json& j, experiment::MatmulSpec* s,
                                         std::vector<experiment::Accumulation>* models, OtherKindParams* p);

// Runs an mlp, dot or cast file on the panel's worker. A sweep's work estimate (timed here on a
// sample) goes to `on_estimate` before the sweep starts; a sweep past kInteractiveSeconds starts
// only when the user asked for this run (`asked`: the Run button), never on the automatic re-run
// after an edit -- then the error starts with kNotStarted and names the estimate.
inline constexpr std::string_view kNotStarted = "not started: ";
Expected<experiment::ExperimentRun> run_other_kind(const nlohmann::json& file, bool asked,
                                                   const std::function<void(const std::string&)>& on_estimate,
                                                   const std::function<void(double)>& progress,
                                                   const std::atomic<bool>* cancel);

// The result tables: per layer, per length and model, the cast's statistics, or per training run.
void draw_mlp_table(const experiment::MlpResult& r);
void draw_train_table(const experiment::TrainResult& r);
void draw_sweep_table(const std::vector<experiment::DotSweepRow>& rows);
void draw_cast_table(const experiment::RoundtripResult& r);
// A one-line account for the status line and the log.
std::string other_kind_summary(const experiment::ExperimentRun& run);

}  // namespace pl::ui
