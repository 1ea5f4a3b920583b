// The error statistics' passes on the GPU (error_pass.h's element functions): core's two, the
// second split in two for the percentiles (count by fine key, then gather one fine key). One CUDA
// block per span of error_passes::kSpan elements of one comparison in pass 1, so that each
// span's sums are made in one fixed order (a tree within the block) and the host adds them in
// span order. Plain types only: the host driver (device_error_stats.cpp) builds them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/error_pass.h"

namespace pl::cuda {

// Elements a pass-one block takes: error_passes::kSpan (device_error_stats.cpp checks).
inline constexpr size_t kPassOneSpan = size_t{1} << 16;
// Error keys, the key counts' length: error_passes::kKeys (device_error_stats.cpp checks).
inline constexpr size_t kPassKeys = size_t{1} << 16;

// Pass 1's counters come in `replicas` copies, one after another (a stride apart: kPassKeys for the
// key counts, OctaveTables' counted slots for a octave table's): block b counts into copy b % replicas,
// and launch_fold_replicas adds them into the first. Neighbouring keys and octave slots share
// cache lines, and the elements of a comparison crowd into a few of them, so with one copy every
// block's atomics would queue on the same few lines of L2, and pass 1 could take several times as
// long as reading the arrays.
// PL_CUDA_COUNT_REPLICAS (1 to 64) overrides kCountReplicas, so that one GPU run can time both.
inline constexpr int kCountReplicas = 16;

// One comparison's arrays on the device, for pass 1.
struct PassOneArrays {
  const double* result = nullptr;
  const double* reference = nullptr;
  PassParams params;
  uint16_t* keys = nullptr;                                         // out: every element's error key (n)
  PassSums* span_sums = nullptr;                                    // out: one per span
  unsigned* key_counts = nullptr;                                   // out: compared elements by key (65536; zeroed)
  unsigned long long *rel_counts = nullptr, *ulp_counts = nullptr;  // out: octave slots (zeroed) or null
  unsigned long long* bound_counts = nullptr;                       // out: the bound check's slots (zeroed) or null
  unsigned replicas = 1;                                            // copies of each counter array (above)
};

// The octave tables (OctaveBins::entries) of the relative errors and of the ulps, and their first slot past.
struct OctaveTables {
  const uint64_t* rel = nullptr;
  uint32_t past_rel = 0;
  const uint64_t* ulp = nullptr;
  uint32_t past_ulp = 0;
  // A count of each table's slots: its slots and the four past them (OctaveBins::counted_slots).
  PL_HD size_t counted_rel() const { return size_t{past_rel} + 4; }
  PL_HD size_t counted_ulp() const { return size_t{past_ulp} + 4; }
};

// `comparisons` device structs; n elements each.
cudaError_t launch_error_pass_one(const PassOneArrays* comparisons, int count, size_t n, OctaveTables tables,
                                  cudaStream_t stream);
// Adds copies 1 .. replicas-1 of one comparison's counters (`a`, the host's copy of its device
// struct) into copy 0, which the host then reads.
cudaError_t launch_fold_replicas(const PassOneArrays& a, const OctaveTables& tables, cudaStream_t stream);

// One comparison's arrays for pass 2: the elements whose key's action is not 0 -- e appended to
// `alone` (action & 1) at the place its counter hands out (the order does not matter: they are
// binned), and each member of a percentile's key counted by fine key (error_pass.h) in
// fine_counts[owner * kFineBins + (fine_key(e) & (kFineBins - 1))]. A counter that would pass its
// capacity stops there; the host then reports the mismatch.
struct PassTwoArrays {
  const double* result = nullptr;
  const double* reference = nullptr;
  const uint16_t* keys = nullptr;
  const uint8_t* action = nullptr;  // by key (65536)
  double* alone = nullptr;
  unsigned long long* alone_count = nullptr;
  unsigned long long alone_capacity = 0;
  unsigned* fine_counts = nullptr;  // 3 x kFineBins, zeroed
};

// One comparison's arrays for pass 3: |e| of each element whose fine key is targets[q] appended
// to members[q] (kNoFineKey: none), as pass 2 appends.
struct PassThreeArrays {
  const double* result = nullptr;
  const double* reference = nullptr;
  const uint16_t* keys = nullptr;
  uint32_t targets[3] = {kNoFineKey, kNoFineKey, kNoFineKey};
  double* members[3] = {};
  unsigned long long* member_count = nullptr;  // three counters
  unsigned long long member_capacity[3] = {};
};

cudaError_t launch_error_pass_two(const PassTwoArrays* comparisons, int count, size_t n, int sm_count,
                                  cudaStream_t stream);
cudaError_t launch_error_pass_three(const PassThreeArrays* comparisons, int count, size_t n, int sm_count,
                                    cudaStream_t stream);

}  // namespace pl::cuda
