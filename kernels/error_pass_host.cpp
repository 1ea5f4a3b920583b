// The host's side of the GPU error statistics: turning what the kernels counted into core's
// FirstPass and Gathered (device_error_stats.h). No CUDA call here.
#include <algorithm>

#include "kernels/device_error_stats.h"

namespace pl::cuda {
namespace {

// The device's counters (unsigned long long, what atomicAdd takes) as core's uint64_t.
static_assert(sizeof(unsigned long long) == sizeof(uint64_t));
std::span<const uint64_t> as_u64(std::span<const unsigned long long> v) {
  return {reinterpret_cast<const uint64_t*>(v.data()), v.size()};
}

}  // namespace

using experiment::error_passes::FirstPass;
using experiment::error_passes::Gathered;
using experiment::error_passes::kKeys;
using experiment::error_passes::Plan;

PassParams pass_params(const experiment::error_passes::OutputMeasure& m) {
  PassParams p;
  p.element = m.element;
  p.top = m.top;
  p.cap_bits = m.cap_bits;
  p.cap_smallest = experiment::element_pow2(-static_cast<int64_t>(m.cap_bits));
  return p;
}

void set_bound(PassParams& p, const experiment::BoundInputs& b, const float* abs_product, const double* bias) {
  p.abs_product = abs_product;
  p.bias = b.bias.empty() ? nullptr : bias;
  p.columns = b.n == 0 ? 1 : b.n;
  p.slack = b.slack;
  p.deterministic = b.bounds.deterministic;
  p.probabilistic = b.bounds.probabilistic;
}

FirstPass assemble_first_pass(const experiment::Comparison& c, std::span<const PassSums> span_sums,
                              std::span<const unsigned> key_counts, std::span<const unsigned long long> rel_counts,
                              std::span<const unsigned long long> ulp_counts,
                              std::span<const unsigned long long> bound_counts) {
  FirstPass f = experiment::error_passes::fresh_first_pass(c);
  // The spans added in span order, as the CPU adds its spans' sums (merge_sums takes the larger
  // and smaller as Sums::merge does).
  PassSums t;
  for (const PassSums& s : span_sums) merge_sums(t, s);
  experiment::error_sums::Sums& x = f.sums;
  x.count = t.count, x.nan = t.nan, x.inf = t.inf, x.saturated = t.saturated, x.flushed = t.flushed;
  x.sum_abs = t.sum_abs, x.sum_sq = t.sum_sq, x.sum_ref_sq = t.sum_ref_sq;
  x.sum_rel = t.sum_rel, x.sum_ulp = t.sum_ulp, x.sum_bits = t.sum_bits;
  x.max_abs = t.max_abs, x.max_rel = t.max_rel, x.max_ulp = t.max_ulp;
  x.min_pos_rel = t.min_pos_rel, x.min_pos_ulp = t.min_pos_ulp, x.top_rel = t.top_rel, x.top_ulp = t.top_ulp;
  std::copy_n(key_counts.begin(), std::min(kKeys, key_counts.size()), f.keys.begin());
  if (f.rel) f.rel->add_counts(as_u64(rel_counts)), f.ulps->add_counts(as_u64(ulp_counts));
  if (f.bound)
    f.bound->add_counts(t.bound_compared, t.within_deterministic, t.within_probabilistic, t.bound_max,
                        t.bound_min_positive, t.bound_max_positive, as_u64(bound_counts));
  return f;
}

GatherSizes gather_sizes(const Plan& p, const FirstPass& f) {
  GatherSizes g;
  for (size_t key = 0; key < kKeys; ++key) {
    const uint8_t a = p.action[key];
    if (a & kPassBinAlone) g.alone += f.keys[key];
    if (const int q = (a >> 1) - 1; q >= 0 && q < 3) g.members[static_cast<size_t>(q)] += f.keys[key];
  }
  return g;
}

FineTargets refine_percentiles(Plan& p, std::span<const unsigned> fine_counts) {
  FineTargets t;
  const std::array<size_t, 3> within = p.within, owner = p.owner;
  for (size_t q = 0; q < 3; ++q) {
    const std::span<const unsigned> counts = fine_counts.subspan(owner[q] * kFineBins, kFineBins);
    size_t below = 0;
    for (uint32_t f = 0; f < kFineBins; ++f) {
      if (within[q] < below + counts[f]) {
        t.key[q] = static_cast<uint32_t>(p.magnitude[q]) << kFineBits | f;
        t.count[q] = counts[f];
        p.within[q] = within[q] - below;
        break;
      }
      below += counts[f];
    }
    p.owner[q] = q;
  }
  return t;
}

Gathered gathered(const Plan& p, std::span<const double> alone, std::array<std::vector<double>, 3> members) {
  Gathered g;
  g.h = p.empty;
  experiment::add(g.h.signed_error, alone);
  g.members = std::move(members);
  return g;
}

}  // namespace pl::cuda
