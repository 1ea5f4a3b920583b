// The matrix experiments: C = A * B (matmul) and y = x * W^T + b (linear), in any input,
// weight, bias, accumulation and output dtypes, with a scaling recipe per operand, against
// a float64 reference -- and the error split by where it came from:
//
//   R    exact product of the original (float64) operands          the reference
//   Rq   exact product of the operands as their dtypes hold them   (after the scaling recipe)
//   Cacc what the arithmetic gives: products, accumulation, scale and bias, in the
//        accumulator's format
//   C    Cacc rounded to the output dtype                          the result
//
//   input error = Rq - R,  arithmetic error = Cacc - Rq,  output error = C - Cacc,
//   total = C - R (the sum of the three).
//
// "Exact" products are OpenBLAS dgemm (relative error ~1e-16, far below any format studied
// here), or the double-double product of every element when float64 itself is studied or
// the config asks for it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/analysis/error_stats.h"
#include "core/analysis/histogram.h"
#include "core/analysis/pooled_difference.h"
#include "core/backend/backend_choice.h"
#include "core/backend/held_values.h"
#include "core/dtype/device/cast_policy.h"
#include "core/dtype/dtype.h"
#include "core/quantise/data_source.h"
#include "core/quantise/scaling.h"
#include "core/util/expected.h"

namespace pl::experiment {

enum class MatmulOp : uint8_t { Matmul, Linear };
std::string_view matmul_op_name(MatmulOp op);  // "matmul", "linear"
struct MatmulConfig;
// "linear m=128 k=512 n=128": the op and its shape, each size named (m x k times k x n).
std::string matmul_shape_text(const MatmulConfig& c);

inline constexpr unsigned kMaxThreads = 4096;       // MatmulConfig::threads' largest value
inline constexpr size_t kMaxDim = size_t{1} << 24;  // m, n and k's largest value

struct MatmulConfig {
  MatmulOp op = MatmulOp::Linear;
  // matmul: A is m x k, B is k x n.  linear: x is m x k (batch x in), W is n x k (out x in).
  // The bias (either op) has n elements.
  size_t m = 256, n = 256, k = 256;
  DType input = DType::bfloat16, weight = DType::bfloat16, output = DType::float32;
  // An operand stored in one dtype and then converted (a fix's x.to(w.dtype)): rounded to
  // `*_via` first, then to `input` / `weight`. Unset: rounded once.
  std::optional<DType> input_via, weight_via;
  std::optional<DType> bias;      // one value per output column; none: no bias
  std::optional<DType> bias_via;  // the bias stored in this dtype first (a fix's bias.to(...))
  Accumulation accumulate{AccumKind::Blas, DType::float32};
  CastOptions cast;  // rounding and overflow of the input, weight, bias and output
  Scaling input_scaling, weight_scaling;
  DataSource input_data, weight_data, bias_data{Distribution::TorchLinear};
  uint64_t seed = 0;
  bool high_precision_reference = false;  // double-double (also on when a dtype is float64)
  unsigned threads = 0;  // CPU threads the run may use (thread_limit.h), at most kMaxThreads; 0: all cores
  // Where the product runs: "cpu", "cuda" or "auto" (core/backend/backend.h). A backend that
  // cannot run it (no GPU, no kernel for the model) hands it to the CPU and says why in the
  // result. The float64 references run there too (cuBLASLt dgemm, cached), and the error
  // statistics' passes over the elements (Backend::error_stats) and the bound check's
  // |A||B| (float32 GEMM), and the product's arrays stay where it ran (held_values.h); quantising
  // runs on the CPU.
  BackendChoice backend = BackendChoice::Cpu;
  bool fast_accumulation = false;  // float8 on tensor cores (CUDA library model only)
};

// An error saying why the config cannot run: shapes, dtypes, recipe, model and memory.
Status check(const MatmulConfig& c);
// The same, less what depends on the operands' and the accumulator's dtypes together (int32
// takes integer products; an emulated model needs exact float64 products). A setup that names
// a framework passes this: its call may raise, and then only the fixes run, each with the
// accumulation its dtypes take, or convert the operands first (framework_check.h).
Status check_setup(const MatmulConfig& c);

// Operands in the experiment's layout (row-major; B already k x n for matmul). Empty vectors
// are drawn from the config's data sources.
struct MatmulOperands {
  std::vector<double> a, b, bias;
};
// Whether the reference is double-double (a float64 dtype anywhere, or asked for) rather
// than OpenBLAS dgemm.
bool double_double_reference(const MatmulConfig& c);

// The dtype an operand's values are in, for the backends (ProductSpec): a group's integers times
// their float16 scale are float32 numbers (up to 19 significant bits), not integers; a GPU kernel
// that took them for int8's 8 bits would round products it thinks exact.
DType product_dtype(DType operand, const Scaling& s);
// The significant bits of an operand's values as the products see them, for whether those are
// exact in the accumulator (a Kahan sum's bound): its product_dtype's, and NVFP4's e4m3 block
// scale's 4 more (the block scales are folded into the values; an e2m1 value times one has up to
// 6). MX's scales are powers of two; per-tensor and per-channel scales wait for the epilogue.
// Nothing for integers.
std::optional<int> significant_bits(DType operand, const Scaling& s);

// Draws every operand the config needs (the data sources, the seed).
MatmulOperands generate_operands(const MatmulConfig& c);

// The seed of one of a run's stochastic-rounding streams, from its seed and cast.seed: the input,
// the weights, the bias and the output each round with a stream of their own (numbered 1 to 5 in
// matmul.cpp; an MLP numbers its layers' from 1000). Were the input and the weights to share
// one, x[i] and W[i] would round up or down together and their product's rounding would be
// biased.
uint64_t run_stream_seed(const MatmulConfig& c, uint64_t stream);

struct ErrorComponent {
  std::string name;  // "total", "input rounding", "arithmetic", "output rounding"
  ErrorStats stats;
  Histogram relative;      // log10 bins of |e| / max(|ref|, floor)
  Histogram signed_error;  // linear bins of e, symmetric about 0
  Histogram ulps;          // log bins (two an octave) of |e| in ulps of the output dtype
};

struct OperandReport {
  std::string recipe;                 // "bfloat16, none", "float8_e4m3fn, per-tensor (amax 4.1)"
  size_t saturated = 0, flushed = 0;  // past the dtype's range; nonzero values that became zero
  std::string out_of_range;           // what the saturated became: "to Inf", "clamped", ...
  // The amax the tensor scale was taken from (this tensor's, or the delayed history's); none where
  // the recipe has no tensor scale.
  std::optional<double> amax;
};

struct StageTimes {
  double generate = 0, quantise = 0, reference = 0, product = 0, analysis = 0;
  // The analysis's parts: |A||B| for the bound check, the four comparisons' statistics,
  // histograms and bound check, and the heat map.
  double abs_product = 0, statistics = 0, heat_map = 0;
  double total() const { return generate + quantise + reference + product + analysis; }
};

struct MatmulResult {
  MatmulConfig config;
  // The full m x n arrays, held where the backend made them (a GPU's memory, or the host):
  // host() reads one back. C, Cacc, and R and Rq (shared with the reference cache,
  // reference_cache.h). Never changed once made.
  Held result, accumulated, reference, rounded_reference;
  // C - R pooled to at most 512 x 512 cells (the heat map), made where the arrays are.
  PooledDifference error_map;
  ErrorComponent total, input, arithmetic, output;
  // The arithmetic error against the accumulation model's bounds: |Cacc - Rq| / (|A||B|)_ij.
  double max_scaled_arithmetic = 0;
  size_t within_deterministic = 0, within_probabilistic = 0, compared = 0;
  ErrorBounds bounds;             // of the model at length k, then epilogue_roundings more (with_roundings_after)
  size_t epilogue_roundings = 0;  // after the sum: the scale's, the bias's (each one more rounding)
  Histogram scaled_arithmetic;  // log10 bins of |Cacc - Rq| / (|A||B|)_ij
  OperandReport input_report, weight_report, bias_report;
  std::string reference_method;       // "OpenBLAS dgemm" or "double-double (Dot2)"
  std::string product_method;         // what ran the product (the backend's own account)
  std::string product_backend;        // "cpu" or "cuda (NVIDIA H100 80GB HBM3)"
  std::string backend_note;           // why the product (or the statistics) did not run where the config asked
  std::string bound_note;             // what the bounds do not cover ("" when nothing): a device library's adder
  std::string analysis_backend;       // where the error statistics were made: "cpu" or "cuda (NVIDIA H100 ...)"
  std::string bound_method;           // how |A||B| for the bound check was made: "OpenBLAS sgemm, ..." or on the device
  // The product alone, timed on the device (CUDA events); none when it ran on the CPU.
  std::optional<double> product_device_seconds;
  StageTimes seconds;
};

// Runs the experiment. `operands` may hold tensors loaded from files (their sizes must match
// the config; they are read, not copied) or be empty to draw them. `progress` gets fractions
// in [0, 1]; `cancel` stops the run (the error says "cancelled").
Expected<MatmulResult> run_matmul(const MatmulConfig& c, const MatmulOperands& operands = {},
                                  const std::function<void(double)>& progress = {},
                                  const std::atomic<bool>* cancel = nullptr);

// The arithmetic error against the model's bounds in one line, as the report and the window
// show it: "arithmetic error / (|A||B|): max 1.4e-07; gamma_K 3.052e-05 (100.0% within); sqrt(K) u
// 1.349e-06 (100.0% within)". Past K u >= 1 there is no gamma_K, and the line says so. A model
// with bounds of its own (pairwise, Kahan, chunked, multi-term) names them as such (bound_names).
std::string bounds_line(const MatmulResult& r);
// The run's bound and estimate as the line and the figure call them: bound_names(), with the
// length the bound is taken at where the epilogue adds roundings ("gamma_{K+1}", "sqrt(K+1) u",
// "(K+1) u >= 1"); `length` is "K" or "K+1".
struct MatmulBoundNames {
  std::string worst, probable, none_when, length;
};
MatmulBoundNames matmul_bound_names(const MatmulResult& r);

// The output's elements the table's statistics leave out or that hit the format's edges, in one
// line, as the report and the window show it: "outright: 0 NaN, 29 overflow to Inf (not in the
// statistics), 0 saturated, 0 rounded to zero". Empty when there are none. (Without it, outputs
// that overflow to Inf would sit unseen under a clean-looking table.)
std::string outright_line(const MatmulResult& r);

// The largest max-ulp of the four parts that have an error to show: the scale of the statistics
// table's max-ulp column, which ulps_text formats every row by.
double largest_max_ulp(const MatmulResult& r);

}  // namespace pl::experiment
