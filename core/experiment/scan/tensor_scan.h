// One tensor of a checkpoint under every candidate format, in two streamed passes over its
// bytes: the tensor's own statistics (and the amax per-tensor scales need), then every candidate
// on each run of rows as it is decoded. A large tensor is never whole in memory: it is read a
// run of whole rows at a time (per-channel and block scales stay inside a row; per-tensor and
// NVFP4's tensor scale take the first pass's amax), so the codec's bits are the cast
// experiment's. Sums are taken in fixed blocks and added in order: the figures do not depend
// on the thread count.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/dtype/device/cast_policy.h"
#include "core/experiment/scan/candidate.h"
#include "core/experiment/scan/layer_inputs.h"
#include "core/experiment/scan/tensor_place.h"
#include "core/io/checkpoint.h"
#include "core/util/expected.h"

namespace pl::experiment {

// The tensor's own figures, over its finite elements.
struct TensorStats {
  double amax = 0;           // largest |x|
  double rms = 0;            // sqrt(mean x^2)
  double amax_over_rms = 0;  // how far the largest element stands out (0 for a zero tensor)
  double kurtosis = 0;       // m4 / m2^2 about the mean (3 for a normal distribution; 0 when m2 is 0)
  // The largest row (output channel) amax over the median row amax: outlier channels show here
  // (1 for a single row or an all-zero tensor).
  double channel_spread = 1;
  size_t nonfinite = 0;  // Inf and NaN elements, left out of every figure
};

// What the candidate does to the layer's output, when the scan was given the layer's inputs X
// (layer_inputs.h): Y = X W^T, and Y_q = X q(W)^T, or q_a(X) q(W)^T with the inputs in a format.
struct OutputScore {
  double error_energy = 0;  // ||Y_q - Y||^2 (Inf when it holds an Inf or NaN)
  double normwise = 0;      // ||Y_q - Y|| / ||Y||
  double sqnr_db = 0;       // 20 log10(||Y|| / ||Y_q - Y||)
};

// What the candidate does to the tensor: x the tensor, q(x) the candidate's dequantised copy.
struct CandidateScore {
  std::string candidate;
  double bits_per_param = 0;
  double error_energy = 0;  // ||q(x) - x||^2 (Inf when q(x) holds an Inf or NaN where x is finite)
  double normwise = 0;      // ||q(x) - x|| / ||x||
  double sqnr_db = 0;       // 20 log10(||x|| / ||q(x) - x||); Inf when q(x) = x
  double max_abs = 0;       // max |q(x) - x|
  double max_rel = 0;       // max |q(x) - x| / |x| over x != 0
  size_t saturated = 0;     // past the dtype's range (quantise's count)
  size_t flushed = 0;       // nonzero elements that became zero
  OutputScore output;       // with the layer's inputs only
};

struct TensorScan {
  std::string name;
  std::vector<size_t> shape;
  std::string stored;  // "BF16"
  std::string file;    // the file it was read from (a shard of a sharded checkpoint)
  size_t params = 0;
  TensorPlace place;
  TensorStats stats;
  double energy = 0;                   // ||x||^2
  size_t input_rows = 0;               // rows of the layer's inputs the output error used; 0: none
  double output_energy = 0;            // ||X W^T||^2, with the inputs
  std::vector<CandidateScore> scores;  // one per candidate, in the candidates' order
};

struct TensorScanOptions {
  CastOptions cast;                         // the rounding mode (scaled recipes saturate)
  const RoundArray* device = nullptr;       // rounds float elements on a device (on_device.h)
  size_t chunk_elements = size_t{1} << 20;  // a run of rows holds about this many elements
  const LayerInputs* inputs = nullptr;      // the layer's inputs: the output error is scored too
  // Candidates fused_scores.h takes are scored in its one pass over cache-sized blocks (the same
  // bits); false sends every candidate the tally has not scored through quantise().
  bool fused = true;
  // bfloat16 weights: candidates code_tally.h takes are scored from a count of the stored codes
  // (the same copies; the error energy summed pair by pair); false leaves them to the other paths.
  bool tally = true;
};

// `progress(bytes)`: how far the two passes are, in bytes of the tensor (half each). Stops with
// "cancelled" when `cancel` is raised between runs of rows; `device_error` gets a device's
// failure (the CPU then rounded those elements), `on_device` is set when the device rounded any.
Expected<TensorScan> scan_tensor(const io::MappedFile& shard, const io::CheckpointTensor& t,
                                 const std::vector<Candidate>& candidates, const TensorScanOptions& o,
                                 const std::function<void(uint64_t)>& progress, const std::atomic<bool>* cancel,
                                 std::string& device_error, bool& on_device);

// The elements of a row of a tensor seen as a matrix, its leading dimensions by its last (1 for a
// 0-d tensor; a last dimension of 0 counts as 1, so that rows = params / cols stays defined).
size_t matrix_cols(const std::vector<size_t>& shape);

// 10 log10(energy / error_energy): Inf for no error, -Inf for an infinite one.
double sqnr_db(double energy, double error_energy);
// The candidate's normwise errors and SQNRs from its error energies and the tensor's energies
// (the weight's, and the output's when the scan had the layer's inputs).
void finish_score(CandidateScore& c, double energy, double output_energy);

}  // namespace pl::experiment
