#include "core/experiment/error_stats.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "core/dtype/describe.h"
#include "core/util/parallel.h"
#include "core/util/target_clones.h"

// Two passes over the elements, each split between the CPU's threads, and nothing stored per
// element: the first sums and finds the ranges (and counts |e| by the top 16 bits of its
// float64 pattern, for the percentiles); the second recomputes each element's errors, bins
// them and gathers the few |e| in the buckets that hold the percentile ranks. A million
// elements take a few milliseconds a pass instead of the tens that storing three arrays of
// per-element errors and sorting cost.

namespace pl::experiment {
namespace {

constexpr size_t kBlock = 2048;               // elements measured together before binning
constexpr size_t kBuckets = size_t{1} << 16;  // top 16 bits of |e|: sign, exponent, 4 bits
constexpr std::array<double, 3> kQuantiles = {0.50, 0.90, 0.99};

// What one element contributes, computed the same way in both passes.
class Measure {
 public:
  Measure(DType output, double rel_floor) : format_(info(output).format) {
    floor_ = rel_floor > 0 ? rel_floor : std::ldexp(1.0, format_.emin());
    top_ = max_finite(format_);
    cap_bits_ = format_.precision();
  }
  double floor() const { return floor_; }
  int64_t emin() const { return format_.emin(); }
  int64_t emax() const { return format_.emax(); }
  int64_t mantissa_bits() const { return format_.mantissa_bits; }
  // Every ulp of the format is a normal float64 (all formats but float64 itself).
  bool normal_ulps() const { return format_.emin() - format_.mantissa_bits >= -1022; }
  double top() const { return top_; }
  double cap_bits() const { return cap_bits_; }

  double ulp(double x) const { return ulp_at(format_, x); }  // as `cast` reports it

 private:
  FloatFormat format_;
  double floor_, top_, cap_bits_;
};

// log2(x) of a positive normal double to within 1e-9, without a libm call (log2 and log2f
// cost more than everything else per element together): x = 2^k m with m in [sqrt(1/2),
// sqrt(2)), and log2(m) = (2 / ln 2) atanh(t), t = (m - 1) / (m + 1), |t| < 0.172, from
// atanh's series to t^9 (the next term is below 4e-10). Subnormal x (relative errors below
// 2^-1022) read as 2^-1023 or so, and 0 as -1023: far past every cap on bits. No branches, so
// a loop over it vectorises; k goes to a double through the 2^52 trick (AVX2 has no int64 ->
// double conversion).
inline double log2_positive(double x) {
  const uint64_t b = std::bit_cast<uint64_t>(x);
  double m = std::bit_cast<double>((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  const bool high = m > 1.4142135623730951;
  m = high ? m * 0.5 : m;
  const double biased = std::bit_cast<double>((b >> 52) | 0x4330000000000000ull) - 0x1p52;
  const double k = (biased - 1023) + (high ? 1.0 : 0.0);
  const double t = (m - 1) / (m + 1), t2 = t * t;
  const double series = t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7 + t2 * (1.0 / 9)))));
  return k + 2.8853900817779268 * series;  // 2 / ln 2
}

inline uint16_t bucket_of(double abs_error) {
  return static_cast<uint16_t>(std::bit_cast<uint64_t>(abs_error) >> 48);
}

// Pass 1 over one span of elements. Floating-point sums are kept per span of kSpan elements
// and added in order afterwards, so the statistics do not depend on how many threads ran.
constexpr size_t kSpan = size_t{1} << 16;
struct Sums {
  size_t count = 0, nan = 0, inf = 0, saturated = 0, flushed = 0;
  double sum_abs = 0, sum_sq = 0, sum_ref_sq = 0, sum_rel = 0, sum_ulp = 0, sum_bits = 0;
  double max_abs = 0, max_rel = 0, max_ulp = 0, min_bits = INFINITY;
  // Ranges of the log bins: smallest positive and largest finite (an error in ulps of a
  // float64 output can overflow to inf: binned apart as not finite).
  double min_pos_rel = INFINITY, min_pos_ulp = INFINITY, top_rel = 0, top_ulp = 0;

  void merge(const Sums& o) {
    count += o.count, nan += o.nan, inf += o.inf, saturated += o.saturated, flushed += o.flushed;
    sum_abs += o.sum_abs, sum_sq += o.sum_sq, sum_ref_sq += o.sum_ref_sq;
    sum_rel += o.sum_rel, sum_ulp += o.sum_ulp, sum_bits += o.sum_bits;
    max_abs = std::max(max_abs, o.max_abs), max_rel = std::max(max_rel, o.max_rel);
    max_ulp = std::max(max_ulp, o.max_ulp), min_bits = std::min(min_bits, o.min_bits);
    min_pos_rel = std::min(min_pos_rel, o.min_pos_rel), min_pos_ulp = std::min(min_pos_ulp, o.min_pos_ulp);
    top_rel = std::max(top_rel, o.top_rel), top_ulp = std::max(top_ulp, o.top_ulp);
  }
};

// One block's per-element measures, in a loop with no branches and no reductions so that it
// vectorises (the divisions dominate, and run four to an AVX2 instruction; __restrict: without
// it GCC 12 will not): |e|, the relative error |e| / max(|ref|, floor), the error in ulps of
// the output format, and whether both values are finite. The ulp is the power of two ulp_at
// gives, found from the exponent bits (clamping a zero or subnormal exponent up to the format's
// emin gives what ulp_at does for them), so every value is the per-element definition's bit
// for bit. Outputs whose ulps go below float64's normal range (float64 itself) call ulp_at
// (Measure::ulp) instead.
template <bool kNormalUlps>
PL_CLONES void measure_block(const double* __restrict result, const double* __restrict reference, size_t n,
                             const Measure& m, double* __restrict e, double* __restrict rel,
                             double* __restrict ulps, uint8_t* __restrict finite) {
  const double floor = m.floor();
  const int64_t emin = m.emin(), emax = m.emax(), mantissa = m.mantissa_bits();
  for (size_t i = 0; i < n; ++i) {
    const double r = result[i], ref = reference[i];
    const uint64_t rb = std::bit_cast<uint64_t>(r), fb = std::bit_cast<uint64_t>(ref);
    constexpr uint64_t kExp = 0x7ff0000000000000ull;
    finite[i] = static_cast<uint8_t>(((rb & kExp) != kExp) & ((fb & kExp) != kExp));
    const double ei = std::fabs(r - ref);
    e[i] = ei;
    const double a = std::fabs(ref);
    rel[i] = ei / (a < floor ? floor : a);
    if constexpr (kNormalUlps) {
      int64_t q = static_cast<int64_t>((fb >> 52) & 0x7ff) - 1023;
      q = q < emin ? emin : q;
      q = q > emax ? emax : q;
      ulps[i] = ei / std::bit_cast<double>(static_cast<uint64_t>(q - mantissa + 1023) << 52);
    } else {
      ulps[i] = ei / m.ulp(ref);
    }
  }
}

// Bits of agreement for a block of relative errors: -log2 of each, capped to [0, precision]. A
// zero error needs no case of its own: log2_positive(0) is -1023, which the cap turns into the
// full precision.
PL_CLONES void bits_block(const double* rel, size_t n, double cap, double* out) {
  for (size_t i = 0; i < n; ++i) {
    const double v = -log2_positive(rel[i]);
    out[i] = v < 0 ? 0 : (cap < v ? cap : v);
  }
}

void measure(const double* result, const double* reference, size_t n, const Measure& m, double* e, double* rel,
             double* ulps, uint8_t* finite) {
  if (m.normal_ulps()) measure_block<true>(result, reference, n, m, e, rel, ulps, finite);
  else measure_block<false>(result, reference, n, m, e, rel, ulps, finite);
}

// buckets: counts of |e| by bucket_of(), added to (one array per thread).
void first_pass(std::span<const double> result, std::span<const double> reference, const Measure& m,
                size_t begin, size_t end, Sums& out, uint32_t* buckets) {
  Sums s;  // a local: the compiler keeps it in registers (out could alias the inputs)
  uint16_t keys[kBlock];
  double errors[kBlock], relatives[kBlock], ulp_errors[kBlock];
  uint8_t finite[kBlock];
  for (size_t b0 = begin; b0 < end; b0 += kBlock) {
    const size_t n = std::min(kBlock, end - b0);
    measure(result.data() + b0, reference.data() + b0, n, m, errors, relatives, ulp_errors, finite);
    size_t kept = 0;
    for (size_t j = 0; j < n; ++j) {
      const double r = result[b0 + j], ref = reference[b0 + j];
      if (!finite[j]) [[unlikely]] {
        if (!std::isfinite(ref)) continue;  // nothing to measure against
        if (std::isnan(r)) ++s.nan;
        else ++s.inf;
        continue;
      }
      s.saturated += std::fabs(r) == m.top() && std::fabs(ref) > m.top();
      s.flushed += r == 0 && ref != 0;
      const double e = errors[j], rel = relatives[j], ulps = ulp_errors[j];
      s.sum_abs += e;
      s.sum_sq += e * e;
      s.sum_ref_sq += ref * ref;
      s.sum_rel += rel;
      s.sum_ulp += ulps;
      s.max_abs = std::max(s.max_abs, e);
      s.max_rel = std::max(s.max_rel, rel);
      s.max_ulp = std::max(s.max_ulp, ulps);
      s.min_pos_rel = std::min(s.min_pos_rel, rel > 0 ? rel : INFINITY);
      s.min_pos_ulp = std::min(s.min_pos_ulp, ulps > 0 ? ulps : INFINITY);
      s.top_rel = std::max(s.top_rel, std::isfinite(rel) ? rel : 0.0);
      s.top_ulp = std::max(s.top_ulp, std::isfinite(ulps) ? ulps : 0.0);
      errors[kept] = e;
      relatives[kept] = rel;
      keys[kept++] = bucket_of(e);
    }
    s.count += kept;
    // Bits of agreement in a loop of their own, which vectorises (bits_block), then summed in
    // order.
    bits_block(relatives, kept, m.cap_bits(), errors);  // |e| is not needed past here
    for (size_t i = 0; i < kept; ++i) {
      s.sum_bits += errors[i];
      s.min_bits = std::min(s.min_bits, errors[i]);
    }
    // Counted apart from where the keys are found (histogram.cpp's add_values says why).
    for (size_t i = 0; i < kept; ++i) ++buckets[keys[i]];
  }
  out = s;
}

// Where the percentile ranks fall: bucket and rank within it, from the merged counts.
struct Ranks {
  std::array<size_t, kQuantiles.size()> bucket{}, within{};
};
Ranks locate(const Sums& s, const std::vector<uint32_t>& buckets) {
  Ranks k;
  std::array<size_t, kQuantiles.size()> rank{};
  for (size_t q = 0; q < kQuantiles.size(); ++q)  // nearest rank, NumPy's "inverted_cdf"
    rank[q] = std::clamp<size_t>(static_cast<size_t>(std::ceil(kQuantiles[q] * static_cast<double>(s.count))),
                                 1, s.count) - 1;
  size_t below = 0, next = 0;
  for (size_t b = 0; b < kBuckets && next < kQuantiles.size(); ++b) {
    while (next < kQuantiles.size() && rank[next] < below + buckets[b]) {
      k.bucket[next] = b;
      k.within[next] = rank[next] - below;
      ++next;
    }
    below += buckets[b];
  }
  return k;
}

// Pass 2, one thread's share: histograms and the members of the percentile buckets.
struct Gathered {
  ErrorHistograms h;
  std::array<std::vector<double>, kQuantiles.size()> members;  // by distinct bucket
};

void second_pass(std::span<const double> result, std::span<const double> reference, const Measure& m,
                 const Ranks& ranks, size_t begin, size_t end, Gathered& g, bool histograms) {
  double signed_e[kBlock], errors[kBlock], rel[kBlock], ulps[kBlock];
  uint8_t finite[kBlock];
  for (size_t b0 = begin; b0 < end; b0 += kBlock) {
    const size_t n = std::min(kBlock, end - b0);
    measure(result.data() + b0, reference.data() + b0, n, m, errors, rel, ulps, finite);
    size_t kept = 0;
    for (size_t j = 0; j < n; ++j) {
      if (!finite[j]) [[unlikely]] continue;
      const double e = errors[j];
      signed_e[kept] = result[b0 + j] - reference[b0 + j];
      rel[kept] = rel[j];
      ulps[kept] = ulps[j];
      ++kept;
      const uint16_t key = bucket_of(e);
      for (size_t q = 0; q < kQuantiles.size(); ++q)
        if (key == ranks.bucket[q]) {  // the first quantile with this bucket keeps its members
          g.members[q].push_back(e);
          break;
        }
    }
    if (!histograms) continue;
    add(g.h.signed_error, {signed_e, kept});
    add(g.h.relative, {rel, kept});
    add(g.h.ulps, {ulps, kept});
  }
}

}  // namespace

ErrorStats error_stats(std::span<const double> result, std::span<const double> reference,
                       DType output, double rel_floor) {
  return error_stats(result, reference, output, rel_floor, nullptr);
}

ErrorStats error_stats(std::span<const double> result, std::span<const double> reference,
                       DType output, double rel_floor, ErrorHistograms* histograms) {
  const Measure m(output, rel_floor);
  const size_t n = std::min(result.size(), reference.size());
  std::mutex lock;

  std::vector<Sums> spans((n + kSpan - 1) / kSpan);
  std::vector<uint32_t> buckets(kBuckets, 0);
  parallel_for(spans.size(), 0, [&](size_t s0, size_t s1) {
    std::vector<uint32_t> mine(kBuckets, 0);
    for (size_t k = s0; k < s1; ++k)
      first_pass(result, reference, m, k * kSpan, std::min(n, (k + 1) * kSpan), spans[k], mine.data());
    const std::lock_guard<std::mutex> hold(lock);
    for (size_t b = 0; b < kBuckets; ++b) buckets[b] += mine[b];
  }, 1);
  Sums sums;
  for (const Sums& part : spans) sums.merge(part);

  ErrorStats s;
  s.rel_floor = m.floor();
  s.count = sums.count, s.nan = sums.nan, s.inf = sums.inf;
  s.saturated = sums.saturated, s.flushed = sums.flushed;
  ErrorHistograms empty;
  // +-max |e| (an error can overflow to inf between two finite values: then the bins stop
  // at 1e307, whose edges are still finite, and it counts above them).
  const double span = sums.max_abs > 0 ? std::min(sums.max_abs, 1e307) : 1.0;
  empty.signed_error = linear_bins(-span, span, 41);
  empty.relative = log_bins_auto(sums.min_pos_rel, sums.top_rel, 4);
  empty.ulps = log_bins_auto(sums.min_pos_ulp, sums.top_ulp, 8);
  if (histograms) *histograms = empty;
  if (s.count == 0) return s;

  const double c = static_cast<double>(s.count);
  s.max_abs = sums.max_abs, s.max_rel = sums.max_rel, s.max_ulp = sums.max_ulp;
  s.min_bits = sums.min_bits;
  s.mean_abs = sums.sum_abs / c;
  s.rms_abs = std::sqrt(sums.sum_sq / c);
  s.mean_rel = sums.sum_rel / c;
  s.mean_ulp = sums.sum_ulp / c;
  s.mean_bits = sums.sum_bits / c;
  s.normwise_rel = sums.sum_ref_sq > 0 ? std::sqrt(sums.sum_sq / sums.sum_ref_sq)
                                       : (sums.sum_sq > 0 ? INFINITY : 0);
  s.sqnr_db = sums.sum_sq > 0 ? 10 * std::log10(sums.sum_ref_sq / sums.sum_sq) : INFINITY;

  const Ranks ranks = locate(sums, buckets);
  Gathered all;
  all.h = empty;
  parallel_for(n, 0, [&](size_t begin, size_t end) {
    Gathered mine;
    mine.h = empty;
    second_pass(result, reference, m, ranks, begin, end, mine, histograms != nullptr);
    const std::lock_guard<std::mutex> hold(lock);
    merge(all.h.signed_error, mine.h.signed_error);
    merge(all.h.relative, mine.h.relative);
    merge(all.h.ulps, mine.h.ulps);
    for (size_t q = 0; q < kQuantiles.size(); ++q)
      all.members[q].insert(all.members[q].end(), mine.members[q].begin(), mine.members[q].end());
  });
  if (histograms) *histograms = std::move(all.h);

  std::array<double, kQuantiles.size()> p{};
  for (size_t q = 0; q < kQuantiles.size(); ++q) {
    size_t owner = q;  // the first quantile sharing this bucket holds its members
    while (owner > 0 && ranks.bucket[owner - 1] == ranks.bucket[q]) --owner;
    auto& members = all.members[owner];
    std::nth_element(members.begin(), members.begin() + static_cast<std::ptrdiff_t>(ranks.within[q]),
                     members.end());
    p[q] = members[ranks.within[q]];
  }
  s.p50_abs = p[0];
  s.p90_abs = p[1];
  s.p99_abs = p[2];
  return s;
}

}  // namespace pl::experiment
