#include "core/analysis/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>

#include "core/util/parallel.h"
#include "core/util/target_clones.h"

namespace pl::experiment {
namespace {

// log10(x) to within ~0.0023 for positive normal doubles, from the exponent bits and a
// quadratic in the mantissa, without branches or conversions AVX2 lacks (the exponent
// becomes a double by the 2^52 trick): only a first guess of the bin (the edges decide).
inline double approx_log10(double x) {
  const uint64_t b = std::bit_cast<uint64_t>(x);
  const double exponent =
      std::bit_cast<double>(0x4330000000000000ull | (b >> 52)) - 4503599627371519.0;  // - (2^52 + 1023)
  const double f = std::bit_cast<double>((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull) - 1.0;
  const double log2_mant = f * (1.3465553 - 0.3465553 * f);  // log2(1 + f), f in [0, 1)
  return (exponent + log2_mant) * 0.30102999566398120;
}

// What a block's first pass found, for the rarer passes that follow it.
enum GuessFlags : unsigned { kAnySpecial = 1, kAnyTiny = 2 };

// First guesses of the slots of x[0, n): values outside [lo, hi] (and NaN) are marked special
// and guessed as lo; float64 subnormals (guessed as the smallest normal, maybe several bins
// off) are flagged. Built with -fno-trapping-math, it vectorises.
template <bool Log>
PL_CLONES unsigned guess_slots(const double* x, size_t n, double lo, double hi, double origin, double per_unit,
                               double last, int32_t* slot, uint8_t* special) {
  uint8_t any_special = 0, tiny = 0;  // bytes, not bools: an OR of bytes vectorises
  for (size_t i = 0; i < n; ++i) {
    const bool in = x[i] >= lo && x[i] <= hi;
    special[i] = !in;
    any_special |= static_cast<uint8_t>(!in);
    double v = in ? x[i] : lo;
    if constexpr (Log) {
      tiny |= static_cast<uint8_t>(v < 0x1p-1022);
      v = approx_log10(std::max(v, 0x1p-1022));
    }
    const double pos = (v - origin) * per_unit;
    // Clamped so that a NaN guess (per_unit infinite: bins over a subnormal range) becomes 0.
    slot[i] = static_cast<int32_t>(pos > 0 ? (pos < last ? pos : last) : 0.0);
  }
  return (any_special ? kAnySpecial : 0u) | (tiny ? kAnyTiny : 0u);
}

// Moves each guess by at most one bin, to where the edges put the value (left-closed bins;
// `below`, the first slot past the bins, is never entered here).
PL_CLONES void correct_slots(const double* x, size_t n, const double* edges, int32_t below, int32_t* slot) {
  for (size_t i = 0; i < n; ++i) {
    int32_t b = slot[i];
    b -= static_cast<int32_t>(b > 0) & static_cast<int32_t>(x[i] < edges[b]);
    b += static_cast<int32_t>(b + 1 < below) & static_cast<int32_t>(x[i] >= edges[b + 1]);
    slot[i] = b;
  }
}

// Adds values to a histogram. Each value's bin is first guessed from the bin formula, then
// moved until the edges themselves agree (left-closed bins; the last one includes its right
// edge), so bins match the edges exactly whatever rounding made them.
// Three simple passes over blocks of values, each one a loop the CPU runs without stalls:
// guess every slot (a bin, or one of four slots past the bins for below / above / zero / not
// finite), correct the guesses against the edges, count the slots into four interleaved
// sets of counters. Doing all three per value is several times slower: a count's load runs ahead
// of earlier stores whose addresses are still being computed, and the CPU must undo it
// whenever two neighbouring values share a bin, which is most of the time.
void add_values(Histogram& h, std::span<const double> values) {
  const bool log = h.scale == BinScale::Log10;
  const size_t bins = h.counts.size();
  const double* edges = h.edges.data();
  const double lo = edges[0], hi = edges[bins];
  const double origin = log ? std::log10(lo) : lo;
  const double span = (log ? std::log10(hi) : hi) - origin;
  const double per_unit = static_cast<double>(bins) / span;
  const double last = static_cast<double>(bins - 1);
  // A guess is off by at most one bin when the bins are wider than twice the guess's error:
  // approx_log10's 0.0023 decades; rounding only for linear bins.
  // (Bins over a subnormal range can make bins / span overflow: every guess is then 0, and the
  // edges alone place the values.)
  const bool one_step = (!log || span / static_cast<double>(bins) > 0.005) && std::isfinite(per_unit);
  const int32_t below = static_cast<int32_t>(bins), above = below + 1, zero = below + 2, nonfinite = below + 3;
  constexpr size_t kWays = 4, kBlock = 2048;
  const size_t slots = bins + 4;
  std::vector<uint64_t> ways(kWays * slots, 0);
  uint64_t* way[kWays];
  for (size_t w = 0; w < kWays; ++w) way[w] = ways.data() + w * slots;
  int32_t slot[kBlock];
  uint8_t special[kBlock];
  for (size_t b0 = 0; b0 < values.size(); b0 += kBlock) {
    const size_t n = std::min(kBlock, values.size() - b0);
    const double* x = values.data() + b0;
    const unsigned found = log ? guess_slots<true>(x, n, lo, hi, origin, per_unit, last, slot, special)
                               : guess_slots<false>(x, n, lo, hi, origin, per_unit, last, slot, special);
    correct_slots(x, n, edges, below, slot);
    if (!one_step || (found & kAnyTiny))
      for (size_t i = 0; i < n; ++i) {
        while (slot[i] > 0 && x[i] < edges[slot[i]]) --slot[i];
        while (slot[i] + 1 < below && x[i] >= edges[slot[i] + 1]) ++slot[i];
      }
    if (found & kAnySpecial)
      for (size_t i = 0; i < n; ++i)
        if (special[i])
          slot[i] = !std::isfinite(x[i]) ? nonfinite : log && x[i] <= 0 ? zero : x[i] < lo ? below : above;
    size_t i = 0;
    for (; i + kWays <= n; i += kWays)
      for (size_t w = 0; w < kWays; ++w) ++way[w][slot[i + w]];
    for (; i < n; ++i) ++way[0][slot[i]];
  }
  for (size_t w = 0; w < kWays; ++w) {
    const uint64_t* c = way[w];
    for (size_t b = 0; b < bins; ++b) h.counts[b] += c[b];
    h.below += c[static_cast<size_t>(below)];
    h.above += c[static_cast<size_t>(above)];
    h.zeros += c[static_cast<size_t>(zero)];
    h.nonfinite += c[static_cast<size_t>(nonfinite)];
  }
}

}  // namespace

uint64_t Histogram::total() const {
  uint64_t n = below + above + zeros + nonfinite;
  for (uint64_t c : counts) n += c;
  return n;
}

Histogram linear_bins(double lo, double hi, int bins) {
  Histogram h;
  bins = std::max(bins, 1);
  if (!(lo < hi)) hi = lo + 1;  // a degenerate range still gets a usable bin
  // (hi - lo) * i could overflow for huge ranges; i / bins cannot.
  for (int i = 0; i <= bins; ++i) h.edges.push_back(lo + (hi - lo) * (static_cast<double>(i) / bins));
  h.edges.back() = hi;
  h.counts.assign(static_cast<size_t>(bins), 0);
  return h;
}

Histogram signed_error_bins(double max_abs) {
  if (!(max_abs > 0) || !std::isfinite(max_abs)) max_abs = max_abs > 0 ? 1e307 : 1.0;
  max_abs = std::min(max_abs, 1e307);
  int e = 0;
  std::frexp(max_abs, &e);  // 2^(e-1) <= max_abs < 2^e
  // A subnormal max_abs: bins no narrower than the smallest subnormal (narrower than the values
  // sharing a top 16 bits there, 2^-1026: error_stats then bins those values one by one).
  const double width = std::ldexp(1.0, std::max(e - 5, -1074));
  const int half = std::max(1, static_cast<int>(std::ceil(max_abs / width)));  // 16 to 32 for normal max_abs
  Histogram h;
  for (int i = -half; i <= half; ++i) h.edges.push_back(i * width);  // exact: |i| <= 32
  h.counts.assign(static_cast<size_t>(2 * half), 0);
  return h;
}

Histogram log_bins(double lo, double hi, int bins) {
  Histogram h;
  h.scale = BinScale::Log10;
  bins = std::max(bins, 1);
  if (!(lo > 0)) lo = 1e-300;
  if (!(lo < hi)) hi = lo * 10;
  const double a = std::log10(lo), b = std::log10(hi);
  for (int i = 0; i <= bins; ++i) h.edges.push_back(std::pow(10.0, a + (b - a) * i / bins));
  h.edges.front() = lo;
  h.edges.back() = hi;
  h.counts.assign(static_cast<size_t>(bins), 0);
  return h;
}

double octave_edge(int u, int per_octave) {
  const int q = u >= 0 ? u / per_octave : -((-u + per_octave - 1) / per_octave);  // floor(u / per_octave)
  const int r = u - q * per_octave;
  return std::ldexp(r == 0 ? 1.0 : std::exp2(static_cast<double>(r) / per_octave), q);
}

Histogram log_bins_auto(double min_positive, double max_positive, int bins_per_octave) {
  bins_per_octave = std::max(bins_per_octave, 1);
  int o0 = -1, o1 = 0;  // 1/2 to 1 when there is no positive value
  if (max_positive > 0 && min_positive > 0 && std::isfinite(max_positive) && std::isfinite(min_positive)) {
    std::frexp(min_positive, &o0);  // 2^(o0 - 1) <= min_positive < 2^o0
    --o0;
    std::frexp(max_positive, &o1);  // max_positive < 2^o1, or 2^(o1 - 1) when it is a power of two
    if (max_positive == std::ldexp(1.0, o1 - 1)) --o1;
    o1 = std::max(o1, o0 + 1);
    o1 = std::min(o1, 1024);
  }
  Histogram h;
  h.scale = BinScale::Log10;
  const int bins = (o1 - o0) * bins_per_octave;
  for (int u = 0; u <= bins; ++u) h.edges.push_back(octave_edge(o0 * bins_per_octave + u, bins_per_octave));
  // 2^1024 is past float64: the last edge becomes its largest finite value.
  if (!std::isfinite(h.edges.back())) h.edges.back() = std::numeric_limits<double>::max();
  h.counts.assign(static_cast<size_t>(bins), 0);
  return h;
}

void add(Histogram& h, std::span<const double> values) {
  if (!h.counts.empty()) add_values(h, values);
}

size_t slot_of(const Histogram& h, double x) {
  const size_t bins = h.counts.size();
  if (!std::isfinite(x)) return bins + 3;
  if (h.scale == BinScale::Log10 && x <= 0) return bins + 2;
  if (x < h.edges.front()) return bins;
  if (x > h.edges.back()) return bins + 1;
  // The last edge not above x (left-closed bins); the last bin also takes its right edge.
  const auto after = std::upper_bound(h.edges.begin(), h.edges.end(), x);
  return std::min(static_cast<size_t>(after - h.edges.begin()) - 1, bins - 1);
}

void add_at(Histogram& h, size_t slot, uint64_t count) {
  const size_t bins = h.counts.size();
  if (slot < bins) h.counts[slot] += count;
  else if (slot == bins) h.below += count;
  else if (slot == bins + 1) h.above += count;
  else if (slot == bins + 2) h.zeros += count;
  else h.nonfinite += count;
}

void merge(Histogram& into, const Histogram& from) {
  for (size_t b = 0; b < into.counts.size() && b < from.counts.size(); ++b) into.counts[b] += from.counts[b];
  into.below += from.below;
  into.above += from.above;
  into.zeros += from.zeros;
  into.nonfinite += from.nonfinite;
}

Histogram linear_histogram(std::span<const double> values, double lo, double hi, int bins) {
  Histogram h = linear_bins(lo, hi, bins);
  add(h, values);
  return h;
}

Histogram log_histogram(std::span<const double> values, double lo, double hi, int bins) {
  Histogram h = log_bins(lo, hi, bins);
  add(h, values);
  return h;
}

// Both passes split between the CPU's threads (a million values is the usual size here): the
// range, then the counts, each thread's into a histogram of its own, merged after.
Histogram log_histogram_auto(std::span<const double> values, int bins_per_octave) {
  std::mutex lock;
  double lo = INFINITY, hi = 0;
  // One pass when the bins are OctaveBins' (1, 2 or 4 an octave): the counts and the range
  // together, the bins cut out after; else (or when the range leaves the table) the range first
  // and then the counts.
  const bool tabled = bins_per_octave == 1 || bins_per_octave == 2 || bins_per_octave == 4;
  std::optional<OctaveCounter> counted;
  if (tabled) counted.emplace(bins_per_octave);
  parallel_for(values.size(), 0, [&](size_t b, size_t e) {
    double mine_lo = INFINITY, mine_hi = 0;
    for (size_t i = b; i < e; ++i) {
      const double x = values[i];
      const bool use = x > 0 && x <= std::numeric_limits<double>::max();
      mine_lo = std::min(mine_lo, use ? x : INFINITY);
      mine_hi = std::max(mine_hi, use ? x : 0.0);
    }
    std::optional<OctaveCounter> mine;
    if (tabled) {
      mine.emplace(bins_per_octave);
      mine->add_block(values.data() + b, nullptr, e - b);
    }
    const std::lock_guard hold(lock);
    lo = std::min(lo, mine_lo), hi = std::max(hi, mine_hi);
    if (mine) counted->merge(*mine);
  });
  if (counted)
    if (auto h = counted->histogram(lo, hi)) return std::move(*h);
  Histogram h = log_bins_auto(lo, hi, bins_per_octave);
  const Histogram empty = h;
  parallel_for(values.size(), 0, [&](size_t b, size_t e) {
    Histogram mine = empty;
    add(mine, values.subspan(b, e - b));
    const std::lock_guard hold(lock);
    merge(h, mine);
  });
  return h;
}

OctaveBins::OctaveBins(int per_octave) : per_octave_(per_octave) {
  for (int u = kFirstOctave * per_octave; u <= kLastOctave * per_octave; ++u) edges_.push_back(octave_edge(u, per_octave));
  // Walk the keys upwards; `next` is the first edge not below the current key's smallest value.
  size_t next = 0;
  constexpr uint64_t kNoEdge = kLowBits + 1;
  if (slots() >= (size_t{1} << (64 - kSlotShift))) std::abort();  // a slot fits its 15 bits
  entry_.assign(0x8000, kNoEdge);
  for (uint64_t key = kFirstKey; key <= kLastKey; ++key) {
    const uint64_t lo = key << 48, hi = lo | 0x0000ffffffffffffull;
    while (next < edges_.size() && std::bit_cast<uint64_t>(edges_[next]) < lo) ++next;
    // Values under edge `next` lie between edges next - 1 and next (slot 0: under the first);
    // the edge may be the key's smallest value itself (1, 10 and 100 are).
    uint64_t edge = kNoEdge;
    if (next < edges_.size() && std::bit_cast<uint64_t>(edges_[next]) <= hi) {
      edge = std::bit_cast<uint64_t>(edges_[next]) & kLowBits;
      // One edge per entry: bins are wider than an entry (a factor of 2^(1/4) against 17/16).
      if (next + 1 < edges_.size() && std::bit_cast<uint64_t>(edges_[next + 1]) <= hi) std::abort();
    }
    entry_[key] = (uint64_t{2 * next} << kSlotShift) | edge;
  }
}

// Each table is built on its first use only (one is ~33k entries).
const OctaveBins& OctaveBins::get(int per_octave) {
  switch (per_octave) {
    case 1: {
      static const OctaveBins one(1);
      return one;
    }
    case 2: {
      static const OctaveBins two(2);
      return two;
    }
    default: {
      static const OctaveBins four(4);
      return four;
    }
  }
}

OctaveCounter::OctaveCounter(int per_octave)
    : bins_(&OctaveBins::get(per_octave)), stride_(bins_->counted_slots()), counts_(kSets * stride_, 0) {}

PL_CLONES void OctaveBins::slots_of(const double* __restrict v, const int64_t* __restrict take, size_t n, uint32_t past,
                                    uint32_t* __restrict out) const {
  const uint64_t* __restrict entries = entry_.data();
  for (size_t i = 0; i < n; ++i) out[i] = octave_slot(v[i], take[i] != 0, entries, past);
}

void OctaveCounter::add_block(const double* v, const int64_t* take, size_t n) {
  constexpr size_t kBlock = 1024;
  uint32_t slot_of_value[kBlock];
  int64_t every[kBlock];
  if (!take) std::fill(every, every + kBlock, -1);
  for (size_t b0 = 0; b0 < n; b0 += kBlock) {
    const size_t m = std::min(kBlock, n - b0);
    bins_->slots_of(v + b0, take ? take + b0 : every, m, static_cast<uint32_t>(tiny()), slot_of_value);
    // Neighbours often share a slot: each of four consecutive values counts in its own set, so
    // that one increment need not wait for the previous one's store.
    uint64_t* set[kSets];
    for (size_t s = 0; s < kSets; ++s) set[s] = counts_.data() + s * stride_;
    size_t i = 0;
    for (; i + kSets <= m; i += kSets)
      for (size_t s = 0; s < kSets; ++s) ++set[s][slot_of_value[i + s]];
    for (; i < m; ++i) ++set[0][slot_of_value[i]];
  }
}

void OctaveCounter::add_counts(std::span<const uint64_t> per_slot) {
  for (size_t i = 0; i < std::min(stride_, per_slot.size()); ++i) counts_[i] += per_slot[i];
}

void OctaveCounter::merge(const OctaveCounter& o) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];  // set by set
}

std::optional<Histogram> OctaveCounter::histogram(double min_positive, double max_positive) const {
  const size_t t = tiny();
  std::vector<uint64_t> total(counts_.begin(), counts_.begin() + static_cast<std::ptrdiff_t>(stride_));
  for (size_t s = 1; s < kSets; ++s)
    for (size_t i = 0; i < stride_; ++i) total[i] += counts_[s * stride_ + i];
  return bins_->histogram(std::span(total).first(t), total[t], total[t + 1], total[t + 2], min_positive, max_positive);
}

std::optional<Histogram> OctaveBins::histogram(std::span<const uint64_t> counts, uint64_t tiny, uint64_t zeros,
                                               uint64_t nonfinite, double min_positive, double max_positive) const {
  Histogram h = log_bins_auto(min_positive, max_positive, per_octave_);
  // Where h's first edge is among ours, and whether all of h's edges are ours, bit for bit.
  const auto first = std::lower_bound(edges_.begin(), edges_.end(), h.edges.front());
  if (first == edges_.end() || static_cast<size_t>(edges_.end() - first) < h.edges.size()) return std::nullopt;
  for (size_t i = 0; i < h.edges.size(); ++i)
    if (std::bit_cast<uint64_t>(first[static_cast<std::ptrdiff_t>(i)]) != std::bit_cast<uint64_t>(h.edges[i]))
      return std::nullopt;
  const size_t u0 = static_cast<size_t>(first - edges_.begin()), bins = h.counts.size();
  h.below = tiny;
  for (size_t slot = 0; slot < 2 * u0 + 1; ++slot) h.below += counts[slot];  // under h's first edge
  for (size_t b = 0; b < bins; ++b) h.counts[b] = counts[2 * (u0 + b) + 1] + counts[2 * (u0 + b) + 2];
  h.counts[bins - 1] += counts[2 * (u0 + bins) + 1];  // the last bin takes its right edge
  for (size_t slot = 2 * (u0 + bins) + 2; slot < counts.size(); ++slot) h.above += counts[slot];
  h.zeros = zeros;
  h.nonfinite = nonfinite;
  return h;
}

}  // namespace pl::experiment
