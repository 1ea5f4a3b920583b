// Array round trip float32 -> format -> float32 on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/dtype/cast_policy.h"
#include "core/dtype/roundtrip_f32.h"

namespace pl::cuda {

// Launches on `stream`; in and out are device pointers. `sm_count` (the device's
// multiprocessors, read once by the caller) sizes the grid.
cudaError_t launch_roundtrip_f32(const float* in, float* out, size_t n,
                                 const RoundtripF32Params& p, Rounding r, int sm_count,
                                 cudaStream_t stream);
cudaError_t launch_fill_pattern(float* out, size_t n, int sm_count, cudaStream_t stream);

}  // namespace pl::cuda
