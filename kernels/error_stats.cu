// Built with --fmad=false: pass 1's sums (e * e added to a sum) must not be contracted, so that
// the host's emulation of these element functions (the host test) adds what the device adds.
#include "kernels/error_stats.cuh"

#include <algorithm>

#include "kernels/grid_stride.cuh"

namespace pl::cuda {
namespace {

constexpr int kPassOneThreads = 128;                   // a block's PassSums in shared memory: 128 x 192 bytes
constexpr int kLaterPassThreads = kGridStrideThreads;  // passes 2 and 3

// One atomic increment per distinct value among a warp's active lanes (neighbouring elements
// often share a key or a slot: one atomic each would queue on the same address). Every lane of
// the warp calls it together; `active` says whether this lane counts `value`.
template <typename Counter>
__device__ void warp_count(Counter* counts, unsigned value, bool active) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned peers = __match_any_sync(0xffffffffu, active ? value : 0xffffffffu);
  if (active && lane == unsigned(__ffs(peers) - 1)) atomicAdd(&counts[value], Counter(__popc(peers)));
}

__global__ void __launch_bounds__(kPassOneThreads)
    pass_one_kernel(const PassOneArrays* comparisons, size_t n, OctaveTables tables) {
  // Raw storage: a __shared__ array may not have a constructor, and PassSums initialises itself.
  __shared__ alignas(PassSums) unsigned char storage[kPassOneThreads * sizeof(PassSums)];
  PassSums* partial = reinterpret_cast<PassSums*>(storage);
  PassOneArrays c = comparisons[blockIdx.y];
  if (const unsigned r = blockIdx.x % c.replicas; r != 0) {  // this block's copy of the counters
    c.key_counts += size_t(r) * kPassKeys;
    const size_t rel_off = r * tables.counted_rel(), ulp_off = r * tables.counted_ulp();
    if (c.rel_counts) c.rel_counts += rel_off, c.ulp_counts += ulp_off;
    if (c.bound_counts) c.bound_counts += rel_off;
  }
  const size_t span = blockIdx.x, begin = span * kPassOneSpan,
               end = begin + kPassOneSpan < n ? begin + kPassOneSpan : n;
  PassSums s;
  const uint32_t not_taken4 = tables.past_rel + 3, not_taken8 = tables.past_ulp + 3;
  // Every lane of a warp runs the same number of rounds (warp_count needs them all).
  for (size_t base = begin; base < end; base += kPassOneThreads) {
    const size_t i = base + threadIdx.x;
    const bool in = i < end;
    ElementSlots slots{experiment::kNoErrorKey, not_taken4, not_taken8, not_taken4};
    if (in) {
      slots = pass_one(c.result[i], c.reference[i], i, c.params, s, tables.rel, tables.past_rel, tables.ulp,
                       tables.past_ulp);
      c.keys[i] = slots.key;
    }
    warp_count(c.key_counts, slots.key, in && slots.key != experiment::kNoErrorKey);
    if (c.rel_counts) {
      warp_count(c.rel_counts, slots.rel, in && slots.rel != not_taken4);
      warp_count(c.ulp_counts, slots.ulps, in && slots.ulps != not_taken8);
    }
    if (c.bound_counts) warp_count(c.bound_counts, slots.bound, in && slots.bound != not_taken4);
  }
  // The block's sums in a fixed tree order: the span's sums do not depend on timing.
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = kPassOneThreads / 2; stride > 0; stride /= 2) {
    if (int(threadIdx.x) < stride) merge_sums(partial[threadIdx.x], partial[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) c.span_sums[span] = partial[0];
}

// counts[i] += counts[i + r * stride] for r = 1 .. replicas-1, i < stride.
template <typename Counter>
__global__ void fold_kernel(Counter* __restrict__ counts, size_t stride, unsigned replicas) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < stride; i += size_t(gridDim.x) * blockDim.x) {
    Counter sum = counts[i];
    for (unsigned r = 1; r < replicas; ++r) sum += counts[i + r * stride];
    counts[i] = sum;
  }
}

template <typename Counter>
cudaError_t fold(Counter* counts, size_t stride, unsigned replicas, cudaStream_t stream) {
  if (!counts || replicas <= 1) return cudaSuccess;
  fold_kernel<<<unsigned((stride + 255) / 256), 256, 0, stream>>>(counts, stride, replicas);
  return cudaGetLastError();
}

// A place in the array of counters[slot] for each lane that asks (slot >= 0): one atomicAdd per
// distinct slot among the warp's lanes, their places following the leader's base in lane order.
// Members of a percentile's key are a few percent of the elements, spread over every warp: one
// atomic each queued on the same few counters. Every lane of the warp calls it together.
__device__ unsigned long long warp_append(unsigned long long* counters, int slot) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned peers = __match_any_sync(0xffffffffu, unsigned(slot));
  const unsigned leader = unsigned(__ffs(peers) - 1);
  unsigned long long base = 0;
  if (slot >= 0 && lane == leader) base = atomicAdd(&counters[slot], static_cast<unsigned long long>(__popc(peers)));
  base = __shfl_sync(0xffffffffu, base, int(leader));
  return base + unsigned(__popc(peers & ((1u << lane) - 1u)));
}

// The elements a block's rounds cover, the same rounds for every lane of the block (warp_count
// and warp_append need the whole warp): `body(i, in)` with in = (i < n).
template <typename Body>
__device__ void block_rounds(size_t n, Body body) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t base = size_t(blockIdx.x) * blockDim.x; base < n; base += stride)
    body(base + threadIdx.x, base + threadIdx.x < n);
}

__global__ void pass_two_kernel(const PassTwoArrays* comparisons, size_t n) {
  const PassTwoArrays& c = comparisons[blockIdx.y];
  block_rounds(n, [&](size_t i, bool in) {
    const uint8_t a = in ? c.action[c.keys[i]] : 0;
    if (!__any_sync(0xffffffffu, a != 0)) return;
    const double e = a != 0 ? c.result[i] - c.reference[i] : 0.0;  // as pass 1 took it
    const int q = (a >> 1) - 1;                                    // the owning quantile, or -1
    const bool member = q >= 0 && q < 3;
    const unsigned long long at = warp_append(c.alone_count, (a & kPassBinAlone) ? 0 : -1);
    if ((a & kPassBinAlone) && at < c.alone_capacity) c.alone[at] = e;
    warp_count(c.fine_counts, member ? unsigned(q) * kFineBins + (fine_key(e) & (kFineBins - 1)) : 0u, member);
  });
}

__global__ void pass_three_kernel(const PassThreeArrays* comparisons, size_t n) {
  const PassThreeArrays& c = comparisons[blockIdx.y];
  block_rounds(n, [&](size_t i, bool in) {
    const bool maybe = in && pass_three_candidate(c.keys[i], c.targets);
    if (!__any_sync(0xffffffffu, maybe)) return;
    const double e = maybe ? c.result[i] - c.reference[i] : 0.0;  // as pass 1 took it
    const uint32_t f = maybe ? fine_key(e) : kNoFineKey;
    for (int q = 0; q < 3; ++q) {
      const bool take = maybe && f == c.targets[q];
      const unsigned long long at = warp_append(c.member_count, take ? q : -1);
      if (take && at < c.member_capacity[q]) c.members[q][at] = experiment::element_abs(e);
    }
  });
}

}  // namespace

cudaError_t launch_error_pass_one(const PassOneArrays* comparisons, int count, size_t n, OctaveTables tables,
                                  cudaStream_t stream) {
  const size_t spans = (n + kPassOneSpan - 1) / kPassOneSpan;
  if (spans == 0 || count == 0) return cudaSuccess;
  pass_one_kernel<<<dim3(unsigned(spans), unsigned(count)), kPassOneThreads, 0, stream>>>(comparisons, n, tables);
  return cudaGetLastError();
}

cudaError_t launch_fold_replicas(const PassOneArrays& a, const OctaveTables& tables, cudaStream_t stream) {
  cudaError_t e = fold(a.key_counts, kPassKeys, a.replicas, stream);
  if (e == cudaSuccess) e = fold(a.rel_counts, tables.counted_rel(), a.replicas, stream);
  if (e == cudaSuccess) e = fold(a.ulp_counts, tables.counted_ulp(), a.replicas, stream);
  if (e == cudaSuccess) e = fold(a.bound_counts, tables.counted_rel(), a.replicas, stream);
  return e;
}

// Passes 2 and 3: a grid-stride kernel per comparison, the comparisons sharing one full wave
// (grid_stride.cuh's, for all their elements together).
unsigned later_pass_blocks(size_t n, int count, int sm_count) {
  const size_t all = size_t(grid_stride_blocks(n * size_t(count), sm_count));
  return unsigned(std::max<size_t>(1, all / size_t(count)));
}

cudaError_t launch_error_pass_two(const PassTwoArrays* comparisons, int count, size_t n, int sm_count,
                                  cudaStream_t stream) {
  if (n == 0 || count == 0) return cudaSuccess;
  pass_two_kernel<<<dim3(later_pass_blocks(n, count, sm_count), unsigned(count)), kLaterPassThreads, 0, stream>>>(
      comparisons, n);
  return cudaGetLastError();
}

cudaError_t launch_error_pass_three(const PassThreeArrays* comparisons, int count, size_t n, int sm_count,
                                    cudaStream_t stream) {
  if (n == 0 || count == 0) return cudaSuccess;
  pass_three_kernel<<<dim3(later_pass_blocks(n, count, sm_count), unsigned(count)), kLaterPassThreads, 0, stream>>>(
      comparisons, n);
  return cudaGetLastError();
}

}  // namespace pl::cuda
