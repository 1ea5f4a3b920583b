// error_stats() (core/analysis/error_stats.h) with its passes over the elements on the GPU
// (error_stats.cu) and the host's decisions between and after them core's own (error_passes.h):
// the arrays are read on the device, and what comes back is a few hundred kilobytes of sums and
// counts, the elements binned alone, and the few hundred that hold the percentiles' ranks.
//
// The assembly functions (no CUDA call) are apart so that a host test can run error_pass.h's
// element functions in a kernel's order and check the result against the CPU on any machine.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "core/analysis/bound_check.h"
#include "core/analysis/error_passes.h"
#include "core/analysis/error_stats.h"
#include "core/backend/backend.h"
#include "core/dtype/dtype.h"
#include "core/util/expected.h"
#include "kernels/device_buffer.h"
#include "kernels/error_pass.h"

namespace pl::cuda {

PassParams pass_params(const experiment::error_passes::OutputMeasure& m);
// The bound check's inputs, with the arrays where the kernel reads them (device pointers).
void set_bound(PassParams& p, const experiment::BoundInputs& b, const float* abs_product, const double* bias);

// Pass 1's outputs for one comparison, as core's FirstPass: the span sums added in span order,
// the key counts, and the octave counts (null spans where the comparison asked for none).
experiment::error_passes::FirstPass assemble_first_pass(const experiment::Comparison& c,
                                                        std::span<const PassSums> span_sums,
                                                        std::span<const unsigned> key_counts,
                                                        std::span<const unsigned long long> rel_counts,
                                                        std::span<const unsigned long long> ulp_counts,
                                                        std::span<const unsigned long long> bound_counts);

// How many elements pass 2 will bin alone for a comparison, and how many it will count for each
// quantile that owns its key.
struct GatherSizes {
  size_t alone = 0;
  std::array<size_t, 3> members{};
};
GatherSizes gather_sizes(const experiment::error_passes::Plan& p, const experiment::error_passes::FirstPass& f);

// Pass 3's targets (error_pass.h's fine keys), from pass 2's counts (`fine_counts`: kFineBins for
// each quantile that owns its key, Plan::owner): each percentile's fine key holding its rank, and
// how many elements carry it. Rewrites the plan's within[q] as the rank among those elements and
// owner[q] as q, so that core's finish() selects each percentile from its own pass-3 gather.
// Nothing for a percentile whose key has no members (no compared element).
struct FineTargets {
  std::array<uint32_t, 3> key{kNoFineKey, kNoFineKey, kNoFineKey};
  std::array<size_t, 3> count{};
};
FineTargets refine_percentiles(experiment::error_passes::Plan& p, std::span<const unsigned> fine_counts);

// Pass 2's values as core's Gathered: the plan's empty bins holding the elements binned alone.
experiment::error_passes::Gathered gathered(const experiment::error_passes::Plan& p, std::span<const double> alone,
                                            std::array<std::vector<double>, 3> members);

// A host array's device copy, kept while its owner lives (BoundInputs::abs_owner: the bound
// check's |A||B|, 64 MB at 4096^2, the same across the window's re-runs).
struct KeptUpload {
  std::weak_ptr<const void> owner;
  const void* data = nullptr;
  size_t bytes = 0;
  DeviceBuffer buffer;
};

// The whole of error_stats() with the passes on the current device, over arrays the backend
// (`holder`) keeps there and host arrays it uploads. An error value (the caller then runs the
// CPU's) when the device cannot: out of memory, or relative or ulp errors ranging past the octave
// table (below 2^-1022 or past 2^1023), which pass 2 would have to bin one by one.
Expected<std::vector<experiment::ErrorStats>> device_error_stats(std::span<const HeldComparison> cs, DType output,
                                                                 double rel_floor, int sm_count, uint64_t holder,
                                                                 KeptUpload* kept_abs = nullptr);

}  // namespace pl::cuda
