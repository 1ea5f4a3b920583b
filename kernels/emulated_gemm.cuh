// Emulated accumulation on the GPU, bit for bit the CPU's: the element sums of
// emulated_sum.h (sequential, chunked, pairwise, Kahan) over whole rows, and the float64 loop.
// Plain types only: the backend (host C++) builds the parameters from core's formats.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/emulated_sum.h"

namespace pl::cuda {

// The kernels' square tile (threads per block: kEmulatedTile^2): a launch covers
// ceil(rows / kEmulatedTile) tiles in the grid's y dimension, which CUDA caps at kMaxGridY.
inline constexpr size_t kEmulatedTile = 16;
inline constexpr size_t kMaxGridY = 65535;

// Rows [row0, row1) of C (m x n, row-major) from A (m x k) and B (n x k), device pointers.
// redo (m x n) gets 1 where the host must recompute the element.
cudaError_t launch_emulated_gemm(const float* a, const float* b, size_t m, size_t n, size_t k, size_t row0, size_t row1,
                                 const EmulatedModel& model, float* c, uint8_t* redo, cudaStream_t stream);

// The float64 model: s = s + a*b in order, in float64 hardware (no fused multiply-add), as the
// CPU's loop compiled with -ffp-contract=off.
cudaError_t launch_float64_gemm(const double* a, const double* b, size_t m, size_t n, size_t k, size_t row0,
                                size_t row1, double* c, cudaStream_t stream);

}  // namespace pl::cuda
