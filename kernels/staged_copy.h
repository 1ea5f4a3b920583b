// Host <-> device copies of large arrays through two pinned (page-locked) chunks, the host side
// of each chunk copied on every core while the other chunk is in flight. A copy from or to
// ordinary (pageable) memory makes the driver stage it through its own small pinned buffer one
// piece at a time; on an H100 machine a 64 MB download took 35-74 ms that way
// (cuda_trace.txt) -- 1-2 GB/s on a link that carries tens. PL_CUDA_PAGEABLE=1 turns this path
// off, so that one run can time both (PL_CUDA_TRACE's upload and download phases;
// docs/features.md has an H100's times).
//
// Ordered with the legacy default stream, where the kernels run: the copies' own stream is a
// blocking one, so a download waits for the kernel that wrote its data and a kernel launched
// after an upload reads what was uploaded. Without pinned memory (allocation refused) the copies
// fall back to plain cudaMemcpy.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace pl::cuda {

// `bytes` from host `src` to device `dst`, returned when the device holds them.
cudaError_t copy_to_device(void* dst, const void* src, size_t bytes);
// `bytes` from device `src` to host `dst`, returned when the host holds them.
cudaError_t copy_to_host(void* dst, const void* src, size_t bytes);

}  // namespace pl::cuda
