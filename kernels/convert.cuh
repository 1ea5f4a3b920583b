// Array round trips float32 -> format -> float32 and float64 -> format -> float64 on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/device/roundtrip_f32.h"
#include "core/dtype/device/roundtrip_f64.h"

namespace pl::cuda {

// Launches on `stream`; in and out are device pointers. `sm_count` (the device's
// multiprocessors, read once by the caller) sizes the grid.
cudaError_t launch_roundtrip_f32(const float* in, float* out, size_t n, const RoundtripF32Params& p, Rounding r,
                                 int sm_count, cudaStream_t stream);
// In place; element i draws stochastic index i.
cudaError_t launch_roundtrip_f64(double* values, size_t n, const RoundtripF64Params& p, int sm_count,
                                 cudaStream_t stream);
cudaError_t launch_fill_pattern(float* out, size_t n, int sm_count, cudaStream_t stream);

}  // namespace pl::cuda
