#include "kernels/stream_delay.cuh"

#include <cstdint>

namespace pl::cuda {
namespace {

__device__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void stream_delay_kernel(uint64_t nanoseconds) {
  const uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < nanoseconds) {}
}

}  // namespace

cudaError_t launch_stream_delay(cudaStream_t s, unsigned microseconds) {
  stream_delay_kernel<<<1, 1, 0, s>>>(uint64_t{microseconds} * 1000);
  return cudaGetLastError();
}

}  // namespace pl::cuda
