// Matrix products under an accumulation model: C (m x n) = A (m x k) * B^T with B stored
// n x k (both operands run along K, as weights in a linear layer do). Every element is the
// dot product accumulate.h's dot() computes -- the same order of operations and the same
// stochastic stream (element (i, j) starts at stream offset (i * n + j) << 32) -- so a GEMM
// and a single dot product never disagree. Blas models call OpenBLAS instead (whose order
// depends on the shape, see accumulate.h).
#pragma once

#include <atomic>
#include <functional>
#include <span>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct GemmShape {
  size_t m = 0, n = 0, k = 0;
};

// The stochastic stream offset of element (i, j).
inline uint64_t gemm_stream_offset(size_t i, size_t j, size_t n) { return static_cast<uint64_t>(i * n + j) << 32; }

// Errors: a cancelled run ("cancelled"), a float32 BLAS product whose inputs are not float32
// numbers. `progress` gets the fraction of rows done, from the calling thread only.
// stream_base is added to every element's stream offset (ProductSpec::stream_offset).
Expected<std::vector<double>> gemm(const GemmShape& s, std::span<const double> a, std::span<const double> b,
                                   const Accumulation& acc, const std::function<void(double)>& progress = {},
                                   const std::atomic<bool>* cancel = nullptr, uint64_t stream_base = 0);

// The float64 product the way a reference wants it: OpenBLAS dgemm, or (high_precision) the
// double-double dot product of every element, rounded to float64 -- for judging float64
// results themselves. The double-double rows check `cancel` (seconds at 1024^3 on two cores,
// minutes at 4096^3): "cancelled" when it was raised.
Expected<std::vector<double>> reference_gemm(const GemmShape& s, std::span<const double> a, std::span<const double> b,
                                             bool high_precision, const std::atomic<bool>* cancel = nullptr);

}  // namespace pl::experiment
