// Where an experiment's numbers come from: random tensors with the shapes deep-learning
// data has (or, through core/io, tensors loaded from files). Every tensor is drawn row by
// row from its own counter-seeded stream, so a tensor depends only on (seed, tensor id, row)
// -- not on the thread count, and not on which other tensors were drawn.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl::experiment {

enum class Distribution : uint8_t {
  Normal,           // N(0, scale^2)
  Uniform,          // U(-scale, scale)
  TorchLinear,      // PyTorch nn.Linear's default init: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
                    // (kaiming_uniform_ with a = sqrt(5); the distribution, not torch's bits)
  HeavyTailed,      // Student's t with `dof` degrees of freedom, times scale
  OutlierChannels,  // N(0, scale^2), with a fraction of columns (channels) times outlier_gain,
                    // as in LLM activations (Dettmers et al., LLM.int8(), 2022)
};
inline constexpr size_t kDistributionCount = 5;  // numbered 0 .. count - 1

struct DataSource {
  Distribution distribution = Distribution::Normal;
  double scale = 1.0;
  double dof = 3.0;                // HeavyTailed
  double outlier_fraction = 0.01;  // OutlierChannels: share of columns (at least one)
  double outlier_gain = 20.0;      // OutlierChannels
  // Where the data already lives in a narrower float format -- a float32 model's weights are
  // float32 numbers, not the float64 draw they were initialised from -- each draw is rounded
  // to it (nearest-even), so that the experiment's exact reference uses those stored values.
  std::optional<DType> stored_as = std::nullopt;
};

std::string_view distribution_name(Distribution d);  // "normal", "uniform", "torch-linear", ...
// One line on what it draws, for a reader (the window's tooltips).
std::string_view distribution_summary(Distribution d);
std::optional<Distribution> parse_distribution(std::string_view name);
// Every distribution's name in the table's order, joined by `separator`.
std::string distribution_names(std::string_view separator = ", ");
std::string describe(const DataSource& s);  // "normal(scale 1)", "outlier-channels(1% x20)"
// An error saying why the parameters cannot be used.
Status check(const DataSource& s);

// A rows x cols row-major tensor. `tensor_id` separates the tensors of one experiment (input,
// weight, bias, each layer...); fan_in is TorchLinear's fan-in (the weight's column count).
std::vector<double> generate(const DataSource& s, size_t rows, size_t cols, uint64_t seed, uint64_t tensor_id,
                             size_t fan_in = 0);

// A key that differs whenever two sources would draw different numbers (every field above):
// caches of drawn data are keyed by it.
std::string source_key(const DataSource& s);

// The largest finite |x| over `count` tensors drawn from `s` -- rows x cols each, ids first_id,
// first_id + 1, ... -- a delayed-scaling recipe's amax history. Kept for the inputs last asked
// (the window re-runs a setup on every change of a setting, and drawing the 2 x 16 tensors of a
// 1024^2 experiment again would take most of each run). Empty when `cancel` was raised between
// two tensors; `hit` (optional) says whether it was kept from before.
std::optional<double> drawn_amax(const DataSource& s, size_t rows, size_t cols, uint64_t seed, uint64_t first_id,
                                 int count, size_t fan_in = 0, const std::atomic<bool>* cancel = nullptr,
                                 bool* hit = nullptr);

// The columns OutlierChannels scales, for a tensor of `cols` columns (sorted).
std::vector<size_t> outlier_columns(const DataSource& s, size_t cols, uint64_t seed, uint64_t tensor_id);

}  // namespace pl::experiment
