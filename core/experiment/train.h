// Training in low precision: a linear regression fitted by gradient descent in each format's
// own arithmetic. Every product, sum and update is rounded to the format (nearest-even), as a
// framework computing in that dtype rounds each operation; with master weights, the forward and
// backward passes compute in the low format and the update is applied to weights kept in the
// master format (mixed-precision training). The figure of merit: the loss per step, and how
// many weight updates were lost: w - update rounded back to w (the update under about half the
// spacing next to w in the direction it moves; exactly half can be lost to a tie).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl::experiment {

// A training run's arithmetic: compute in `compute`, keep the weights in `master` (the same
// format when there are no master weights).
struct TrainModel {
  DType compute = DType::float32;
  DType master = DType::float32;
};
// "bfloat16" (weights and arithmetic in bfloat16) or "bfloat16:float32" (bfloat16 arithmetic,
// float32 master weights); the error names the part that is not a float dtype of float64
// precision or less.
Expected<TrainModel> parse_train_model(std::string_view text);
std::string train_model_name(const TrainModel& m);  // the spelling parse_train_model reads
// A comma-separated list of models ("float32,bfloat16:float32"), as `train --models` and the
// Experiment panel take it; the error names the first that does not read.
Expected<std::vector<TrainModel>> parse_train_models(std::string_view list);

struct TrainConfig {
  std::vector<TrainModel> models;
  size_t features = 16;  // d: weights to fit
  size_t samples = 256;  // n: rows of X
  size_t steps = 400;
  double learning_rate = 0.05;
  double noise = 0.01;  // the targets' noise sd: the best loss reachable is about noise^2
  uint64_t seed = 0;
};
// An error saying why the config cannot run.
Status check(const TrainConfig& c);

struct TrainRow {
  TrainModel model;
  std::vector<double> loss;          // mean squared residual of the stored weights, before each step and after the last
  std::vector<size_t> lost_updates;  // per step: weights whose nonzero update left them unchanged
  std::optional<size_t> stalled_at;  // the first step whose every nonzero update was lost
  double final_loss = 0;
};

// Where a row's training diverged: the step after which its loss was first not finite (a
// learning rate too large for the format), counted as stalled_at is, or none. Its table read
// "-nan" and "stalled at never".
std::optional<size_t> diverged_at(const TrainRow& row);
// The row's final loss for a table: "%.4g", or "nan" / "inf" where it diverged.
std::string final_loss_text(const TrainRow& row);
// Where the row's training stopped learning: "diverged at step N", "converged by step N" (every
// update lost from then on, the loss within 0.1% of `best_loss`: float32 ends at 1.00000002 times
// it), "stalled at step N" (every update lost short of the best) or "never".
std::string stall_text(const TrainRow& row, double best_loss);

struct TrainResult {
  TrainConfig config;
  double best_loss = 0;  // the exact least-squares loss of the data (float64 normal equations)
  std::vector<TrainRow> rows;
};

// Runs every model on the same data: X (samples x features) and w* drawn N(0,1) from `seed`,
// y = X w* + N(0, noise^2), X and y stored in each model's compute format. `cancel` stops
// between steps ("cancelled").
Expected<TrainResult> run_train(const TrainConfig& c, const std::function<void(double)>& progress = {},
                                const std::atomic<bool>* cancel = nullptr);

}  // namespace pl::experiment
