// Matrix products on one CUDA device, for the CUDA backend: the library model through cuBLASLt
// (lt_plan.h, lt_gemm.h), the emulated models through own kernels (emulated_plan.h,
// emulated_gemm.cuh), and their timing. Host C++; every failure is an error value.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/backend/backend.h"
#include "kernels/device_buffer.h"
#include "kernels/lt_gemm.h"
#include "kernels/lt_plan.h"
#include "kernels/phase_trace.h"

namespace pl::cuda {

// A product left on the device: m x n float64 values.
struct DeviceProduct {
  std::unique_ptr<DeviceBuffer> c;
  std::string method;
  double device_seconds = 0;
};

class ProductEngine {
 public:
  using PackedPair = std::pair<NoInitVector<uint8_t>, NoInitVector<uint8_t>>;  // input, weight bytes

  ProductEngine(int device, int compute_capability, int sm_count)
      : device_(device), compute_capability_(compute_capability), sm_count_(sm_count) {}

  Support supports(const ProductSpec& s) const;
  Expected<ProductRun> run(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                           const ProductControl& control);
  // Whether run_on_device() runs `s`: every model this engine supports, but a library plan whose
  // output the device cannot widen.
  bool keeps_on_device(const ProductSpec& s) const;
  // run(), the result widened to float64 and left on the device (an emulated product's elements
  // that the CPU finishes are written back into it there).
  Expected<DeviceProduct> run_on_device(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                        const ProductControl& control);
  // The float32 GEMM (CUBLAS_COMPUTE_32F_PEDANTIC) of float32 arrays as they are: no float64
  // copies on either side. Returns how it ran.
  Expected<std::string> float32_product(const experiment::GemmShape& s, std::span<const float> a,
                                        std::span<const float> b, std::span<float> c);
  Expected<ProductTiming> time(const ProductSpec& s, std::span<const double> a, std::span<const double> b, int reps,
                               const std::atomic<bool>* cancel);

 private:
  // The library GEMM run, its output where cuBLASLt wrote it (padded rows of plan.out elements).
  struct LibraryOutput {
    LtPlan plan;
    LtShape padded;
    std::unique_ptr<DeviceBuffer> d = std::make_unique<DeviceBuffer>();
    std::string method;
    double device_seconds = 0;
  };
  Expected<LibraryOutput> library_gemm(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                       const ProductControl& control, PhaseTrace& trace);
  Expected<ProductRun> library_product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                       const ProductControl& control);
  Expected<ProductRun> emulated_product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                        const ProductControl& control);
  Expected<DeviceProduct> emulated_on_device(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                             const ProductControl& control);
  // An emulated product's sums on the device (float32, or float64 for the float64 model) and the
  // elements the host must recompute (EmulatedAdd's `bad`: inexact products, sums out of range).
  struct EmulatedOutput {
    std::unique_ptr<DeviceBuffer> c = std::make_unique<DeviceBuffer>(), redo = std::make_unique<DeviceBuffer>();
    bool f64 = false;
    std::vector<size_t> again;
    std::string method;
    double device_seconds = 0;
  };
  Expected<EmulatedOutput> emulated_sums(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                         const ProductControl& control);
  static std::vector<double> recompute(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                       const std::vector<size_t>& again);
  Status ensure_lt();
  // Whether a product can start: supported, operands of the shape's sizes, the device selected.
  Status ready(const ProductSpec& s, std::span<const double> a, std::span<const double> b) const;

  // Operands kept on the device between timing calls with the same host arrays (the live
  // sampler times the same product again and again; packing 8192^2 values takes seconds).
  // Rotating copies, so a product that fits in L2 is not timed from a warm cache.
  struct Resident {
    std::string key;
    std::vector<std::unique_ptr<DeviceBuffer>> a, b;
    DeviceBuffer d, redo;
    bool warm = false;  // timed before: later calls need no warm-up
  };
  Expected<Resident*> resident(const std::string& key, const std::function<Expected<PackedPair>()>& pack,
                               size_t d_bytes, size_t redo_bytes);

  // The library product's operands as packed for the device, kept for the owners a call named
  // (ProductControl::a_owner, b_owner) while they live: one pair, the last.
  struct KeptOperands {
    std::weak_ptr<const void> a_owner, b_owner;
    std::string key;  // the plan and padded shape they were packed for
    DeviceBuffer a, b;
  };

  int device_;
  int compute_capability_;
  int sm_count_;
  std::unique_ptr<KeptOperands> kept_;
  std::unique_ptr<LtGemm> lt_;  // created at the first library product
  std::vector<std::unique_ptr<Resident>> resident_;
};

}  // namespace pl::cuda
