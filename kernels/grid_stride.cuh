// The grid of the element-wise, grid-stride kernels (conversions, widening, epilogue, scatter).
// They are memory-bound: what matters is keeping every multiprocessor full for the whole run.
// The grid is one full wave, as many blocks as the device holds resident, and each kernel
// declares PL_GRID_STRIDE_BOUNDS so that ptxas keeps it within the registers that let all of
// them be resident (32 a thread on a 2048-thread multiprocessor). Without the bound the
// stochastic round trip used 35 registers on sm_90: 6 blocks of the grid's 8 a multiprocessor
// fitted, and the last 2 ran as a second wave at a quarter of the occupancy.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace pl::cuda {

constexpr int kGridStrideThreads = 256;

// Resident blocks of kGridStrideThreads a multiprocessor, at compile time for the register
// bound: 1536 threads on sm_86, sm_89 and sm_120, 2048 on sm_80, sm_90 and sm_100. A wrong
// guess for some other architecture costs speed, never results.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define PL_GRID_STRIDE_BLOCKS_PER_SM 6
#else
#define PL_GRID_STRIDE_BLOCKS_PER_SM 8
#endif
#define PL_GRID_STRIDE_BOUNDS __launch_bounds__(pl::cuda::kGridStrideThreads, PL_GRID_STRIDE_BLOCKS_PER_SM)

// Blocks for `work_items` items on the current device: one item a thread, capped at one full
// wave (the kernels stride over the rest). The cap reads the device's resident threads a
// multiprocessor, a cheap attribute query.
inline int grid_stride_blocks(size_t work_items, int sm_count) {
  int device = 0, threads_per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device) != cudaSuccess ||
      threads_per_sm < kGridStrideThreads)
    threads_per_sm = 2048;  // the launch reports any device error itself
  const size_t blocks = (work_items + kGridStrideThreads - 1) / kGridStrideThreads;
  const size_t cap = size_t(sm_count > 0 ? sm_count : 1) * size_t(threads_per_sm / kGridStrideThreads);
  return int(blocks < cap ? (blocks ? blocks : 1) : cap);
}

}  // namespace pl::cuda
