// A kernel that keeps a stream busy for a while before a timed call, so that the call's start
// event is stamped when the GPU reaches it, after the host has enqueued the call behind it.
// Without it, an event recorded on an idle stream is stamped at once and the interval it opens
// includes the host's own time in the library call (cublasLtMatmul's checks and launch): a few
// microseconds, 3-7% of a 0.2 ms product (bf16 4096^3 on an H100), which a bare call timed back
// to back -- PyTorch's loop, nvbench's blocking kernel -- never counts.
#pragma once

#include <cuda_runtime.h>

namespace pl::cuda {

// One thread spins on the GPU's global timer for `microseconds` on stream s.
cudaError_t launch_stream_delay(cudaStream_t s, unsigned microseconds);

}  // namespace pl::cuda
