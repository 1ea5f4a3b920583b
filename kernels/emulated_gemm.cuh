// Emulated accumulation on the GPU, bit for bit the CPU's (core/experiment/gemm.h): every
// element C[i][j] = sum_k A[i][k] * B[j][k] in order k = 0, 1, ..., each addition rounded
// once to the accumulator's format (round-to-nearest-even), chunked models adding each
// chunk's sum into the outer accumulator as the CPU does. Plain types only: the backend
// (host C++) builds the parameters from core's formats.
//
// Exactness, and where it is handed back: a product must be an exact float32 (inputs of at
// most 12 bits of precision each, no underflow); a float32 accumulator then adds in float32
// hardware, a narrower one rounds TwoSum's exact sum to odd at float32 precision and then to
// its own format (correct for formats of at most 22 bits: Boldo and Melquiond, "When double
// rounding is odd", 2005). An element whose products are not exact, or whose sums leave the
// finite range of a format, is marked in `redo` and the host recomputes it with the CPU's
// general code -- as the CPU's own fast lanes do.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/dtype/roundtrip_f32.h"

namespace pl::cuda {

struct EmulatedAdd {
  bool hardware_f32 = true;      // the accumulator is float32: add in hardware
  RoundtripF32Params format{};   // else: the narrow format (nearest-even parameters)
  float largest = 0;             // its largest finite value
};

struct EmulatedModel {
  bool chunked = false;
  size_t chunk = 0;   // products per chunk (chunked)
  EmulatedAdd inner;  // the accumulator (chunked: within a chunk)
  EmulatedAdd outer;  // chunked: where the chunk sums go
};

// Rows [row0, row1) of C (m x n, row-major) from A (m x k) and B (n x k), device pointers.
// redo (m x n) gets 1 where the host must recompute the element.
cudaError_t launch_emulated_gemm(const float* a, const float* b, size_t m, size_t n, size_t k,
                                 size_t row0, size_t row1, const EmulatedModel& model, float* c,
                                 uint8_t* redo, cudaStream_t stream);

// The float64 model: s = s + a*b in order, in float64 hardware (no fused multiply-add), as the
// CPU's loop compiled with -ffp-contract=off.
cudaError_t launch_float64_gemm(const double* a, const double* b, size_t m, size_t n, size_t k,
                                size_t row0, size_t row1, double* c, cudaStream_t stream);

}  // namespace pl::cuda
