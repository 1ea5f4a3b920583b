// The parts of an experiment that run on its backend's device when it has one, and on the CPU
// when it has none or the device cannot: the float64 reference product (cached by operand
// content), the error statistics' passes and the bound check's |A||B|. Each says where it ran;
// a device failure becomes a line in `note`, never a different answer.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/accumulate/gemm.h"
#include "core/analysis/error_stats.h"
#include "core/backend/backend.h"
#include "core/dtype/dtype.h"
#include "core/experiment/reference_cache.h"
#include "core/quantise/scaling.h"

namespace pl::experiment {

// A float64 reference product of a (m x k) and b (n x k), from the cache when these operands
// were seen before: on `backend`'s device when it has one (cuBLASLt dgemm), else OpenBLAS dgemm
// or, for `high`, the double-double dot products on the CPU. Their rows stop when `cancel` is
// raised: then `values` is null, and nothing is cached. Owners that keep a and b unchanged while
// they live spare hashing them again (owned_operand_hash).
CachedReference reference_product(BackendChoice backend, const GemmShape& shape, std::span<const double> a,
                                  std::span<const double> b, bool high, const std::atomic<bool>* cancel = nullptr,
                                  const std::shared_ptr<const void>& a_owner = nullptr,
                                  const std::shared_ptr<const void>& b_owner = nullptr);

// error_stats() with its passes on `backend`'s device when it is not the CPU and can make them
// (reading the arrays it holds where they are); `where` gets "cpu" or "cuda (device name)", and a
// device's failure is added to `note`. An error value only when an array cannot be read at all
// (a device's download failed).
Expected<std::vector<ErrorStats>> error_stats_on(BackendChoice backend, std::span<const HeldComparison> comparisons,
                                                 DType output, std::string& where, std::string& note);

// (|A||B|)_ij in float32 for the bound check, m x n into `out`, from |A| (m x k) and |B| (n x k)
// in float32: on the device when it has one -- its float32 GEMM without TF32
// (CUBLAS_COMPUTE_32F_PEDANTIC), whose error on sums of nonnegative terms stays within the k u
// the check's slack allows for in any order of summation -- else OpenBLAS sgemm. Returns how.
std::string abs_product(BackendChoice backend, const GemmShape& shape, const float* a, const float* b, float* out,
                        std::string& note);

// Float elements rounded on `backend`'s device (quantise's RoundArray) when it is not the CPU
// and it opens; otherwise no rounder, and `note` says why when a device was asked for ("cuda
// unavailable: ...; the CPU rounded the values"). Calls are serialised on the backend's lock.
class DeviceRounding {
 public:
  explicit DeviceRounding(BackendChoice backend);
  DeviceRounding(const DeviceRounding&) = delete;
  DeviceRounding& operator=(const DeviceRounding&) = delete;

  const RoundArray* rounder() const { return device_ ? &round_ : nullptr; }
  // "cuda (NVIDIA H100 ...)" for the device; "cpu" without one.
  std::string ran_on() const;
  // What quantise() reported when the device could not round (Quantised::device_error): a note.
  std::string failed(const std::string& device_error) const;
  const std::string& note() const { return note_; }

 private:
  std::optional<SharedBackend> device_;
  RoundArray round_;
  std::string note_;
};

}  // namespace pl::experiment
