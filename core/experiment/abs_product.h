// The bound check's (|A||B|)_ij for two quantised operands: |x| of each in float32 (scaled by a
// power of two when the values lie far from 1), their float32 product on the experiment's
// backend (on_device.h's abs_product). Kept for the very operand objects of the last call: a
// re-run whose quantised operands quantised_cache.h handed back gets it again instead of a
// second sgemm (on two cores, a large share of each 2048^3 window update).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "core/accumulate/gemm.h"
#include "core/backend/backend_choice.h"
#include "core/quantise/scaling.h"

namespace pl::experiment {

struct AbsProduct {
  std::unique_ptr<float[]> data;  // m x n row-major: 2^scale (|A||B|)_ij, a little high (float32 sums)
  size_t size = 0;
  int scale = 0;
  std::string method;  // what made it ("OpenBLAS sgemm ...", "cuBLASLt ... on NVIDIA H100 ...")
  std::string note;    // a device that could not, and what did instead (empty: none)
  std::span<const float> values() const { return {data.get(), size}; }
};

// |A||B| of a (m x k) and b (n x k), their dequantised values, on `backend`. `hit` (optional)
// says whether it was kept from the call before (same objects a and b, same backend).
std::shared_ptr<const AbsProduct> abs_product_of(BackendChoice backend, const GemmShape& shape,
                                                 const std::shared_ptr<const Quantised>& a,
                                                 const std::shared_ptr<const Quantised>& b, bool* hit = nullptr);

}  // namespace pl::experiment
