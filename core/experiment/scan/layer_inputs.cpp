#include "core/experiment/scan/layer_inputs.h"

#include <cmath>
#include <limits>

#include "core/accumulate/blas.h"
#include "core/experiment/scan/tensor_scan.h"
#include "core/quantise/scaling.h"
#include "core/util/printable.h"

namespace pl::experiment {
namespace {

double sum_of_squares(const std::vector<double>& y) {
  double s = 0;
  for (double v : y) s += v * v;
  return std::isfinite(s) ? s : std::numeric_limits<double>::infinity();
}

}  // namespace

std::optional<std::string> input_name(std::string_view weight) {
  constexpr std::string_view kWeight = ".weight";
  if (weight.size() <= kWeight.size() || weight.substr(weight.size() - kWeight.size()) != kWeight) return std::nullopt;
  return std::string(weight.substr(0, weight.size() - kWeight.size())) + ".input";
}

std::optional<std::string> inputs_mismatch(const io::CheckpointTensor& weight, const io::CheckpointTensor& inputs) {
  std::string why = "inputs '";
  why.append(printable(inputs.name)).append("' for '").append(printable(weight.name)).append("'");
  if (weight.shape.size() != 2)
    return why.append(": the weight has ")
        .append(std::to_string(weight.shape.size()))
        .append(" dimensions, and only a linear layer's weight (out x in) has an output error here");
  if (!inputs.is_float()) return why.append(" hold ").append(inputs.stored).append(" integers, not activations");
  if (inputs.params == 0) return why.append(" are empty");
  if (matrix_cols(inputs.shape) != weight.shape[1])
    return why.append(" have rows of ")
        .append(std::to_string(matrix_cols(inputs.shape)))
        .append(" elements, and the layer takes ")
        .append(std::to_string(weight.shape[1]));
  return std::nullopt;
}

Expected<LayerInputs> read_layer_inputs(const io::Checkpoint& file, const io::CheckpointTensor& t,
                                        const std::optional<Candidate>& format, const CastOptions& cast) {
  auto mapped = io::MappedFile::open(file.shards[t.shard]);
  if (!mapped) return Error{mapped.error()};
  LayerInputs in;
  in.cols = matrix_cols(t.shape);
  in.rows = t.params / in.cols;
  if (auto st = io::read_elements(*mapped, t, 0, t.params, in.x); !st) return Error{st.error()};
  size_t nonfinite = 0;
  for (double v : in.x) nonfinite += !std::isfinite(v);
  if (nonfinite)
    return Error{"inputs '" + printable(t.name) + "' hold " + std::to_string(nonfinite) +
                 " Inf or NaN elements: a layer's output error is not defined for them"};
  if (format) {
    const Quantised q = quantise(in.x, in.rows, in.cols, format->dtype, format->scaling, cast);
    const std::span<const double> copy = q.dequantised();
    in.dx.resize(in.x.size());
    for (size_t i = 0; i < in.x.size(); ++i) in.dx[i] = copy[i] - in.x[i];
  }
  return in;
}

double OutputError::energy(std::span<const double> w, size_t k) {
  kept_.resize(w.size());
  for (size_t i = 0; i < w.size(); ++i) kept_[i] = std::isfinite(w[i]) ? w[i] : 0.0;
  y_.resize(in_.rows * k);
  blas::gemm_nt(in_.rows, k, in_.cols, in_.x.data(), kept_.data(), y_.data());
  return sum_of_squares(y_);
}

double OutputError::error_energy(std::span<const double> w, std::span<const double> q, size_t k) {
  d_.resize(w.size());
  kept_.resize(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    const bool finite = std::isfinite(w[i]);
    d_[i] = finite ? q[i] - w[i] : 0.0;
    kept_[i] = finite ? q[i] : 0.0;
  }
  y_.resize(in_.rows * k);
  blas::gemm_nt(in_.rows, k, in_.cols, in_.x.data(), d_.data(), y_.data());  // X (q(W) - W)^T
  if (!in_.dx.empty()) {
    y2_.resize(y_.size());
    blas::gemm_nt(in_.rows, k, in_.cols, in_.dx.data(), kept_.data(), y2_.data());  // (q_a(X) - X) q(W)^T
    for (size_t i = 0; i < y_.size(); ++i) y_[i] += y2_[i];
  }
  return sum_of_squares(y_);
}

}  // namespace pl::experiment
