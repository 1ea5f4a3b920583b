// Built with --fmad=false: the one addition of add_to_rows must round as the host's does.
#include "kernels/held_kernels.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/analysis/device/pool_cell.h"
#include "kernels/grid_stride.cuh"

namespace pl::cuda {
namespace {

constexpr int kThreads = kGridStrideThreads;  // the pool kernel too, one thread a cell

// Every conversion here is exact (a narrower float or a 32-bit integer into float64).
template <typename T>
__device__ __forceinline__ double widen(const T* row, size_t c);
template <>
__device__ __forceinline__ double widen<double>(const double* row, size_t c) {
  return row[c];
}
template <>
__device__ __forceinline__ double widen<float>(const float* row, size_t c) {
  return double(row[c]);
}
template <>
__device__ __forceinline__ double widen<__half>(const __half* row, size_t c) {
  return double(__half2float(row[c]));
}
template <>
__device__ __forceinline__ double widen<__nv_bfloat16>(const __nv_bfloat16* row, size_t c) {
  return double(__bfloat162float(row[c]));
}
template <>
__device__ __forceinline__ double widen<int32_t>(const int32_t* row, size_t c) {
  return double(row[c]);
}

template <typename T>
__global__ void PL_GRID_STRIDE_BOUNDS widen_kernel(const T* __restrict__ src, size_t m, size_t n, size_t ld,
                                                   double* __restrict__ dst) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (ld == n) {  // unpadded rows (the usual case): no division an element
    for (size_t e = first; e < m * n; e += stride) dst[e] = widen<T>(src, e);
    return;
  }
  for (size_t e = first; e < m * n; e += stride) dst[e] = widen<T>(src + (e / n) * ld, e % n);
}

__global__ void PL_GRID_STRIDE_BOUNDS scatter_kernel(const size_t* __restrict__ index,
                                                     const double* __restrict__ values, size_t count,
                                                     double* __restrict__ dst) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < count; t += stride) dst[index[t]] = values[t];
}

__global__ void PL_GRID_STRIDE_BOUNDS add_rows_kernel(const double* __restrict__ x, const double* __restrict__ row,
                                                      size_t count, size_t n, double* __restrict__ y) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    y[i] = __dadd_rn(x[i], row[i % n]);
}

__global__ void PL_GRID_STRIDE_BOUNDS epilogue_kernel(double* __restrict__ v, size_t m, size_t n,
                                                      const double* __restrict__ fa, const double* __restrict__ fb,
                                                      bool scaled, const double* __restrict__ bias,
                                                      experiment::EpilogueParams p) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < m * n; e += stride) {
    const size_t i = e / n, j = e % n;
    v[e] = experiment::epilogue_element(p, v[e], scaled, scaled ? fa[i] * fb[j] : 1.0, bias ? bias + j : nullptr, e);
  }
}

// One thread a cell: core's own cell function, in the host's order.
__global__ void pool_kernel(const double* __restrict__ a, const double* __restrict__ b, size_t rows, size_t cols,
                            experiment::PoolShape shape, double* __restrict__ out) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t cell = size_t(blockIdx.x) * blockDim.x + threadIdx.x; cell < shape.rows * shape.cols; cell += stride)
    out[cell] = experiment::pooled_cell(a, b, rows, cols, shape, cell);
}

}  // namespace

cudaError_t launch_widen_to_f64(const void* src, WideFrom from, size_t m, size_t n, size_t ld, double* dst,
                                int sm_count, cudaStream_t s) {
  const int g = grid_stride_blocks(m * n, sm_count);
  switch (from) {
    case WideFrom::F64: widen_kernel<<<g, kThreads, 0, s>>>(static_cast<const double*>(src), m, n, ld, dst); break;
    case WideFrom::F32: widen_kernel<<<g, kThreads, 0, s>>>(static_cast<const float*>(src), m, n, ld, dst); break;
    case WideFrom::F16: widen_kernel<<<g, kThreads, 0, s>>>(static_cast<const __half*>(src), m, n, ld, dst); break;
    case WideFrom::BF16:
      widen_kernel<<<g, kThreads, 0, s>>>(static_cast<const __nv_bfloat16*>(src), m, n, ld, dst);
      break;
    case WideFrom::I32: widen_kernel<<<g, kThreads, 0, s>>>(static_cast<const int32_t*>(src), m, n, ld, dst); break;
  }
  return cudaGetLastError();
}

cudaError_t launch_scatter(const size_t* index, const double* values, size_t count, double* dst, int sm_count,
                           cudaStream_t s) {
  scatter_kernel<<<grid_stride_blocks(count, sm_count), kThreads, 0, s>>>(index, values, count, dst);
  return cudaGetLastError();
}

cudaError_t launch_add_to_rows(const double* x, const double* row, size_t count, size_t n, double* y, int sm_count,
                               cudaStream_t s) {
  add_rows_kernel<<<grid_stride_blocks(count, sm_count), kThreads, 0, s>>>(x, row, count, n, y);
  return cudaGetLastError();
}

cudaError_t launch_epilogue(double* values, size_t m, size_t n, const double* fa, const double* fb, bool scaled,
                            const double* bias, const experiment::EpilogueParams& p, int sm_count, cudaStream_t s) {
  epilogue_kernel<<<grid_stride_blocks(m * n, sm_count), kThreads, 0, s>>>(values, m, n, fa, fb, scaled, bias, p);
  return cudaGetLastError();
}

cudaError_t launch_pooled_difference(const double* a, const double* b, size_t rows, size_t cols,
                                     const experiment::PoolShape& shape, double* out, cudaStream_t s) {
  const size_t cells = shape.rows * shape.cols;
  pool_kernel<<<int((cells + kThreads - 1) / kThreads), kThreads, 0, s>>>(a, b, rows, cols, shape, out);
  return cudaGetLastError();
}

}  // namespace pl::cuda
