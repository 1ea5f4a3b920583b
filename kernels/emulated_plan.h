// Which emulated accumulation models the GPU runs (emulated_gemm.cuh), decided from the spec
// alone -- host code, tested without a GPU. Sequential and chunked sums in float32 or in a
// float format of at most 22 bits of precision, rounded to nearest even, of operands whose
// products are exact float32 numbers (at most 24 bits of precision between them); and the
// float64 loop. Everything else (pairwise, Kahan, directed and stochastic rounding, wide
// operands) is refused with the reason, and the CPU runs it.
#pragma once

#include "core/backend/product.h"
#include "core/util/expected.h"
#include "kernels/emulated_gemm.cuh"

namespace pl::cuda {

Expected<EmulatedModel> plan_emulated_product(const ProductSpec& s);

}  // namespace pl::cuda
