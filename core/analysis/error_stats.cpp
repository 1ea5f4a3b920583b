#include "core/analysis/error_stats.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/analysis/device/error_element.h"
#include "core/analysis/error_passes.h"
#include "core/analysis/error_sums.h"
#include "core/analysis/histogram.h"
#include "core/analysis/select_magnitude.h"
#include "core/dtype/describe.h"
#include "core/util/parallel.h"
#include "core/util/target_clones.h"

// Two passes over the elements, each split between the CPU's threads, and nothing stored per
// element but the signed errors a caller asks for. The first sums and finds the ranges, counts
// the relative and ulp errors into every octave's bins (OctaveBins), and counts the signed
// errors by key (error_key: sign, exponent, four fraction bits), keeping each element's key
// (two bytes). Those key counts then give the whole signed histogram, whose bins are powers of
// two wide so that no edge runs through a key (signed_error_bins), and place each percentile
// rank of |e| in a key. The second pass reads the kept keys, not the values, and only gathers
// the elements of the percentile keys (a few percent) -- and, where the key counts
// could not give a histogram (an edge through a key in a subnormal range, log ranges past
// OctaveBins' table), bins those elements one by one. A million elements take a few
// milliseconds a pass instead of the tens that storing three arrays of per-element errors and
// sorting cost.

namespace pl::experiment {
namespace error_passes {

OutputMeasure output_measure(DType output, double rel_floor) {
  const FloatFormat& f = info(output).format;
  OutputMeasure m;
  m.element.floor = rel_floor > 0 ? rel_floor : std::ldexp(1.0, f.emin());
  m.element.emin = f.emin();
  m.element.emax = f.emax();
  m.element.mantissa_bits = f.mantissa_bits;
  m.element.normal_ulps = f.emin() - f.mantissa_bits >= -1022 && f.emax() - f.mantissa_bits <= 1022;
  m.top = max_finite(f);
  m.cap_bits = f.precision();
  return m;
}

FirstPass fresh_first_pass(const Comparison& c) {
  FirstPass f;
  if (c.histograms) f.rel.emplace(kRelPerOctave), f.ulps.emplace(kUlpPerOctave);
  if (c.bound) f.bound.emplace(*c.bound);
  return f;
}

}  // namespace error_passes

namespace {

using namespace error_passes;
using error_sums::BitsCap;
using error_sums::LaneSums;
using error_sums::Sums;

constexpr size_t kBlock = 2048;  // elements measured together before binning

// One block's per-element measures, in a loop with no branches and no reductions so that it
// vectorises (the divisions dominate, and run four to an AVX2 instruction; __restrict: without
// it GCC 12 will not): the signed error result - reference (every element's, NaN and Inf
// included), |e|, the relative error |e| / max(|ref|, floor), the error in ulps of the output
// format, whether both values are finite, and the error's key -- each by error_element.h's
// definition, the one the GPU's pass uses. kNormalUlps: whether the output's ulps are normal
// doubles (a constant here, so that error_in_ulps' choice folds away).
template <bool kNormalUlps>
PL_CLONES void measure_block(const double* __restrict result, const double* __restrict reference, size_t n,
                             const OutputMeasure& m, double* __restrict diff, double* __restrict e,
                             double* __restrict rel, double* __restrict ulps, int64_t* __restrict finite,
                             uint16_t* __restrict key) {
  ElementMeasure em = m.element;
  em.normal_ulps = kNormalUlps;
  for (size_t i = 0; i < n; ++i) {
    const double r = result[i], ref = reference[i];
    const bool both = compared_pair(r, ref);
    finite[i] = -static_cast<int64_t>(both);  // a mask
    diff[i] = r - ref;
    key[i] = both ? error_key(r - ref) : kNoErrorKey;
    const double ei = std::fabs(r - ref);
    e[i] = ei;
    rel[i] = relative_error(ei, ref, em.floor);
    ulps[i] = error_in_ulps(ei, std::bit_cast<uint64_t>(ref), em);
  }
}

void measure(const double* result, const double* reference, size_t n, const OutputMeasure& m, double* diff, double* e,
             double* rel, double* ulps, int64_t* finite, uint16_t* key) {
  if (m.element.normal_ulps) measure_block<true>(result, reference, n, m, diff, e, rel, ulps, finite, key);
  else measure_block<false>(result, reference, n, m, diff, e, rel, ulps, finite, key);
}

constexpr size_t kMaxComparisons = 8;  // made together; more go in groups

void merge_counts(FirstPass& into, const FirstPass& o) {
  for (size_t b = 0; b < kKeys; ++b) into.keys[b] += o.keys[b];
  if (into.rel) into.rel->merge(*o.rel), into.ulps->merge(*o.ulps);
  if (into.bound) into.bound->merge(*o.bound);
}

// Pass 1 over one span of elements, block by block, every comparison's block in turn (a block
// of an array shared by two comparisons is read from memory once). sums: one per comparison;
// counted: this thread's key and octave counts; keys_out: each comparison's error_key() of
// every element, written here for pass 2.
void first_pass(std::span<const Comparison> cs, const OutputMeasure& m, size_t begin, size_t end, Sums* sums,
                std::vector<FirstPass>& counted, uint16_t* const* keys_out) {
  LaneSums lanes[kMaxComparisons];  // on the stack: a heap block need not be aligned for the lanes
  std::vector<size_t> nan(cs.size(), 0), inf(cs.size(), 0);
  double diff[kBlock], errors[kBlock], relatives[kBlock], ulp_errors[kBlock];
  const BitsCap cap{m.cap_bits, std::ldexp(1.0, -static_cast<int>(m.cap_bits))};
  int64_t finite[kBlock];
  for (size_t b0 = begin; b0 < end; b0 += kBlock) {
    const size_t n = std::min(kBlock, end - b0);
    for (size_t c = 0; c < cs.size(); ++c) {
      const double* r = cs[c].result.data() + b0;
      const double* ref = cs[c].reference.data() + b0;
      // Straight into the caller's array when it wants the signed errors (no copy).
      double* d = cs[c].signed_errors.empty() ? diff : cs[c].signed_errors.data() + b0;
      uint16_t* key = keys_out[c] + b0;
      measure(r, ref, n, m, d, errors, relatives, ulp_errors, finite, key);
      reduce_block(r, ref, n, errors, relatives, ulp_errors, finite, m.top, cap, lanes[c]);
      int64_t all = -1;
      for (size_t i = 0; i < n; ++i) all &= finite[i];
      if (!all) [[unlikely]]
        for (size_t i = 0; i < n; ++i)
          if (!finite[i] && std::isfinite(ref[i])) ++(std::isnan(r[i]) ? nan[c] : inf[c]);
      // Counted apart from where the keys are found (histogram.cpp's add_values says why).
      uint32_t* keys = counted[c].keys.data();
      for (size_t i = 0; i < n; ++i) keys[key[i]] -= static_cast<uint32_t>(finite[i]);
      if (counted[c].rel) {
        counted[c].rel->add_block(relatives, finite, n);
        counted[c].ulps->add_block(ulp_errors, finite, n);
      }
      if (auto& bound = counted[c].bound) bound->add(b0, r, errors, n);
    }
  }
  for (size_t c = 0; c < cs.size(); ++c) {
    Sums s;
    lanes[c].fold_into(s);
    s.nan = nan[c], s.inf = inf[c];
    sums[c] = s;
  }
}

// Where the percentile ranks fall: the key of |e| (both signs' counts together) and the rank
// within it; the first quantile with that key gathers its members for every quantile there.
void locate(const Sums& s, const std::vector<uint32_t>& keys, Plan& k) {
  std::array<size_t, kQuantiles.size()> rank{};
  for (size_t q = 0; q < kQuantiles.size(); ++q)  // nearest rank, NumPy's "inverted_cdf"
    rank[q] =
        std::clamp<size_t>(static_cast<size_t>(std::ceil(kQuantiles[q] * static_cast<double>(s.count))), 1, s.count) -
        1;
  size_t below = 0, next = 0;
  for (size_t b = 0; b < kMagnitudes && next < kQuantiles.size(); ++b) {
    const size_t count = size_t{keys[b]} + size_t{keys[b | kMagnitudes]};
    while (next < kQuantiles.size() && rank[next] < below + count) {
      k.magnitude[next] = b;
      k.within[next] = rank[next] - below;
      ++next;
    }
    below += count;
  }
  for (size_t q = 0; q < kQuantiles.size(); ++q) {
    k.owner[q] = q;
    while (k.owner[q] > 0 && k.magnitude[k.owner[q] - 1] == k.magnitude[q]) --k.owner[q];
  }
}

// The signed histogram's counts of every key whose values all land in one slot, straight from
// pass 1's key counts; the other keys are marked kBinAlone. Whether any was.
bool bin_whole_keys(Histogram& h, const std::vector<uint32_t>& keys, double max_abs, std::vector<uint8_t>& action) {
  bool alone = false;
  for (size_t key = 0; key < kKeys; ++key) {
    if (keys[key] == 0) continue;
    // The key's magnitudes lie in [lo, hi) (positive) or (lo, hi] (negative: error_key), and no
    // compared error is larger than max_abs; an infinite lo means the values are that infinity
    // (the difference of two finite numbers is never NaN).
    const uint64_t magnitude = key & (kMagnitudes - 1);
    const double lo = std::bit_cast<double>(magnitude << 48), hi = std::bit_cast<double>((magnitude + 1) << 48);
    size_t a, b;
    if (std::isinf(lo)) {
      a = b = slot_of(h, key & kMagnitudes ? -lo : lo);
    } else if (key & kMagnitudes) {
      a = slot_of(h, -std::min(hi, max_abs));
      b = slot_of(h, -std::nextafter(lo, INFINITY));
    } else {
      a = slot_of(h, lo);
      b = slot_of(h, std::min(std::nextafter(hi, 0.0), max_abs));
    }
    if (a == b) {
      add_at(h, a, keys[key]);
    } else {
      action[key] |= kBinAlone;
      alone = true;
    }
  }
  return alone;
}

// Pass 2 over [begin, end), block by block, the block of every comparison with something to do
// in turn. It picks the elements by the keys pass 1 kept (keys: one array per comparison) and
// reads the values of those only: measuring every element again, as it once did, read the
// values from memory a second time for a few percent of them.
void second_pass(std::span<const Comparison> cs, const OutputMeasure& m, std::span<const Plan> plans, size_t begin,
                 size_t end, const uint16_t* const* keys, std::vector<Gathered>& g) {
  double alone[kBlock], member[kQuantiles.size()][kBlock];
  uint32_t picked[kBlock];
  for (size_t b0 = begin; b0 < end; b0 += kBlock) {
    const size_t n = std::min(kBlock, end - b0);
    for (size_t c = 0; c < cs.size(); ++c) {
      if (!plans[c].needed) continue;
      const double* r = cs[c].result.data() + b0;
      const double* ref = cs[c].reference.data() + b0;
      const uint8_t* action = plans[c].action.data();
      const uint16_t* key = keys[c] + b0;
      // The block's elements with something to do (a few percent), without a branch per
      // element; a group of kGroup with none among them (most) is passed over after one test.
      constexpr size_t kGroup = 8;
      size_t count = 0, i = 0;
      for (; i + kGroup <= n; i += kGroup) {
        uint8_t any = 0;
        for (size_t j = 0; j < kGroup; ++j) any |= action[key[i + j]];
        if (!any) continue;
        for (size_t j = i; j < i + kGroup; ++j) {
          picked[count] = static_cast<uint32_t>(j);
          count += action[key[j]] != 0;
        }
      }
      for (; i < n; ++i) {
        picked[count] = static_cast<uint32_t>(i);
        count += action[key[i]] != 0;
      }
      // Sorted into the elements binned alone and each quantile's members without a branch
      // (both outcomes are common: a branch mispredicts on most of them).
      size_t n_alone = 0;
      std::array<size_t, kQuantiles.size()> n_member{};
      // Their values are scattered and out of cache: each is asked for a few elements ahead.
      constexpr size_t kAhead = 8;
      for (size_t p = 0; p < count; ++p) {
        if (p + kAhead < count)
          __builtin_prefetch(r + picked[p + kAhead]), __builtin_prefetch(ref + picked[p + kAhead]);
        const size_t i = picked[p];
        const uint8_t a = action[key[i]];
        const double e = r[i] - ref[i];  // as measure_block takes it
        alone[n_alone] = e;
        n_alone += a & kBinAlone;
        for (size_t q = 0; q < kQuantiles.size(); ++q) {
          member[q][n_member[q]] = std::fabs(e);
          n_member[q] += (a >> 1) == q + 1;
        }
      }
      add(g[c].h.signed_error, {alone, n_alone});
      for (size_t q = 0; q < kQuantiles.size(); ++q)
        g[c].members[q].insert(g[c].members[q].end(), member[q], member[q] + n_member[q]);
      if (plans[c].log_histograms) {
        double diff[kBlock], errors[kBlock], rel[kBlock], ulps[kBlock];
        int64_t finite[kBlock];
        uint16_t unused_keys[kBlock];
        measure(r, ref, n, m, diff, errors, rel, ulps, finite, unused_keys);
        size_t kept = 0;
        for (size_t j = 0; j < n; ++j)
          if (finite[j]) rel[kept] = rel[j], ulps[kept] = ulps[j], ++kept;
        add(g[c].h.relative, {rel, kept});
        add(g[c].h.ulps, {ulps, kept});
      }
    }
  }
}

// The statistics from pass 1's sums (everything but the percentiles).
ErrorStats from_sums(const Sums& sums, const OutputMeasure& m) {
  ErrorStats s;
  s.rel_floor = m.element.floor;
  s.count = sums.count, s.nan = sums.nan, s.inf = sums.inf;
  s.saturated = sums.saturated, s.flushed = sums.flushed;
  if (s.count == 0) return s;
  const double c = static_cast<double>(s.count);
  s.max_abs = sums.max_abs, s.max_rel = sums.max_rel, s.max_ulp = sums.max_ulp;
  // Bits of agreement fall as the relative error grows: the fewest are the largest error's.
  s.min_bits = std::clamp(-std::log2(sums.max_rel), 0.0, m.cap_bits);
  s.mean_abs = sums.sum_abs / c;
  s.rms_abs = std::sqrt(sums.sum_sq / c);
  s.mean_rel = sums.sum_rel / c;
  s.mean_ulp = sums.sum_ulp / c;
  s.mean_bits = sums.sum_bits / c;
  s.normwise_rel = sums.sum_ref_sq > 0 ? std::sqrt(sums.sum_sq / sums.sum_ref_sq) : (sums.sum_sq > 0 ? INFINITY : 0);
  s.sqnr_db = sums.sum_sq > 0 ? 10 * std::log10(sums.sum_ref_sq / sums.sum_sq) : INFINITY;
  return s;
}

}  // namespace

namespace error_passes {

Plan plan(const Comparison& c, const FirstPass& first, const OutputMeasure& m) {
  Plan p;
  const Sums& sums = first.sums;
  p.stats = from_sums(sums, m);
  // (An error can overflow to inf between two finite values: then the bins stop at about
  // 1e307, whose edges are still finite, and it counts as not finite.)
  p.empty.signed_error = signed_error_bins(sums.max_abs);
  p.empty.relative = log_bins_auto(sums.min_pos_rel, sums.top_rel, kRelPerOctave);
  p.empty.ulps = log_bins_auto(sums.min_pos_ulp, sums.top_ulp, kUlpPerOctave);
  p.histograms = p.empty;
  if (p.stats.count == 0) return p;  // nothing for pass 2
  // The log histograms from pass 1's counts, or (a range past OctaveBins' table) from pass 2.
  if (first.rel) {
    p.relative = first.rel->histogram(sums.min_pos_rel, sums.top_rel);
    p.ulps = first.ulps->histogram(sums.min_pos_ulp, sums.top_ulp);
    p.log_histograms = !p.relative || !p.ulps;
  }
  locate(sums, first.keys, p);
  for (size_t q = 0; q < kQuantiles.size(); ++q) {
    if (p.owner[q] != q) continue;  // an earlier quantile's key: gathered there
    const size_t key = p.magnitude[q];
    const auto tag = static_cast<uint8_t>((q + 1) << 1);
    p.action[key] |= tag;
    p.action[key | kMagnitudes] |= tag;
    p.needed = true;
  }
  if (c.histograms && bin_whole_keys(p.histograms.signed_error, first.keys, sums.max_abs, p.action)) p.needed = true;
  p.needed |= p.log_histograms;
  return p;
}

void Gathered::merge(const Gathered& o) {
  experiment::merge(h.signed_error, o.h.signed_error);
  experiment::merge(h.relative, o.h.relative);
  experiment::merge(h.ulps, o.h.ulps);
  for (size_t q = 0; q < kQuantiles.size(); ++q)
    members[q].insert(members[q].end(), o.members[q].begin(), o.members[q].end());
}

ErrorStats finish(const Comparison& c, size_t n, Plan& p, Gathered& g, const FirstPass& first) {
  // (The arrays only when the check must read them again: a device's comparison holds none.)
  if (c.bound && c.bound_check) {
    const bool reread = first.bound->needs_arrays();
    *c.bound_check = first.bound->finish(reread ? c.result.first(n) : std::span<const double>(),
                                         reread ? c.reference.first(n) : std::span<const double>());
  }
  if (ErrorHistograms* h = c.histograms) {
    *h = std::move(p.histograms);
    experiment::merge(h->signed_error, g.h.signed_error);
    if (p.relative && p.ulps) {
      h->relative = std::move(*p.relative), h->ulps = std::move(*p.ulps);
    } else {
      experiment::merge(h->relative, g.h.relative);
      experiment::merge(h->ulps, g.h.ulps);
    }
  }
  // The percentiles: a selection among each key's members (tens of thousands at a million
  // elements).
  ErrorStats stats = p.stats;
  if (stats.count == 0) return stats;
  std::array<double, kQuantiles.size()> v{};
  for (size_t q = 0; q < kQuantiles.size(); ++q) v[q] = select_nonnegative(g.members[p.owner[q]], p.within[q]);
  stats.p50_abs = v[0];
  stats.p90_abs = v[1];
  stats.p99_abs = v[2];
  return stats;
}

}  // namespace error_passes

std::string not_finite_text(const ErrorStats& s) {
  const size_t bad = s.nan + s.inf;
  return bad == 0 ? "-" : std::to_string(bad) + " of " + std::to_string(bad + s.count);
}

std::string ulps_text(double ulps) { return ulps_text(ulps, ulps); }

std::string ulps_text(double ulps, double column_largest) {
  // A nonzero error is never written as an exact result reads ("0.00" for 1.2e-4 ulps).
  if (column_largest < 1e6 && ulps > 0 && ulps < 0.005) return "<0.01";
  char text[32];
  std::snprintf(text, sizeof text, column_largest < 1e6 ? "%.2f" : "%.3e", ulps);
  return text;
}

ErrorStats error_stats(std::span<const double> result, std::span<const double> reference, DType output,
                       double rel_floor) {
  return error_stats(result, reference, output, rel_floor, nullptr);
}

ErrorStats error_stats(std::span<const double> result, std::span<const double> reference, DType output,
                       double rel_floor, ErrorHistograms* histograms) {
  const Comparison one{result, reference, histograms, {}};
  return error_stats(std::span(&one, 1), output, rel_floor).front();
}

std::vector<ErrorStats> error_stats(std::span<const Comparison> cs, DType output, double rel_floor) {
  if (cs.size() > kMaxComparisons) {  // in groups
    std::vector<ErrorStats> stats = error_stats(cs.first(kMaxComparisons), output, rel_floor);
    const std::vector<ErrorStats> rest = error_stats(cs.subspan(kMaxComparisons), output, rel_floor);
    stats.insert(stats.end(), rest.begin(), rest.end());
    return stats;
  }
  const OutputMeasure m = output_measure(output, rel_floor);
  size_t n = cs.empty() ? 0 : std::min(cs[0].result.size(), cs[0].reference.size());
  for (const Comparison& c : cs) n = std::min({n, c.result.size(), c.reference.size()});
  const size_t comparisons = cs.size();
  std::mutex lock;

  // Pass 1. Floating-point sums per span of kSpan elements, added in order afterwards: the
  // statistics do not depend on how many threads ran.
  const size_t spans = (n + kSpan - 1) / kSpan;
  std::vector<Sums> span_sums(comparisons * spans);  // [span][comparison]
  auto fresh_counts = [&] {
    std::vector<FirstPass> counted;
    for (const Comparison& c : cs) counted.push_back(fresh_first_pass(c));
    return counted;
  };
  std::vector<FirstPass> first = fresh_counts();
  // Every element's error key, kept for pass 2 (uninitialised: pass 1 writes each one).
  std::vector<std::unique_ptr<uint16_t[]>> kept_keys(comparisons);
  std::vector<uint16_t*> keys(comparisons);
  for (size_t c = 0; c < comparisons; ++c) kept_keys[c].reset(new uint16_t[n]), keys[c] = kept_keys[c].get();
  parallel_for(
      spans, 0,
      [&](size_t s0, size_t s1) {
        std::vector<FirstPass> mine = fresh_counts();
        for (size_t k = s0; k < s1; ++k)
          first_pass(cs, m, k * kSpan, std::min(n, (k + 1) * kSpan), &span_sums[k * comparisons], mine, keys.data());
        const std::lock_guard<std::mutex> hold(lock);
        for (size_t c = 0; c < comparisons; ++c) merge_counts(first[c], mine[c]);
      },
      1);

  // Between the passes: each comparison's statistics, histogram ranges and the signed histogram
  // from the key counts, the percentiles' keys, and what is left for pass 2.
  std::vector<Plan> plans(comparisons);
  bool second = false;
  for (size_t c = 0; c < comparisons; ++c) {
    for (size_t k = 0; k < spans; ++k) first[c].sums.merge(span_sums[k * comparisons + c]);
    plans[c] = plan(cs[c], first[c], m);
    second |= plans[c].needed;
  }

  // Pass 2, when anything is left for it.
  std::vector<Gathered> all(comparisons);
  for (size_t c = 0; c < comparisons; ++c) all[c].h = plans[c].empty;
  if (second)
    parallel_for(n, 0, [&](size_t begin, size_t end) {
      std::vector<Gathered> mine(comparisons);
      for (size_t c = 0; c < comparisons; ++c) mine[c].h = plans[c].empty;
      second_pass(cs, m, plans, begin, end, keys.data(), mine);
      const std::lock_guard<std::mutex> hold(lock);
      for (size_t c = 0; c < comparisons; ++c) all[c].merge(mine[c]);
    });

  // The percentiles (a selection each), the comparisons split between the threads.
  std::vector<ErrorStats> stats(comparisons);
  parallel_for(
      comparisons, 0,
      [&](size_t c0, size_t c1) {
        for (size_t c = c0; c < c1; ++c) stats[c] = finish(cs[c], n, plans[c], all[c], first[c]);
      },
      n >= (size_t{1} << 16) ? 1 : comparisons);
  return stats;
}

}  // namespace pl::experiment
