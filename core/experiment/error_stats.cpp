#include "core/experiment/error_stats.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

#include "core/dtype/describe.h"
#include "core/experiment/histogram.h"
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
  // Every ulp of the format and its reciprocal are normal float64 numbers (all formats but
  // float64 itself and ones with float64's exponent range).
  bool normal_ulps() const {
    return format_.emin() - format_.mantissa_bits >= -1022 && format_.emax() - format_.mantissa_bits <= 1022;
  }
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
                             double* __restrict ulps, int64_t* __restrict finite) {
  const double floor = m.floor();
  const int64_t emin = m.emin(), emax = m.emax(), mantissa = m.mantissa_bits();
  for (size_t i = 0; i < n; ++i) {
    const double r = result[i], ref = reference[i];
    const uint64_t rb = std::bit_cast<uint64_t>(r), fb = std::bit_cast<uint64_t>(ref);
    constexpr uint64_t kExp = 0x7ff0000000000000ull;
    finite[i] = -static_cast<int64_t>(((rb & kExp) != kExp) & ((fb & kExp) != kExp));  // a mask
    const double ei = std::fabs(r - ref);
    e[i] = ei;
    const double a = std::fabs(ref);
    rel[i] = ei / (a < floor ? floor : a);
    if constexpr (kNormalUlps) {
      int64_t q = static_cast<int64_t>((fb >> 52) & 0x7ff) - 1023;
      q = q < emin ? emin : q;
      q = q > emax ? emax : q;
      // Times 1 / ulp rather than divided by it: both round the same real number ei / ulp once,
      // since the ulp and its reciprocal are exact powers of two, and a product is cheaper.
      ulps[i] = ei * std::bit_cast<double>(static_cast<uint64_t>(mantissa - q + 1023) << 52);
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
             double* ulps, int64_t* finite) {
  if (m.normal_ulps()) measure_block<true>(result, reference, n, m, e, rel, ulps, finite);
  else measure_block<false>(result, reference, n, m, e, rel, ulps, finite);
}

// Pass 1's reductions over one block of measured elements, four lanes at a time in GCC's
// vector types (GCC will not reorder one floating-point sum, so it cannot vectorise the plain
// loop; these are kLanes sums side by side, spelled out). Elements that are not finite add
// nothing here (they are counted as NaN or Inf apart). The lanes are folded in a fixed order
// afterwards, so the result depends on the data only, never on the thread count.
constexpr size_t kLanes = 4;
using Vd = double __attribute__((vector_size(8 * kLanes)));
using Vi = int64_t __attribute__((vector_size(8 * kLanes)));

inline Vd load(const double* p) {
  Vd v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline Vd select(Vi mask, Vd yes, Vd no) { return mask ? yes : no; }
inline Vd vmin(Vd a, Vd b) { return b < a ? b : a; }
inline Vd vmax(Vd a, Vd b) { return a < b ? b : a; }
inline Vd splat(double x) { return Vd{} + x; }

struct LaneSums {
  Vd sum_abs{}, sum_sq{}, sum_ref_sq{}, sum_rel{}, sum_ulp{}, sum_bits{};
  Vd max_abs{}, max_rel{}, max_ulp{}, top_rel{}, top_ulp{};
  Vd min_bits = splat(INFINITY), min_pos_rel = splat(INFINITY), min_pos_ulp = splat(INFINITY);
  Vi count{}, saturated{}, flushed{};

  void fold_into(Sums& s) const {
    for (size_t l = 0; l < kLanes; ++l) {
      s.count += static_cast<size_t>(-count[l]);
      s.saturated += static_cast<size_t>(-saturated[l]), s.flushed += static_cast<size_t>(-flushed[l]);
      s.sum_abs += sum_abs[l], s.sum_sq += sum_sq[l], s.sum_ref_sq += sum_ref_sq[l];
      s.sum_rel += sum_rel[l], s.sum_ulp += sum_ulp[l], s.sum_bits += sum_bits[l];
      s.min_bits = std::min(s.min_bits, min_bits[l]);
      s.max_abs = std::max(s.max_abs, max_abs[l]), s.max_rel = std::max(s.max_rel, max_rel[l]);
      s.max_ulp = std::max(s.max_ulp, max_ulp[l]);
      s.min_pos_rel = std::min(s.min_pos_rel, min_pos_rel[l]);
      s.min_pos_ulp = std::min(s.min_pos_ulp, min_pos_ulp[l]);
      s.top_rel = std::max(s.top_rel, top_rel[l]), s.top_ulp = std::max(s.top_ulp, top_ulp[l]);
    }
  }
};

// Elements [i, i + kLanes) into the lanes; finite is the measure's mask (all bits set or none).
inline void reduce_lanes(LaneSums& s, Vd r, Vd ref, Vd e, Vd rel, Vd ulps, Vd bits, Vi finite, Vd top) {
  const Vd zero{}, inf = splat(INFINITY), big = splat(std::numeric_limits<double>::max());
  e = select(finite, e, zero);
  rel = select(finite, rel, zero);
  ulps = select(finite, ulps, zero);
  const Vd a = select(finite, ref, zero);
  const Vd abs_r = std::bit_cast<Vd>(std::bit_cast<Vi>(r) & 0x7fffffffffffffff);
  const Vd abs_ref = std::bit_cast<Vd>(std::bit_cast<Vi>(ref) & 0x7fffffffffffffff);
  s.count += finite;  // -1 per element (masks), negated when folded
  s.saturated += finite & (abs_r == top) & (abs_ref > top);
  s.flushed += finite & (r == 0) & (ref != 0);
  s.sum_abs += e;
  s.sum_sq += e * e;
  s.sum_ref_sq += a * a;
  s.sum_rel += rel;
  s.sum_ulp += ulps;
  s.sum_bits += select(finite, bits, zero);
  s.min_bits = vmin(s.min_bits, select(finite, bits, inf));
  s.max_abs = vmax(s.max_abs, e);
  s.max_rel = vmax(s.max_rel, rel);
  s.max_ulp = vmax(s.max_ulp, ulps);
  s.min_pos_rel = vmin(s.min_pos_rel, select(rel > 0, rel, inf));
  s.min_pos_ulp = vmin(s.min_pos_ulp, select(ulps > 0, ulps, inf));
  s.top_rel = vmax(s.top_rel, select(rel <= big, rel, zero));
  s.top_ulp = vmax(s.top_ulp, select(ulps <= big, ulps, zero));
}

PL_CLONES void reduce_block(const double* result, const double* reference, size_t n, const double* e,
                            const double* rel, const double* ulps, const double* bits,
                            const int64_t* finite, double top, LaneSums& out) {
  LaneSums s = out;  // a local: kept in registers
  const Vd t = splat(top);
  size_t i = 0;
  auto mask = [](const int64_t* p) {
    Vi v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  for (; i + kLanes <= n; i += kLanes)
    reduce_lanes(s, load(result + i), load(reference + i), load(e + i), load(rel + i), load(ulps + i),
                 load(bits + i), mask(finite + i), t);
  if (i < n) {  // the last few, padded with elements that are not finite (they add nothing)
    double pad[6][kLanes]{};
    int64_t f[kLanes]{};
    for (size_t j = 0; i + j < n; ++j) {
      pad[0][j] = result[i + j], pad[1][j] = reference[i + j], pad[2][j] = e[i + j];
      pad[3][j] = rel[i + j], pad[4][j] = ulps[i + j], pad[5][j] = bits[i + j], f[j] = finite[i + j];
    }
    reduce_lanes(s, load(pad[0]), load(pad[1]), load(pad[2]), load(pad[3]), load(pad[4]), load(pad[5]),
                 mask(f), t);
  }
  out = s;
}

// Log bins a decade for relative errors and for errors in ulps.
constexpr int kRelPerDecade = 4, kUlpPerDecade = 8;

// The relative and ulp histograms' counts, made in pass 1 before their ranges are known: every
// decade's bins (DecadeBins), cut to the range afterwards. One per thread.
struct DecadeCounts {
  struct One {
    const DecadeBins& bins;
    std::vector<uint64_t> counts;
    uint64_t tiny = 0, zeros = 0, nonfinite = 0;
    explicit One(int per_decade) : bins(DecadeBins::get(per_decade)), counts(bins.slots(), 0) {}
    void add(double v) {
      if (DecadeBins::is_normal_positive(v)) [[likely]] ++counts[bins.slot(v)];
      else if (v == 0) ++zeros;
      else if (!(v <= std::numeric_limits<double>::max())) ++nonfinite;
      else ++tiny;  // a positive subnormal (the measures are never negative)
    }
    void merge(const One& o) {
      for (size_t i = 0; i < counts.size(); ++i) counts[i] += o.counts[i];
      tiny += o.tiny, zeros += o.zeros, nonfinite += o.nonfinite;
    }
    std::optional<Histogram> histogram(double min_positive, double max_positive) const {
      return bins.histogram(counts, tiny, zeros, nonfinite, min_positive, max_positive);
    }
  };
  One rel{kRelPerDecade}, ulps{kUlpPerDecade};
};

// buckets: counts of |e| by bucket_of(), added to (one array per thread); decades: the
// relative and ulp errors counted into DecadeBins (null: no histograms asked for).
void first_pass(std::span<const double> result, std::span<const double> reference, const Measure& m,
                size_t begin, size_t end, Sums& out, uint32_t* buckets, DecadeCounts* decades) {
  LaneSums lanes;
  size_t nan = 0, inf = 0;
  double errors[kBlock], relatives[kBlock], ulp_errors[kBlock], bits[kBlock];
  int64_t finite[kBlock];
  for (size_t b0 = begin; b0 < end; b0 += kBlock) {
    const size_t n = std::min(kBlock, end - b0);
    const double* r = result.data() + b0;
    const double* ref = reference.data() + b0;
    measure(r, ref, n, m, errors, relatives, ulp_errors, finite);
    bits_block(relatives, n, m.cap_bits(), bits);
    reduce_block(r, ref, n, errors, relatives, ulp_errors, bits, finite, m.top(), lanes);
    int64_t all = -1;
    for (size_t i = 0; i < n; ++i) all &= finite[i];
    if (!all) [[unlikely]]
      for (size_t i = 0; i < n; ++i)
        if (!finite[i] && std::isfinite(ref[i])) ++(std::isnan(r[i]) ? nan : inf);
    // Counted apart from where the keys are found (histogram.cpp's add_values says why).
    for (size_t i = 0; i < n; ++i) buckets[bucket_of(errors[i])] -= static_cast<uint32_t>(finite[i]);
    if (decades)
      for (size_t i = 0; i < n; ++i)
        if (finite[i]) [[likely]] {
          decades->rel.add(relatives[i]);
          decades->ulps.add(ulp_errors[i]);
        }
  }
  Sums s;
  lanes.fold_into(s);
  s.nan = nan, s.inf = inf;
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

// log_histograms: bin the relative and ulp errors here too (when pass 1's decade counts could
// not give their histograms); else only |e| and the signed errors are measured.
void second_pass(std::span<const double> result, std::span<const double> reference, const Measure& m,
                 const Ranks& ranks, size_t begin, size_t end, Gathered& g, bool histograms, bool log_histograms) {
  double signed_e[kBlock], errors[kBlock], rel[kBlock], ulps[kBlock];
  int64_t finite[kBlock];
  for (size_t b0 = begin; b0 < end; b0 += kBlock) {
    const size_t n = std::min(kBlock, end - b0);
    if (log_histograms) measure(result.data() + b0, reference.data() + b0, n, m, errors, rel, ulps, finite);
    size_t kept = 0;
    for (size_t j = 0; j < n; ++j) {
      const double r = result[b0 + j], ref = reference[b0 + j];
      if (!std::isfinite(r) || !std::isfinite(ref)) [[unlikely]] continue;  // the measure's mask
      const double e = r - ref;
      if (log_histograms) rel[kept] = rel[j], ulps[kept] = ulps[j];
      signed_e[kept++] = e;
      const uint16_t key = bucket_of(std::fabs(e));
      for (size_t q = 0; q < kQuantiles.size(); ++q)
        if (key == ranks.bucket[q]) {  // the first quantile with this bucket keeps its members
          g.members[q].push_back(std::fabs(e));
          break;
        }
    }
    if (!histograms) continue;
    add(g.h.signed_error, {signed_e, kept});
    if (log_histograms) {
      add(g.h.relative, {rel, kept});
      add(g.h.ulps, {ulps, kept});
    }
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
  std::optional<DecadeCounts> decades;
  if (histograms) decades.emplace();
  parallel_for(spans.size(), 0, [&](size_t s0, size_t s1) {
    std::vector<uint32_t> mine(kBuckets, 0);
    std::optional<DecadeCounts> my_decades;
    if (histograms) my_decades.emplace();
    for (size_t k = s0; k < s1; ++k)
      first_pass(result, reference, m, k * kSpan, std::min(n, (k + 1) * kSpan), spans[k], mine.data(),
                 my_decades ? &*my_decades : nullptr);
    const std::lock_guard<std::mutex> hold(lock);
    for (size_t b = 0; b < kBuckets; ++b) buckets[b] += mine[b];
    if (my_decades) decades->rel.merge(my_decades->rel), decades->ulps.merge(my_decades->ulps);
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
  empty.relative = log_bins_auto(sums.min_pos_rel, sums.top_rel, kRelPerDecade);
  empty.ulps = log_bins_auto(sums.min_pos_ulp, sums.top_ulp, kUlpPerDecade);
  if (histograms) *histograms = empty;
  if (s.count == 0) return s;
  // The log histograms from pass 1's counts, or (a range past DecadeBins' table) from pass 2.
  std::optional<Histogram> relative, ulps;
  if (decades) {
    relative = decades->rel.histogram(sums.min_pos_rel, sums.top_rel);
    ulps = decades->ulps.histogram(sums.min_pos_ulp, sums.top_ulp);
  }
  const bool log_in_pass_2 = histograms && (!relative || !ulps);

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
    second_pass(result, reference, m, ranks, begin, end, mine, histograms != nullptr, log_in_pass_2);
    const std::lock_guard<std::mutex> hold(lock);
    merge(all.h.signed_error, mine.h.signed_error);
    merge(all.h.relative, mine.h.relative);
    merge(all.h.ulps, mine.h.ulps);
    for (size_t q = 0; q < kQuantiles.size(); ++q)
      all.members[q].insert(all.members[q].end(), mine.members[q].begin(), mine.members[q].end());
  });
  if (histograms) {
    *histograms = std::move(all.h);
    if (!log_in_pass_2) histograms->relative = std::move(*relative), histograms->ulps = std::move(*ulps);
  }

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
