// How fast the CPU backend computes one dtype's matrix product, sampled again and again for
// the Throughput panel's live chart (and `precision-lab bench --op throughput`).
//
// Each dtype's product is the one run_matmul computes for it, on operands rounded to the
// dtype once, beforehand: float64 and float32 are OpenBLAS dgemm / sgemm; every narrower float
// is *emulated* -- its values rounded, then sgemm, exact because their products fit in float32
// -- and int8 is the wrapping-int32 kernel. So a low-precision rate measures emulation on this
// CPU, not what hardware with native support reaches; every label says which it is.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/backend/backend.h"
#include "core/backend/backend_choice.h"
#include "core/dtype/dtype.h"
#include "core/util/expected.h"
#include "core/util/median.h"
#include "core/util/no_init_vector.h"

namespace pl::experiment {

// One dtype's n x n x n product, ready to be timed.
struct ProductBench {
  DType dtype = DType::float32;
  size_t n = 0;
  Accumulation accumulate;                     // how (product_method) and whether emulated follow from the dtype
  NoInitVector<double> a, b;                   // n x n each, values of the dtype (b stored n x k): quantise()'s
  BackendChoice backend = BackendChoice::Cpu;  // where it is timed: the device asked for, or the CPU when that cannot
  std::string method;                          // what runs there (and why not elsewhere)
  bool emulated = true;                        // the device does not compute in the dtype itself
};

// The accumulation run_matmul uses for a dtype by default: float64 -> f64:blas, int8/uint8 ->
// int32, any other float -> f32:blas. Errors: dtypes the experiment does not take as inputs.
Expected<Accumulation> default_product_accumulation(DType dtype);

// How `dtype`'s product is computed ("sgemm (OpenBLAS, core Zen)", "bfloat16 values in sgemm
// (...; emulation)"), and whether that is emulation -- true unless the library computes in the
// dtype itself. For labels; the dtype must have a default accumulation.
std::string product_method(DType dtype);
// A method as a table beside the device's name shows it: without "OpenBLAS, core Zen" (the
// device line says it), "bfloat16 values in sgemm (emulation)"; other methods as they are.
std::string method_without_library(const std::string& method);
bool product_emulated(DType dtype);

// The largest n a product is timed at on `backend`: 4096 on the CPU (a float64 product of that
// size takes seconds there), 16384 elsewhere.
size_t largest_product_bench(BackendChoice backend);

// Why a product bench of `dtype` at n cannot be prepared for `backend`, if it cannot, with the
// accumulation `with` (else the dtype's default), so that f32:blas over float64 is refused before
// any row is printed.
Status check_product_bench(DType dtype, size_t n, BackendChoice backend,
                           const std::optional<Accumulation>& with = std::nullopt);

// Draws normal operands (seed 0) and rounds them to `dtype`, for a product timed on `backend`
// (n in [1, largest_product_bench(backend)]); times nothing.
Expected<ProductBench> product_bench_operands(DType dtype, size_t n, BackendChoice backend);

// product_bench_operands, then `backend` times the product where it can; a
// dtype the device cannot run is timed on the CPU, and its method says why. Preparing on a
// device runs the product once there (its warm-up).
Expected<ProductBench> prepare_product_bench(DType dtype, size_t n, BackendChoice backend = BackendChoice::Cpu);

// Seconds one product takes: wall clock on the CPU, CUDA events on a GPU (the calling thread
// blocks either way). "cancelled" when `cancel`. On the CPU a product shorter than
// kWarmBeforeSample is run right before it is timed (sample_seconds).
Expected<double> time_product(const ProductBench& b, const std::atomic<bool>* cancel = nullptr);

// One sample from `timed_once`, which runs and times one product: where that product took under
// kWarmBeforeSample, it ran untimed and the sample is a second run's time. OpenBLAS parks its
// threads between calls, and in a round of dtypes the one timed after another kernel paid for
// waking them: float32, timed after int8's dgemm, came out 15-25% slower at n = 256 than
// the same sgemm on bfloat16 values timed right after it. Longer products are timed once.
inline constexpr double kWarmBeforeSample = 0.05;
Expected<double> sample_seconds(const std::function<Expected<double>()>& timed_once);

// 2 n^3 / seconds / 1e9, and back.
double product_gflops(size_t n, double seconds);
double product_seconds(size_t n, double gflops);

// The unit rates are shown in: TFLOP/s for products timed on a GPU (an H100's bfloat16 runs at
// hundreds of thousands of GFLOP/s), GFLOP/s on the CPU. Rates are kept in GFLOP/s; a shown
// value is gflops * scale.
struct RateUnit {
  const char* name;
  double scale;
};
inline RateUnit rate_unit(bool gpu) { return gpu ? RateUnit{"TFLOP/s", 1e-3} : RateUnit{"GFLOP/s", 1.0}; }
// The unit of dtype t's rate: an integer product's 2 n^3 operations are not floating-point ones
// ("GOP/s" for int8, not "GFLOP/s").
std::string rate_unit_name(const RateUnit& u, DType t);
// An axis or column of several dtypes' rates: "GFLOP/s (int8: GOP/s)" when an integer dtype is
// among them.
std::string rate_axis_name(const RateUnit& u, const std::vector<DType>& dtypes);

// Where sample_throughput times the products for `backend`, in words: "AMD EPYC (2 threads,
// OpenBLAS core Zen)", or "NVIDIA H100 80GB HBM3 (cuda; dtypes it cannot run are timed on the
// CPU)"; the CPU when the device does not open. The one place that decides it: the live
// sampler, `bench --op throughput` and the throughput experiment file all ask here.
struct ThroughputDevice {
  std::string name;
  BackendChoice backend = BackendChoice::Cpu;  // the device that opened: Cpu or Cuda
  bool gpu = false;
  DeviceInfo info;  // of the device that opened (its runtime, its peak-table entry)
};
ThroughputDevice throughput_device(BackendChoice backend);

struct ThroughputSample {
  DType dtype;
  double at = 0;  // seconds since sampling started
  double gflops = 0;
};

// Samples per dtype, in the order dtypes were first sampled, with sliding medians. A history may
// keep only each dtype's most recent `kept` samples: the window's live chart draws and sorts
// what it holds several times a second, and at n = 128 a CPU takes 200 samples a second (the
// command line's bench keeps every sample its --seconds take).
class ThroughputHistory {
 public:
  static constexpr size_t kWindowKept = 2000;  // the window's
  explicit ThroughputHistory(size_t kept = SIZE_MAX) : kept_(kept) {}
  size_t kept() const { return kept_; }
  void add(const ThroughputSample& s);
  void clear() { samples_.clear(), trimmed_ = false; }
  bool trimmed() const { return trimmed_; }  // a dtype's earliest samples were let go
  const std::vector<ThroughputSample>& samples() const { return samples_; }
  std::vector<DType> dtypes() const;
  // A table's rows: every dtype in `chosen`, in its order, then those sampled and not chosen
  // (sampled before a restart), in the order first sampled. The rows stand from the start of
  // sampling: a table that grew a row with each dtype's first sample moved what sat under it.
  std::vector<DType> rows(const std::vector<DType>& chosen) const;
  std::vector<ThroughputSample> of(DType t) const;
  size_t count(DType t) const;  // how many samples of `t` (of(t).size(), without the copy)
  // The median of the last `window` samples of `t` ending at each of its samples.
  std::vector<double> sliding_median(DType t, size_t window) const;
  // The median of all of `t`'s samples (0 when none), and its quartiles.
  double median_gflops(DType t) const;
  Quartiles quartiles_gflops(DType t) const;

 private:
  std::vector<ThroughputSample> samples_;
  size_t kept_;
  bool trimmed_ = false;
};

// "57 (50-63)": a median and its quartiles with no more digits than their spread supports --
// two significant digits of the interquartile range ("57.48" beside a spread of 13 claims
// hundredths the samples do not have). `scale` converts GFLOP/s to the unit shown.
std::string spread_text(const Quartiles& q, double scale = 1);

// One dtype's median rate against another's ("131%"), or, where their quartile ranges overlap,
// "spreads overlap": the samples do not tell the two apart (a busy CPU's float8 emulation came
// out at 212% of the float32 sgemm it runs on). One sample each (no spread): the ratio.
std::string ratio_text(const Quartiles& q, const Quartiles& reference);
// Whether two dtypes' samples have spread and their quartile ranges overlap (ratio_text's
// "spreads overlap"; the speed-up figure marks such a bar's value the same way).
bool spreads_overlap(const Quartiles& q, const Quartiles& reference);

// Samples the dtypes round-robin until `stop`: prepares each one's operands once, then times
// one product per dtype in turn and hands each sample to `on_sample` (from the calling
// thread). After every product it sleeps as long as the product took, so a live chart leaves
// half the CPU to the window. Errors: a dtype that cannot be prepared.
Status sample_throughput(const std::vector<DType>& dtypes, size_t n, const std::atomic<bool>& stop,
                         const std::function<void(const ThroughputSample&)>& on_sample,
                         const std::function<void(const std::string&)>& on_status = {},
                         BackendChoice backend = BackendChoice::Cpu,
                         const std::function<void(const ProductBench&)>& on_prepared = {});

}  // namespace pl::experiment
