// Which emulated accumulation models the GPU runs (emulated_gemm.cuh), decided from the spec
// alone -- host code, tested without a GPU. Sequential, chunked, pairwise and Kahan sums in
// float32 or in a float format of at most 22 bits of precision, in every rounding mode
// (stochastic with the CPU's draws, emulated_plan.cpp), of operands whose products are exact
// float32 numbers (at most 24 bits of precision between them); and the float64 loop. Wider
// formats and operands are refused with the reason, and the CPU runs them.
#pragma once

#include "core/backend/product.h"
#include "core/util/expected.h"
#include "kernels/emulated_sum.h"

namespace pl::cuda {

Expected<EmulatedModel> plan_emulated_product(const ProductSpec& s);

// Rows of C a launch of the emulated kernels covers (the product engine reports progress and
// checks for cancel between launches): about a sixteenth of m, a multiple of the kernels'
// tile, and never more tiles than a grid's y dimension holds -- 2^24 rows in sixteen slabs
// would need 65536, one past CUDA's limit, and the launch would fail.
size_t emulated_slab_rows(size_t m);

}  // namespace pl::cuda
