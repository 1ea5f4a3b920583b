// The backend interface: what a compute device can do for Precision Lab.
// The CPU backend is the reference; every other backend (kernels/ for CUDA)
// is checked against it. A backend that cannot do something says so, with
// the reason, instead of failing.
//
// Implemented operations (this grows with the experiment engine):
//  [x] device information
//  [x] float32 array round trip through any float format (fake quantisation)
//  [x] timing of that round trip against a plain copy on the same device
//  [x] float64 array round trip through any format but e8m0 (the cast experiment's elements)
//  [x] matrix products under an accumulation model (product.h); float32 GEMMs of float32 arrays
//  [x] error statistics and histograms of compared arrays (core/analysis/error_stats.h)
//  [x] an experiment's arrays held where the backend computes (held_values.h): the product, its
//      epilogue and output rounding, the statistics and the heat map over held arrays
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/analysis/error_stats.h"
#include "core/backend/backend_choice.h"
#include "core/backend/held_values.h"
#include "core/backend/product.h"
#include "core/dtype/device/cast_policy.h"
#include "core/dtype/device/float_format.h"
#include "core/util/expected.h"

namespace pl {

namespace experiment {
struct OutputSteps;       // output_steps.h
struct PooledDifference;  // pooled_difference.h
}  // namespace experiment

struct DeviceInfo {
  std::string backend;             // "cpu", "cuda"
  std::string name;                // "AMD EPYC ...", "NVIDIA H100 80GB HBM3"
  std::string compute_capability;  // CUDA only, e.g. "9.0"
  int cores = 0;                   // CPU threads or CUDA SMs
  double memory_gib = 0;
  std::string runtime;       // driver / runtime versions, OpenBLAS core, ...
  std::string peak_part;     // its entry in the published peak table ("H100 SXM5"); "" when none
  std::string peak_note;     // why there is none (unknown part, other SM count, a CPU)
  int sm_clock_mhz = 0;      // CUDA: the peak SM and memory clocks the device reports (0: unknown,
  int memory_clock_mhz = 0;  // or a CPU); the peak table's rates assume their own boost clock
};

struct Support {
  bool ok;
  std::string why_not;  // empty when ok
};

// Throughput of an array round trip, with a plain copy timed in the same run on the same device.
struct ConvertTiming {
  size_t elements;
  double convert_seconds;  // median
  double copy_seconds;     // median
  double convert_gbps;     // (bytes read + bytes written) / time
  double copy_gbps;
  int repetitions;
  std::string method;  // how it was timed
};

// Fills the rates from per-repetition times (medians), for every backend alike.
ConvertTiming make_convert_timing(size_t elements, std::vector<double> convert_seconds,
                                  std::vector<double> copy_seconds, std::string method);

// A product whose result the backend holds (on its device, or on the host for the CPU).
struct HeldRun {
  Held c;  // m x n, row-major, every value in the model's result dtype
  std::string method;
  double device_seconds = 0;
};

// Cacc (the sums after the epilogue) and C (Cacc rounded to the output dtype): output_steps.h.
struct HeldOutput {
  Held accumulated, result;
};

// experiment::Comparison over held arrays.
struct HeldComparison {
  Held result, reference;
  experiment::ErrorHistograms* histograms = nullptr;
  const experiment::BoundInputs* bound = nullptr;  // with `bound_check`: the arithmetic error's check
  experiment::BoundCheck* bound_check = nullptr;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual DeviceInfo device_info() const = 0;
  virtual Support supports_roundtrip(const FloatFormat& f, const CastOptions& o) const = 0;
  // Host arrays in and out; element i uses stochastic index i.
  virtual Status roundtrip_f32(const FloatFormat& f, const CastOptions& o, const float* in, float* out, size_t n) = 0;
  virtual Expected<ConvertTiming> time_roundtrip_f32(const FloatFormat& f, const CastOptions& o, size_t n,
                                                     int repetitions) = 0;
  // Float64 values (a host array) rounded into a format and read back, in place, element i
  // drawing stochastic index i: round_each's contract (codec.h), the cast experiment's elements.
  virtual Status roundtrip_f64(const FloatFormat& f, const CastOptions& o, std::span<double> values) = 0;
  // Whether this backend runs the product (and, when not, why); a product it cannot run is
  // an error value from product(), never a wrong answer.
  virtual Support supports_product(const ProductSpec& s) const = 0;
  // a: m x k, b: n x k, row-major, values of s.a / s.b. Safe to call from any one thread at
  // a time per backend object (the shared backends below serialise their callers).
  virtual Expected<ProductRun> product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                       const ProductControl& control) = 0;
  // The product alone, `repetitions` times after warm-up, on the device's own clock (CUDA
  // events; steady_clock on the CPU). For throughput: operands a backend uploads may stay
  // resident between calls with the same host arrays.
  // c (m x n) = a (m x k) b^T (b: n x k) on float32 operands that are float32 already, with
  // float32 arithmetic and no TF32 or reduced-precision reductions: the bound check's |A||B|.
  // Returns how it ran. The default widens the operands to float64 for product() and narrows
  // the result (exact both ways: two float64 copies of the operands and one of the result); the
  // CPU runs sgemm on the floats, a GPU uploads and downloads them as they are.
  virtual Expected<std::string> product_f32(const experiment::GemmShape& s, std::span<const float> a,
                                            std::span<const float> b, std::span<float> c);
  virtual Expected<ProductTiming> time_product(const ProductSpec& s, std::span<const double> a,
                                               std::span<const double> b, int repetitions,
                                               const std::atomic<bool>* cancel) = 0;
  // experiment::error_stats() over host arrays, its passes over the elements made on this
  // device: the CPU's own by default; a GPU reads the arrays on the device and sends back only
  // sums, counts and the few elements a percentile or a histogram edge needs. Counts, extremes,
  // histograms and percentiles equal the CPU's; sums may differ in the last bits (another
  // order). An error value when the device cannot: the caller then runs the CPU's.
  virtual Expected<std::vector<experiment::ErrorStats>> error_stats(std::span<const experiment::Comparison> cs,
                                                                    DType output, double rel_floor);

  // The holder id (held_values.h) of the arrays this backend keeps in its device's memory; 0 when
  // it keeps them on the host (the CPU).
  virtual uint64_t holder() const { return 0; }
  // An experiment's arrays held where this backend computes (held_values.h,
  // docs/device-residency.md). Each default runs on the host, reading host() of whatever it is
  // given: the CPU backend's implementation, and a device's for what it does not do itself. A
  // device reads its own arrays where they are and uploads anything else.
  //
  // product(), the result held. Default: product()'s vector.
  virtual Expected<HeldRun> product_held(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                         const ProductControl& control);
  // The epilogue and the output rounding of a product's sums (output_steps.h). Without an
  // epilogue, `accumulated` is `sums` itself.
  virtual Expected<HeldOutput> finish_output(const experiment::OutputSteps& steps, Held sums);
  // x (rows x row.size()) with `row` added to each of its rows, in float64 (the references'
  // bias): a new array.
  virtual Expected<Held> add_to_rows(const Held& x, std::span<const double> row);
  // error_stats() over held arrays. Default: error_stats() over their host() values.
  virtual Expected<std::vector<experiment::ErrorStats>> error_stats_held(std::span<const HeldComparison> cs,
                                                                         DType output, double rel_floor);
  // experiment::pooled_difference of two held rows x cols arrays (the heat map).
  virtual Expected<experiment::PooledDifference> pooled_difference(const Held& a, const Held& b, size_t rows,
                                                                   size_t cols, size_t limit);
};

using BackendFactory = std::function<Expected<std::unique_ptr<Backend>>()>;

// The registry of backends. The CPU is always present; the app registers CUDA when it was built.
// Only a device is registered (not Auto, which is a rule for picking one).
void register_backend(BackendChoice device, BackendFactory factory);
// Removes a backend and the shared instance opened from it (and Auto's, which may be it):
// a stand-in device in a test leaves nothing behind for the next.
void unregister_backend(BackendChoice device);
std::vector<BackendChoice> registered_backends();

struct OpenedBackend {
  std::unique_ptr<Backend> backend;
  std::string note;  // Auto fell back to the CPU, and why; empty otherwise
};
// Auto picks CUDA when it opens (a GPU and driver are there), else the CPU, and says why.
Expected<OpenedBackend> open_backend(BackendChoice choice);

// One open backend per choice for the whole process, so a device's context, handles and
// per-shape algorithm choices live across runs; Auto resolves as open_backend does. The
// returned lock serialises use of the backend (the window and the command line share them).
struct SharedBackend {
  std::shared_ptr<Backend> backend;
  std::shared_ptr<std::mutex> mutex;  // hold it while calling into the backend
  std::string note;                   // Auto fell back, and why
};
Expected<SharedBackend> shared_backend(BackendChoice choice);
// The chosen backend when it is a device (not the CPU) that can run `s`; nothing when the CPU
// itself was chosen (Cpu, or Auto without a GPU); an error saying why a device that was asked
// for cannot ("cuda unavailable: ...", "cuda cannot run ..."). Callers run the product on the
// CPU in the last two cases.
Expected<std::optional<SharedBackend>> device_for(BackendChoice choice, const ProductSpec& s);

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace pl
