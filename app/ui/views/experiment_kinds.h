// The Experiment panel's other ops beside the matrix product: a small MLP (error through its
// layers), a K sweep (error of dot products against their length) and a cast (an array through
// a dtype and its scaling recipe and back). The panel's one setup -- dtypes, accumulation,
// rounding, recipes, data, seed, backend -- becomes their experiment file, so each runs through
// experiment_file's one door exactly as `precision-lab run` runs the file it exports.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/spec/experiment_file.h"
#include "core/experiment/spec/matmul_json.h"

namespace pl::ui {

enum class ExperimentMode { Matrix, Mlp, Sweep, Cast };

struct OtherKindParams {
  int layers = 8;
  experiment::Activation activation = experiment::Activation::ReLU;
  std::string lengths = "16,64,256,1024,4096";  // the K sweep's lengths, as typed
  int trials = 64;
};

// The experiment file for `mode` (Mlp: batch m, width k; Sweep: input and weight dtypes as the
// dot product's a and b, every model in `models`; Cast: the input file's tensor, or m rows of k
// values drawn, through the input dtype and its recipe), or what is wrong with the setup.
Expected<nlohmann::json> other_kind_file(ExperimentMode mode, const experiment::MatmulSpec& s,
                                         const std::vector<experiment::Accumulation>& models, const OtherKindParams& p);

// Reads an mlp, dot or cast file back into the panel's setup (for --setup and the remembered one).
Expected<ExperimentMode> read_other_kind(const nlohmann::json& j, experiment::MatmulSpec* s,
                                         std::vector<experiment::Accumulation>* models, OtherKindParams* p);

// The result tables: per layer, per length and model, or the cast's statistics.
void draw_mlp_table(const experiment::MlpResult& r);
void draw_sweep_table(const std::vector<experiment::DotSweepRow>& rows);
void draw_cast_table(const experiment::RoundtripResult& r);
// A one-line account for the status line and the log.
std::string other_kind_summary(const experiment::ExperimentRun& run);

}  // namespace pl::ui
