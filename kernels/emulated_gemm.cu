// Built with --fmad=false; every operation that must round once is an explicit _rn intrinsic
// besides, so no contraction can merge a product into a sum.
#include "kernels/emulated_gemm.cuh"

namespace pl::cuda {
namespace {

constexpr int kTile = 16;

// hi + lo rounded to odd at float32 precision, as bits (the CPU's round_to_odd_bits).
__device__ uint32_t round_to_odd_bits(float hi, float lo) {
  const uint32_t bits = __float_as_uint(hi);
  if (lo == 0.0f || (bits & 1u)) return bits;
  return (lo > 0.0f) == (hi > 0.0f) ? bits + 1u : bits - 1u;
}

// round(x + y) to the accumulator's format; `bad` set when the host must redo the element.
__device__ float add_rounded(float x, float y, const EmulatedAdd& r, bool& bad) {
  const float s = __fadd_rn(x, y);
  if (r.hardware_f32) {
    bad |= !isfinite(s);
    return s;
  }
  // TwoSum (Knuth): s + err == x + y exactly.
  const float yv = __fsub_rn(s, x);
  const float xv = __fsub_rn(s, yv);
  const float err = __fadd_rn(__fsub_rn(x, xv), __fsub_rn(y, yv));
  const float odd = __uint_as_float(round_to_odd_bits(s, err));
  const float v = roundtrip_f32<Rounding::NearestEven>(odd, r.format, 0);
  bad |= !(fabsf(v) <= r.largest) || !isfinite(s);
  return v;
}

template <bool Chunked>
__global__ void emulated_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                size_t m, size_t n, size_t k, size_t row0, EmulatedModel model,
                                float* __restrict__ c, uint8_t* __restrict__ redo) {
  __shared__ float as[kTile][kTile + 1], bs[kTile][kTile + 1];
  const size_t i = row0 + size_t(blockIdx.y) * kTile + threadIdx.y;
  const size_t j = size_t(blockIdx.x) * kTile + threadIdx.x;
  const size_t b_row = size_t(blockIdx.x) * kTile + threadIdx.y;  // the B row this thread loads
  float inner = 0.0f, outer = 0.0f;
  size_t in_chunk = 0;
  bool bad = false;
  for (size_t k0 = 0; k0 < k; k0 += kTile) {
    const size_t kk = k0 + threadIdx.x;
    as[threadIdx.y][threadIdx.x] = (i < m && kk < k) ? a[i * k + kk] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (b_row < n && kk < k) ? b[b_row * k + kk] : 0.0f;
    __syncthreads();
    const size_t len = k - k0 < size_t(kTile) ? k - k0 : size_t(kTile);
    for (size_t t = 0; t < len; ++t) {
      const float x = as[threadIdx.y][t], y = bs[threadIdx.x][t];
      const float p = __fmul_rn(x, y);
      bad |= double(p) != __dmul_rn(double(x), double(y));  // not exact (NaN included)
      inner = add_rounded(inner, p, model.inner, bad);
      if (Chunked && ++in_chunk == model.chunk) {
        outer = add_rounded(outer, inner, model.outer, bad);
        inner = 0.0f;
        in_chunk = 0;
      }
    }
    __syncthreads();
  }
  if (Chunked && in_chunk > 0) outer = add_rounded(outer, inner, model.outer, bad);
  if (i < m && j < n) {
    c[i * n + j] = Chunked ? outer : inner;
    redo[i * n + j] = bad ? 1 : 0;
  }
}

__global__ void float64_kernel(const double* __restrict__ a, const double* __restrict__ b,
                               size_t m, size_t n, size_t k, size_t row0, double* __restrict__ c) {
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

cudaError_t launch_emulated_gemm(const float* a, const float* b, size_t m, size_t n, size_t k,
                                 size_t row0, size_t row1, const EmulatedModel& model, float* c,
                                 uint8_t* redo, cudaStream_t stream) {
  (void)m;  // the kernel's row bound is the slab's end
  const dim3 block(kTile, kTile);
  if (model.chunked)
    emulated_kernel<true><<<grid_for(n, row1 - row0), block, 0, stream>>>(a, b, row1, n, k, row0, model, c, redo);
  else
    emulated_kernel<false><<<grid_for(n, row1 - row0), block, 0, stream>>>(a, b, row1, n, k, row0, model, c, redo);
  return cudaGetLastError();
}

cudaError_t launch_float64_gemm(const double* a, const double* b, size_t m, size_t n, size_t k,
                                size_t row0, size_t row1, double* c, cudaStream_t stream) {
  (void)m;  // the kernel's row bound is the slab's end
  float64_kernel<<<grid_for(n, row1 - row0), dim3(kTile, kTile), 0, stream>>>(a, b, row1, n, k, row0, c);
  return cudaGetLastError();
}

}  // namespace pl::cuda
