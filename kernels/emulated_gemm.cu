// Built with --fmad=false; every operation that must round once is an explicit _rn intrinsic
// besides (emulated_sum.h), so no contraction can merge a product into a sum.
#include "kernels/emulated_gemm.cuh"

namespace pl::cuda {
namespace {

constexpr int kTile = int(kEmulatedTile);

// One thread per element, reading its row of A and of B straight from memory: the models whose
// order is not a single pass along k (pairwise, and multi-term, which reads each block twice)
// or that carry more state (Kahan).
__global__ void per_element_kernel(const float* __restrict__ a, const float* __restrict__ b, size_t m, size_t n,
                                   size_t k, size_t row0, EmulatedModel model, float* __restrict__ c,
                                   uint8_t* __restrict__ redo) {
  const size_t i = row0 + size_t(blockIdx.y) * kTile + threadIdx.y;
  const size_t j = size_t(blockIdx.x) * kTile + threadIdx.x;
  if (i >= m || j >= n) return;
  bool bad = false;
  const float v = element_sum(a + i * k, b + j * k, k, model, bad, model.stream_base + stream_offset(i, j, n));
  c[i * n + j] = v;
  redo[i * n + j] = bad ? 1 : 0;
}

// Sequential and chunked sums: tiles of A and B staged in shared memory, every thread still
// adding its own element's products in order k = 0, 1, ...
__global__ void tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, size_t m, size_t n, size_t k,
                             size_t row0, EmulatedModel model, float* __restrict__ c, uint8_t* __restrict__ redo) {
  __shared__ float as[kTile][kTile + 1], bs[kTile][kTile + 1];
  const size_t i = row0 + size_t(blockIdx.y) * kTile + threadIdx.y;
  const size_t j = size_t(blockIdx.x) * kTile + threadIdx.x;
  const size_t b_row = size_t(blockIdx.x) * kTile + threadIdx.y;  // the B row this thread loads
  RunningSum sum(model.stream_base + stream_offset(i, j, n), k);
  bool bad = false;
  for (size_t k0 = 0; k0 < k; k0 += kTile) {
    const size_t kk = k0 + threadIdx.x;
    as[threadIdx.y][threadIdx.x] = (i < m && kk < k) ? a[i * k + kk] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (b_row < n && kk < k) ? b[b_row * k + kk] : 0.0f;
    __syncthreads();
    const size_t len = k - k0 < size_t(kTile) ? k - k0 : size_t(kTile);
    for (size_t t = 0; t < len; ++t) sum.add(exact_product(as[threadIdx.y][t], bs[threadIdx.x][t], bad), model, bad);
    __syncthreads();
  }
  const float result = sum.result(model, bad);
  if (i < m && j < n) {
    c[i * n + j] = result;
    redo[i * n + j] = bad ? 1 : 0;
  }
}

__global__ void float64_kernel(const double* __restrict__ a, const double* __restrict__ b, size_t m, size_t n, size_t k,
                               size_t row0, double* __restrict__ c) {
  __shared__ double as[kTile][kTile + 1], bs[kTile][kTile + 1];
  const size_t i = row0 + size_t(blockIdx.y) * kTile + threadIdx.y;
  const size_t j = size_t(blockIdx.x) * kTile + threadIdx.x;
  const size_t b_row = size_t(blockIdx.x) * kTile + threadIdx.y;
  double s = 0.0;
  for (size_t k0 = 0; k0 < k; k0 += kTile) {
    const size_t kk = k0 + threadIdx.x;
    as[threadIdx.y][threadIdx.x] = (i < m && kk < k) ? a[i * k + kk] : 0.0;
    bs[threadIdx.y][threadIdx.x] = (b_row < n && kk < k) ? b[b_row * k + kk] : 0.0;
    __syncthreads();
    const size_t len = k - k0 < size_t(kTile) ? k - k0 : size_t(kTile);
    for (size_t t = 0; t < len; ++t) s = __dadd_rn(s, __dmul_rn(as[threadIdx.y][t], bs[threadIdx.x][t]));
    __syncthreads();
  }
  if (i < m && j < n) c[i * n + j] = s;
}

dim3 grid_for(size_t n, size_t rows) {
  return dim3(unsigned((n + kTile - 1) / kTile), unsigned((rows + kTile - 1) / kTile));
}

}  // namespace

cudaError_t launch_emulated_gemm(const float* a, const float* b, size_t m, size_t n, size_t k, size_t row0, size_t row1,
                                 const EmulatedModel& model, float* c, uint8_t* redo, cudaStream_t stream) {
  (void)m;  // the kernel's row bound is the slab's end
  const dim3 block(kTile, kTile);
  const dim3 grid = grid_for(n, row1 - row0);
  if (model.kind == EmulatedKind::Pairwise || model.kind == EmulatedKind::Kahan ||
      model.kind == EmulatedKind::Multiterm)
    per_element_kernel<<<grid, block, 0, stream>>>(a, b, row1, n, k, row0, model, c, redo);
  else tiled_kernel<<<grid, block, 0, stream>>>(a, b, row1, n, k, row0, model, c, redo);
  return cudaGetLastError();
}

cudaError_t launch_float64_gemm(const double* a, const double* b, size_t m, size_t n, size_t k, size_t row0,
                                size_t row1, double* c, cudaStream_t stream) {
  (void)m;  // the kernel's row bound is the slab's end
  float64_kernel<<<grid_for(n, row1 - row0), dim3(kTile, kTile), 0, stream>>>(a, b, row1, n, k, row0, c);
  return cudaGetLastError();
}

}  // namespace pl::cuda
