// What a weight's error does to its layer's output, given inputs the layer saw. For a linear
// layer y = x W^T with weight W (out x in) and rows X (tokens x in) of its inputs, a copy q(W)
// costs the output error ||X q(W)^T - X W^T|| -- or, with the inputs in an activation format
// too (W8A8: q_a(X)), ||q_a(X) q(W)^T - X W^T||. Both are computed from the differences, which
// float64 holds exactly:
//   q_a(X) q(W)^T - X W^T = (q_a(X) - X) q(W)^T + X (q(W) - W)^T
// so nothing cancels; the products go through BLAS's dgemm, a run of W's rows at a time (each
// run is a block of the output's columns). A weight's Inf and NaN elements count as zero here,
// as they are left out of the weight's own figures.
//
// An activations file is a safetensors file (scripts/capture_activations.py writes one) whose
// tensor NAME.input holds rows of the inputs of the layer whose weight is NAME.weight, its
// leading dimensions taken as rows.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype/device/cast_policy.h"
#include "core/experiment/scan/candidate.h"
#include "core/io/checkpoint.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct LayerInputs {
  size_t rows = 0, cols = 0;
  std::vector<double> x;   // rows x cols
  std::vector<double> dx;  // q_a(X) - X, rows x cols; empty when the inputs stay as they are
};

// "NAME.input" for a weight "NAME.weight"; nothing for a name that does not end in ".weight".
std::optional<std::string> input_name(std::string_view weight);

// Why `inputs` cannot feed the layer whose weight is `weight` (bad input), or nothing: the
// weight must be a matrix, the inputs float and as wide as its rows.
std::optional<std::string> inputs_mismatch(const io::CheckpointTensor& weight, const io::CheckpointTensor& inputs);

// The inputs read from their file (mapped), and their copy's difference in `format` when one is
// given. Inputs that hold an Inf or a NaN are refused: no output error is defined for them.
Expected<LayerInputs> read_layer_inputs(const io::Checkpoint& file, const io::CheckpointTensor& t,
                                        const std::optional<Candidate>& format, const CastOptions& cast);

// Per run of k rows of W (k x cols, row-major) and its copy q(W): the output's energy
// ||X W^T||^2 over those columns, and the output error's ||q_a(X) q(W)^T - X W^T||^2 (Inf when
// q(W) holds an Inf or a NaN where W is finite). Its buffers are reused between calls.
class OutputError {
 public:
  explicit OutputError(const LayerInputs& in) : in_(in) {}
  double energy(std::span<const double> w, size_t k);
  double error_energy(std::span<const double> w, std::span<const double> q, size_t k);

 private:
  const LayerInputs& in_;
  std::vector<double> d_, kept_, y_, y2_;
};

}  // namespace pl::experiment
