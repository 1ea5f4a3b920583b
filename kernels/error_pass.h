// The GPU's share of error_stats() (core/analysis/error_passes.h), one element at a time:
// what an element adds to its span's sums and which key, octave slots and bound slot it counts
// in (pass 1), and what pass 2 does with it. Written once for the kernels (error_stats.cu) and
// the host, where a test runs these very functions over arrays in a block order of its own and
// checks the assembled statistics against the CPU's error_stats() on every machine, GPU or not.
//
// What is bit for bit the CPU's: every count, key, slot, maximum and minimum, hence every
// histogram and percentile (error_element.h's definitions). What is not: the floating-point
// sums (mean, RMS, normwise, SQNR, mean bits), added in another order -- and the bits of
// agreement take a log2 per element where the CPU multiplies mantissas -- so they agree to
// about n * 2^-53 relative; the parity suite allows 1e-9.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/analysis/device/error_element.h"
#include "core/util/host_device.h"

namespace pl::cuda {

// One comparison's element measures and, for the comparison that carries it, the bound check's
// inputs (core/analysis/bound_check.h).
struct PassParams {
  experiment::ElementMeasure element;
  double top = 0;           // the output's largest finite value
  double cap_bits = 0;      // bits of agreement: the cap
  double cap_smallest = 0;  // 2^-cap_bits
  // The bound check (when abs_product is set): (|A||B|)_ij in float32 times `slack`, plus
  // |bias_j| over `columns` columns, against the two bounds.
  const float* abs_product = nullptr;
  const double* bias = nullptr;
  size_t columns = 1;
  double slack = 1, deterministic = 0, probabilistic = 0;
};

// A span's sums (error_sums.h's Sums, and BoundTally's own), made by one thread and merged in a
// fixed order.
struct PassSums {
  unsigned long long count = 0, nan = 0, inf = 0, saturated = 0, flushed = 0;
  double sum_abs = 0, sum_sq = 0, sum_ref_sq = 0, sum_rel = 0, sum_ulp = 0, sum_bits = 0;
  double max_abs = 0, max_rel = 0, max_ulp = 0;
  double min_pos_rel = __builtin_huge_val(), min_pos_ulp = __builtin_huge_val(), top_rel = 0, top_ulp = 0;
  unsigned long long bound_compared = 0, within_deterministic = 0, within_probabilistic = 0;
  double bound_max = 0, bound_min_positive = __builtin_huge_val(), bound_max_positive = 0;
};

// The larger and smaller as the CPU's vector lanes take them (a < b ? b : a): a NaN offered
// leaves the kept value.
PL_HD inline double pass_max(double kept, double v) { return kept < v ? v : kept; }
PL_HD inline double pass_min(double kept, double v) { return v < kept ? v : kept; }

PL_HD inline void merge_sums(PassSums& s, const PassSums& o) {
  s.count += o.count, s.nan += o.nan, s.inf += o.inf, s.saturated += o.saturated, s.flushed += o.flushed;
  s.sum_abs += o.sum_abs, s.sum_sq += o.sum_sq, s.sum_ref_sq += o.sum_ref_sq;
  s.sum_rel += o.sum_rel, s.sum_ulp += o.sum_ulp, s.sum_bits += o.sum_bits;
  s.max_abs = pass_max(s.max_abs, o.max_abs), s.max_rel = pass_max(s.max_rel, o.max_rel);
  s.max_ulp = pass_max(s.max_ulp, o.max_ulp);
  s.min_pos_rel = pass_min(s.min_pos_rel, o.min_pos_rel), s.min_pos_ulp = pass_min(s.min_pos_ulp, o.min_pos_ulp);
  s.top_rel = pass_max(s.top_rel, o.top_rel), s.top_ulp = pass_max(s.top_ulp, o.top_ulp);
  s.bound_compared += o.bound_compared, s.within_deterministic += o.within_deterministic;
  s.within_probabilistic += o.within_probabilistic;
  s.bound_max = pass_max(s.bound_max, o.bound_max);
  s.bound_min_positive = pass_min(s.bound_min_positive, o.bound_min_positive);
  s.bound_max_positive = pass_max(s.bound_max_positive, o.bound_max_positive);
}

// Where element i counts: its error key (kNoErrorKey when not compared), its relative and ulp
// errors' octave slots, and its scaled arithmetic error's slot (the bound check's; `past + 3`,
// "not taken", when the comparison has none or the element is not compared there).
struct ElementSlots {
  uint16_t key;
  uint32_t rel, ulps, bound;
};

// The base-2 logarithm of a relative error in (2^-cap, 1): the device's and the host's own (the
// CPU's statistic multiplies mantissas instead; both are far more precise than the mean shown).
PL_HD inline double pass_log2(double x) {
#if defined(__CUDA_ARCH__)
  return log2(x);
#else
  return __builtin_log2(x);
#endif
}

// Pass 1 for element i of a comparison: its contribution to `s` and the slots it counts in.
// rel_table / ulp_table: the octave tables' entries (histogram.h's OctaveBins::entries) of the
// relative errors (and the bound check) and of the ulps; rel_past / ulp_past: their slots() (the
// first slot past the table).
PL_HD inline ElementSlots pass_one(double r, double ref, size_t i, const PassParams& p, PassSums& s,
                                   const uint64_t* rel_table, uint32_t rel_past, const uint64_t* ulp_table, uint32_t ulp_past) {
  using namespace experiment;
  const bool both = compared_pair(r, ref);
  const double ei = element_abs(r - ref);
  const uint64_t ref_bits = element_bits(ref);
  const double rel = relative_error(ei, ref, p.element.floor);
  const double ulps = error_in_ulps(ei, ref_bits, p.element);
  ElementSlots out{both ? error_key(r - ref) : kNoErrorKey, octave_slot(rel, both, rel_table, rel_past),
                   octave_slot(ulps, both, ulp_table, ulp_past), rel_past + 3};
  if (!both) {
    const bool ref_finite = (ref_bits & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
    if (ref_finite) (r != r ? s.nan : s.inf) += 1;
  } else {
    const double abs_r = element_abs(r), abs_ref = element_abs(ref);
    s.count += 1;
    s.saturated += (abs_r == p.top) & (abs_ref > p.top);
    s.flushed += (r == 0) & (ref != 0);
    s.sum_abs += ei;
    s.sum_sq += ei * ei;
    s.sum_ref_sq += ref * ref;
    s.sum_rel += rel;
    s.sum_ulp += ulps;
    s.sum_bits += rel <= p.cap_smallest ? p.cap_bits : rel < 1 ? -pass_log2(rel) : 0.0;
    s.max_abs = pass_max(s.max_abs, ei), s.max_rel = pass_max(s.max_rel, rel), s.max_ulp = pass_max(s.max_ulp, ulps);
    s.min_pos_rel = pass_min(s.min_pos_rel, rel > 0 ? rel : __builtin_huge_val());
    s.min_pos_ulp = pass_min(s.min_pos_ulp, ulps > 0 ? ulps : __builtin_huge_val());
    constexpr double kBig = 1.7976931348623157e308;
    s.top_rel = pass_max(s.top_rel, rel <= kBig ? rel : 0.0);
    s.top_ulp = pass_max(s.top_ulp, ulps <= kBig ? ulps : 0.0);
  }
  if (p.abs_product) {  // bound_check.cpp's scaled_error and tally_block, for this element
    const double bias = p.bias ? p.bias[i % p.columns] : 0.0;
    const double denom = static_cast<double>(p.abs_product[i]) * p.slack + element_abs(bias);
    const bool acc_finite = (element_bits(r) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
    const bool take = acc_finite & (denom > 0);
    const double v = ei / denom;
    s.bound_compared += take;
    s.within_deterministic += take & (v <= p.deterministic);
    s.within_probabilistic += take & (v <= p.probabilistic);
    const double kept = take ? v : 0.0;
    s.bound_max = pass_max(s.bound_max, kept);
    if (kept > 0 && kept <= 1.7976931348623157e308)
      s.bound_min_positive = pass_min(s.bound_min_positive, kept),
      s.bound_max_positive = pass_max(s.bound_max_positive, kept);
    out.bound = octave_slot(v, take, rel_table, rel_past);
  }
  return out;
}

// Pass 2's action bits (error_passes.h): bin the element alone, and/or count its |e| for the
// owning quantile (action >> 1, minus one). What it adds: e = r - ref as pass 1 took it.
constexpr uint8_t kPassBinAlone = 1;

// The percentiles without bringing a key's members to the host (a radix selection's next
// digit): pass 2 counts the members of each percentile's key by the kFineBits bits of |e| that
// follow the key's, pass 3 gathers only the members of the one fine key that holds the
// percentile's rank. At 4096^2 a percentile's key holds ~200 000 elements (~3.5% of them are
// members, measured on the CPU at 1024^2); a fine key, a few hundred.
//
// fine_key(e): the key's 15 magnitude bits (error_key's, which takes |e| - 1 ulp for a negative
// e so that a key's negative errors are (lo, hi]) followed by the next kFineBits bits of the
// same. Ordered as |e|: fine_key(x) < fine_key(y) only where |x| <= |y|, so the members of the
// fine keys below one rank below all of its members.
constexpr int kFineBits = 12;
constexpr uint32_t kFineBins = uint32_t{1} << kFineBits;
constexpr uint32_t kNoFineKey = 0xffffffffu;  // pass 3: a percentile with nothing to gather
PL_HD inline uint32_t fine_key(double e) {
  const uint64_t bits = experiment::element_bits(e);
  const uint64_t magnitude = bits & 0x7fffffffffffffffull;
  const uint64_t shift = (bits >> 63) & (magnitude != 0) & (magnitude != 0x7ff0000000000000ull);
  return static_cast<uint32_t>((magnitude - shift) >> (48 - kFineBits));
}
// The error key's magnitude part (error_key() without its sign bit), as fine_key(e) >> kFineBits.
PL_HD inline uint32_t key_magnitude(uint16_t key) { return key & 0x7fffu; }

// Pass 3 for an element with error key `key`: whether it may carry one of the percentiles' fine
// keys (`targets`, kNoFineKey where none), read from its key alone, so that the others never read
// their arrays.
PL_HD inline bool pass_three_candidate(uint16_t key, const uint32_t* targets) {
  if (key == experiment::kNoErrorKey) return false;
  const uint32_t m = key_magnitude(key);
  return (targets[0] != kNoFineKey && targets[0] >> kFineBits == m) ||
         (targets[1] != kNoFineKey && targets[1] >> kFineBits == m) ||
         (targets[2] != kNoFineKey && targets[2] >> kFineBits == m);
}

}  // namespace pl::cuda
