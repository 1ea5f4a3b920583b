// Histogram binning on hand-counted data.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/histogram.h"

namespace pl::experiment {
namespace {

TEST(Histogram, LinearBinsAreLeftClosedAndTheLastTakesItsEdge) {
  const std::vector<double> v = {-1, 0, 0.5, 1, 1.5, 2, 2, 3, std::nan("")};
  const Histogram h = linear_histogram(v, 0, 2, 4);  // [0,.5) [.5,1) [1,1.5) [1.5,2]
  ASSERT_EQ(h.counts.size(), 4u);
  EXPECT_EQ(h.counts, (std::vector<uint64_t>{1, 1, 1, 3}));
  EXPECT_EQ(h.below, 1u);
  EXPECT_EQ(h.above, 1u);
  EXPECT_EQ(h.nonfinite, 1u);
  EXPECT_EQ(h.total(), v.size());
  EXPECT_EQ(h.edges.front(), 0.0);
  EXPECT_EQ(h.edges.back(), 2.0);
}

// Bins a power of two wide over +-max rounded up to a whole bin: 32 to 64 of them, every edge a
// multiple of the width (exact), the range covering max and less than a bin past it.
TEST(Histogram, SignedErrorBinsArePowersOfTwoWideAndCoverTheRange) {
  for (double max : {1.0, 0.624457, 0.999, 3.87253e-05, 1e-300, 12345.678, 1e306}) {
    SCOPED_TRACE(max);
    const Histogram h = signed_error_bins(max);
    ASSERT_GE(h.counts.size(), 32u);
    ASSERT_LE(h.counts.size(), 64u);
    ASSERT_EQ(h.edges.size(), h.counts.size() + 1);
    const double width = h.edges[1] - h.edges[0];
    int e = 0;
    EXPECT_EQ(std::frexp(width, &e), 0.5);  // a power of two
    for (size_t i = 0; i < h.edges.size(); ++i) {
      EXPECT_EQ(h.edges[i], (static_cast<double>(i) - static_cast<double>(h.counts.size()) / 2) * width);
      EXPECT_EQ(h.edges[i], -h.edges[h.edges.size() - 1 - i]);
    }
    EXPECT_GE(h.edges.back(), max);
    EXPECT_LT(h.edges.back() - width, max);
    EXPECT_GE(width * 32, max);  // 2^(E-5) with 2^(E-1) <= max
    EXPECT_LT(width * 16, max + width);
  }
  // Degenerate ranges: +-1; past 1e307: +-1e307 rounded up, edges finite; a subnormal max: the
  // smallest subnormal as the width.
  for (double max : {0.0, -1.0, std::nan("")}) EXPECT_EQ(signed_error_bins(max).edges.back(), 1.0) << max;
  for (double max : {1e308, std::numeric_limits<double>::infinity()}) {
    const Histogram h = signed_error_bins(max);
    EXPECT_TRUE(std::isfinite(h.edges.front()) && std::isfinite(h.edges.back()));
    EXPECT_GE(h.edges.back(), 1e307);
  }
  const double tiny = 5 * std::numeric_limits<double>::denorm_min();
  const Histogram t = signed_error_bins(tiny);
  EXPECT_EQ(t.edges[1] - t.edges[0], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(t.edges.back(), tiny);
  EXPECT_EQ(t.counts.size(), 10u);
}

// Bug: bins over a subnormal range made bins / span overflow to inf, the first guess of a slot
// NaN and its conversion to an index garbage -- add() read far outside the edges and crashed
// (error statistics of results whose largest error is below ~1e-307 went there).
TEST(Histogram, LinearBinsOverASubnormalRangeCountEveryValue) {
  const double dn = std::numeric_limits<double>::denorm_min();
  Histogram h = linear_bins(-5 * dn, 5 * dn, 10);
  std::vector<double> values;
  for (int i = -5; i <= 5; ++i) values.push_back(i * dn);
  values.push_back(0.0), values.push_back(1.0);
  add(h, values);
  const std::vector<uint64_t> want = {1, 1, 1, 1, 1, 2, 1, 1, 1, 2};  // 0 twice; the last takes 5 dn
  EXPECT_EQ(h.counts, want);
  EXPECT_EQ(h.above, 1u);
}

TEST(Histogram, LogBinsSpanDecadesAndSetZerosApart) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {0, -3, 1e-5, 2e-4, 1e-3, 5e-2, 1, inf};
  const Histogram h = log_histogram(v, 1e-4, 1, 4);  // one bin per decade
  ASSERT_EQ(h.edges.size(), 5u);
  EXPECT_DOUBLE_EQ(h.edges[1], 1e-3);
  EXPECT_EQ(h.counts, (std::vector<uint64_t>{1, 1, 1, 1}));  // 2e-4 | 1e-3 | 5e-2 | 1
  EXPECT_EQ(h.zeros, 2u);
  EXPECT_EQ(h.below, 1u);
  EXPECT_EQ(h.nonfinite, 1u);
  EXPECT_EQ(h.total(), v.size());
}

TEST(Histogram, AutoRangeCoversTheDataInWholeOctaves) {
  const std::vector<double> v = {3e-9, 2e-7, 4e-4};
  const Histogram h = log_histogram_auto(v, 2);
  EXPECT_EQ(h.edges.front(), 0x1p-29);  // 1.86e-9 <= 3e-9
  EXPECT_EQ(h.edges.back(), 0x1p-11);   // 4e-4 < 4.88e-4
  EXPECT_EQ(h.counts.size(), 36u);
  EXPECT_EQ(h.edges[1], std::ldexp(std::sqrt(2.0), -29));
  EXPECT_EQ(h.below + h.above, 0u);
  uint64_t in = 0;
  for (auto c : h.counts) in += c;
  EXPECT_EQ(in, 3u);
  // A maximum that is a power of two ends the range (the last bin takes its right edge).
  EXPECT_EQ(log_bins_auto(0.3, 1.0, 1).edges, (std::vector<double>{0.25, 0.5, 1.0}));
}

// Bug: log bins were decades split in four, so a unit roundoff 2^-p fell inside a bin: the bar
// holding errors just below u was drawn across the u line and read as errors above it. Every
// power of two is an edge, at every bins-an-octave, and nearest rounding's relative errors
// (|fl(x) - x| / |x| <= u / (1 + u) < u) all count left of it.
TEST(Histogram, UnitRoundoffIsAnEdgeAndNearestRoundingStaysLeftOfIt) {
  for (int per_octave : {1, 2, 4}) {
    const Histogram h = log_bins_auto(1e-9, 0.9, per_octave);
    for (int p : {3, 8, 11, 24})
      EXPECT_NE(std::find(h.edges.begin(), h.edges.end(), std::ldexp(1.0, -p)), h.edges.end()) << per_octave << " " << p;
  }
  // Relative errors of rounding values with 12 fraction bits in [1, 2) to 8 significant bits
  // (bfloat16's): every one below u = 2^-8, and none in a bin at or right of u.
  const double u = 0x1p-8;
  std::vector<double> rel;
  for (int k = 1; k < 4096; k += 2) {
    const double x = 1 + k * 0x1p-12, q = std::nearbyint(x * 128) / 128;
    rel.push_back(std::fabs(q - x) / x);
  }
  const Histogram h = log_histogram_auto(rel, 1);
  ASSERT_NE(std::find(h.edges.begin(), h.edges.end(), u), h.edges.end());
  for (size_t b = 0; b < h.counts.size(); ++b) {
    if (h.edges[b] >= u) {
      EXPECT_EQ(h.counts[b], 0u) << h.edges[b];
    }
  }
}

// The binning's guesses (vectorised, approximate log10) never decide a bin: on values from
// every decade of float64, subnormals included, and on values exactly on edges, every count
// equals the one found by searching the edges.
TEST(Histogram, EveryValueLandsInTheBinItsEdgesSay) {
  std::mt19937_64 rng(11);
  std::vector<double> values;
  for (int i = 0; i < 20000; ++i)
    values.push_back(
        std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52, static_cast<int>(rng() % 2100) - 1075));
  for (int bins : {1, 7, 40, 600, 4000}) {
    for (const Histogram& empty : {log_bins(1e-320, 1e300, bins), linear_bins(-1e-300, 1e300, bins)}) {
      std::vector<double> with_edges = values;
      with_edges.insert(with_edges.end(), empty.edges.begin(), empty.edges.end());
      Histogram h = empty;
      add(h, with_edges);
      std::vector<uint64_t> expect(empty.counts.size(), 0);
      uint64_t outside = 0;
      for (double x : with_edges) {
        if (x < empty.edges.front() || x > empty.edges.back()) {
          ++outside;
          continue;
        }
        size_t b =
            static_cast<size_t>(std::upper_bound(empty.edges.begin(), empty.edges.end(), x) - empty.edges.begin()) - 1;
        ++expect[std::min(b, expect.size() - 1)];
      }
      EXPECT_EQ(h.counts, expect) << bins;
      EXPECT_EQ(h.below + h.above + h.zeros + h.nonfinite, outside) << bins;  // 2^1024 and up: inf
    }
  }
}

// OctaveBins counts values before their range is known and gives the very histogram
// log_bins_auto + add would: ranges from a fraction of a decade to hundreds, values on every
// edge and one pattern either side, the largest value exactly on an edge (the last bin takes
// its right edge), zeros, Inf and NaN; and it declines ranges past its table (a subnormal
// value takes the range below 2^-1022).
TEST(Histogram, OctaveBinsEqualTheTwoPassHistogram) {
  std::mt19937_64 rng(12);
  for (int per_octave : {1, 2, 4}) {
    const OctaveBins& bins = OctaveBins::get(per_octave);
    for (int trial = 0; trial < 60; ++trial) {
      const int d0 = static_cast<int>(rng() % 600) - 300, span = 1 + static_cast<int>(rng() % (trial < 30 ? 3 : 40));
      std::uniform_real_distribution<double> exponent(d0, std::min(d0 + span, 305));
      std::vector<double> values;
      for (int i = 0; i < 3000; ++i) values.push_back(std::pow(10.0, exponent(rng)));
      const Histogram edges = log_bins_auto(*std::min_element(values.begin(), values.end()),
                                            *std::max_element(values.begin(), values.end()), per_octave);
      for (double e : edges.edges)
        for (double v : {e, std::nextafter(e, 0.0), std::nextafter(e, INFINITY)}) values.push_back(v);
      if (trial % 3 == 0) values.push_back(edges.edges.back());  // the maximum on an edge
      if (trial % 2 == 0) values.insert(values.end(), {0.0, INFINITY, NAN, 0.0});
      std::vector<uint64_t> counts(bins.slots(), 0);
      uint64_t tiny = 0, zeros = 0, nonfinite = 0;
      double lo = INFINITY, hi = 0;
      for (double v : values) {
        if (OctaveBins::is_normal_positive(v)) ++counts[bins.slot(v)];
        else if (v == 0) ++zeros;
        else if (!std::isfinite(v)) ++nonfinite;
        else ++tiny;
        if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
      }
      const auto got = bins.histogram(counts, tiny, zeros, nonfinite, lo, hi);
      Histogram want = log_bins_auto(lo, hi, per_octave);
      add(want, values);
      ASSERT_TRUE(got) << per_octave << " " << d0 << " " << span;
      EXPECT_EQ(got->edges, want.edges);
      EXPECT_EQ(got->counts, want.counts) << per_octave << " " << d0 << " " << span;
      EXPECT_EQ(got->below, want.below);
      EXPECT_EQ(got->above, want.above);
      EXPECT_EQ(got->zeros, want.zeros);
      EXPECT_EQ(got->nonfinite, want.nonfinite);
    }
  }
  // Past the table (2^1023 and up): the caller bins the values the ordinary way.
  const OctaveBins& bins = OctaveBins::get(4);
  std::vector<uint64_t> counts(bins.slots(), 0);
  EXPECT_FALSE(bins.histogram(counts, 0, 0, 0, 1e300, 1.5e308));
  EXPECT_FALSE(bins.histogram(counts, 0, 0, 0, 1e-310, 1.0));
}

// slot_of names the count add() would raise, so that counts made elsewhere (error_stats adds
// whole groups of values at once) land where add() would have put each value: on edges, one
// pattern either side, outside, zeros and negatives on a log axis, Inf and NaN.
TEST(Histogram, SlotOfIsWhereAddCounts) {
  for (const Histogram& empty : {linear_bins(-3, 3, 41), log_bins(1e-3, 10, 16)}) {
    std::vector<double> values = {0.0, -0.0, -5, 5, INFINITY, -INFINITY, NAN, 1e-300, -1e-300};
    for (double e : empty.edges)
      for (double v : {e, std::nextafter(e, -INFINITY), std::nextafter(e, INFINITY)}) values.push_back(v);
    Histogram by_add = empty, by_slot = empty;
    add(by_add, values);
    for (double v : values) add_at(by_slot, slot_of(by_slot, v), 1);
    EXPECT_EQ(by_slot.counts, by_add.counts);
    EXPECT_EQ(by_slot.below, by_add.below);
    EXPECT_EQ(by_slot.above, by_add.above);
    EXPECT_EQ(by_slot.zeros, by_add.zeros);
    EXPECT_EQ(by_slot.nonfinite, by_add.nonfinite);
    EXPECT_EQ(slot_of(empty, NAN), nonfinite_slot(empty));
  }
}

// OctaveCounter, by blocks with some values left out or one at a time, and merged from two
// halves, gives add()'s histogram on log_bins_auto's bins; log_histogram_auto (which counts
// through it) too, and past the table (a subnormal) it falls back to the two passes.
TEST(Histogram, OctaveCounterEqualsAddOnTheAutoBins) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> exponent(-12, 3);
  std::vector<double> values;
  for (int i = 0; i < 10000; ++i) values.push_back((i % 9 == 0 ? -1 : 1) * std::pow(10.0, exponent(rng)));
  values.insert(values.end(), {0.0, INFINITY, NAN, 1e-5, 1e-2, 1000.0});
  std::vector<int64_t> take(values.size());
  std::vector<double> taken;
  for (size_t i = 0; i < values.size(); ++i) {
    take[i] = i % 5 == 1 ? 0 : -1;
    if (take[i]) taken.push_back(values[i]);
  }
  auto range = [](const std::vector<double>& v) {
    double lo = INFINITY, hi = 0;
    for (double x : v)
      if (x > 0 && std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
    return std::pair{lo, hi};
  };
  for (int per_octave : {1, 2, 4}) {
    SCOPED_TRACE(per_octave);
    const auto [lo, hi] = range(taken);
    Histogram want = log_bins_auto(lo, hi, per_octave);
    add(want, taken);
    OctaveCounter blocks(per_octave), one_by_one(per_octave), second_half(per_octave);
    const size_t half = values.size() / 2;
    blocks.add_block(values.data(), take.data(), half);
    second_half.add_block(values.data() + half, take.data() + half, values.size() - half);
    blocks.merge(second_half);
    for (double v : taken) one_by_one.add_block(&v, nullptr, 1);
    for (const OctaveCounter* c : {&blocks, &one_by_one}) {
      const auto got = c->histogram(lo, hi);
      ASSERT_TRUE(got);
      EXPECT_EQ(got->edges, want.edges);
      EXPECT_EQ(got->counts, want.counts);
      EXPECT_EQ(got->below, want.below);
      EXPECT_EQ(got->above, want.above);
      EXPECT_EQ(got->zeros, want.zeros);
      EXPECT_EQ(got->nonfinite, want.nonfinite);
    }
    const Histogram automatic = log_histogram_auto(taken, per_octave);
    EXPECT_EQ(automatic.edges, want.edges);
    EXPECT_EQ(automatic.counts, want.counts);
    EXPECT_EQ(automatic.zeros, want.zeros);
  }
  std::vector<double> with_subnormal = taken;
  with_subnormal.push_back(1e-310);
  const auto [lo, hi] = range(with_subnormal);
  Histogram want = log_bins_auto(lo, hi, 4);
  add(want, with_subnormal);
  const Histogram automatic = log_histogram_auto(with_subnormal, 4);
  EXPECT_EQ(automatic.edges, want.edges);
  EXPECT_EQ(automatic.counts, want.counts);
  EXPECT_EQ(automatic.below, want.below);
}

}  // namespace
}  // namespace pl::experiment
