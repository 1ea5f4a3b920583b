// Built with --fmad=false and without fast math: the round trip claims bit-exactness, and the
// element function is the very one the CPU runs (core/dtype/device/roundtrip_f32.h).
#include "kernels/convert.cuh"

#include "kernels/grid_stride.cuh"

namespace pl::cuda {
namespace {

// One params set's element function, chosen at the launch as bulk_convert.cpp chooses it per
// array: with roundtrip_f32's per-element choice inlined four times, the stochastic kernel's PTX
// would grow by half, and its throughput on an H100 would fall by about a third, to well under
// the copy's (docs/performance.md).
// Every mode takes its short path for finite values normal in the format
// (roundtrip_f32_short_first): the generic function's 87 instructions an element (in the SASS)
// would hold the stochastic kernel to about 0.6x of a copy on an H100; and on an H200
// (4.2 TB/s) nearest-even's own branch-free function, with its subnormal and special selects for
// every element, would run well behind toward zero's short path.
template <Rounding R, bool kE8m0>
__device__ __forceinline__ float element(float x, const RoundtripF32Params& p, uint64_t index) {
  if constexpr (kE8m0) return roundtrip_f32_e8m0<R, true>(x, p, index);
  else if constexpr (R == Rounding::Stochastic)
    return roundtrip_f32_short_first<R, true>(x, p, stochastic_bits(p.seed, index));
  else return roundtrip_f32_short_first<R, true>(x, p, 0);
}

// Each thread converts 4 consecutive floats with one 16-byte load and store (memory-bound).
template <Rounding R, bool kE8m0>
__global__ void PL_GRID_STRIDE_BOUNDS roundtrip_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n,
                                                       RoundtripF32Params p) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t n4 = n / 4;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 v = reinterpret_cast<const float4*>(in)[i];
    size_t e = 4 * i;
    v.x = element<R, kE8m0>(v.x, p, e);
    v.y = element<R, kE8m0>(v.y, p, e + 1);
    v.z = element<R, kE8m0>(v.z, p, e + 2);
    v.w = element<R, kE8m0>(v.w, p, e + 3);
    reinterpret_cast<float4*>(out)[i] = v;
  }
  for (size_t e = 4 * n4 + size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride)
    out[e] = element<R, kE8m0>(in[e], p, e);
}

template <Rounding R>
void launch_mode(int grid, cudaStream_t s, const float* in, float* out, size_t n, const RoundtripF32Params& p) {
  if (p.e8m0) roundtrip_kernel<R, true><<<grid, kGridStrideThreads, 0, s>>>(in, out, n, p);
  else roundtrip_kernel<R, false><<<grid, kGridStrideThreads, 0, s>>>(in, out, n, p);
}

// The float64 round trip in place, one element a thread at a time (roundtrip_f64.h): its
// 64-bit integer steps make it compute-heavier than the float32 kernel above.
__global__ void PL_GRID_STRIDE_BOUNDS roundtrip_f64_kernel(double* __restrict__ v, size_t n, RoundtripF64Params p) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) v[i] = roundtrip_f64(v[i], p, i);
}

__global__ void PL_GRID_STRIDE_BOUNDS fill_kernel(float* out, size_t n) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = float((double(i % 1000003) - 500000.0) * 1.3e-3);  // same data as the CPU bench
}

}  // namespace

cudaError_t launch_roundtrip_f32(const float* in, float* out, size_t n, const RoundtripF32Params& p, Rounding r,
                                 int sm_count, cudaStream_t s) {
  // float4 access needs 16-byte alignment; cudaMalloc gives 256 bytes.
  int g = grid_stride_blocks(n / 4 + 1, sm_count);
  switch (r) {
    case Rounding::NearestEven: launch_mode<Rounding::NearestEven>(g, s, in, out, n, p); break;
    case Rounding::NearestAway: launch_mode<Rounding::NearestAway>(g, s, in, out, n, p); break;
    case Rounding::TowardZero: launch_mode<Rounding::TowardZero>(g, s, in, out, n, p); break;
    case Rounding::Up: launch_mode<Rounding::Up>(g, s, in, out, n, p); break;
    case Rounding::Down: launch_mode<Rounding::Down>(g, s, in, out, n, p); break;
    case Rounding::Stochastic: launch_mode<Rounding::Stochastic>(g, s, in, out, n, p); break;
  }
  return cudaGetLastError();
}

cudaError_t launch_roundtrip_f64(double* values, size_t n, const RoundtripF64Params& p, int sm_count, cudaStream_t s) {
  roundtrip_f64_kernel<<<grid_stride_blocks(n, sm_count), kGridStrideThreads, 0, s>>>(values, n, p);
  return cudaGetLastError();
}

cudaError_t launch_fill_pattern(float* out, size_t n, int sm_count, cudaStream_t s) {
  fill_kernel<<<grid_stride_blocks(n, sm_count), kGridStrideThreads, 0, s>>>(out, n);
  return cudaGetLastError();
}

}  // namespace pl::cuda
