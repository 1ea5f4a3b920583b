// Error statistics on hand-worked examples, each number derived in the comment beside it.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/error_passes.h"
#include "core/analysis/error_stats.h"
#include "core/analysis/histogram.h"
#include "core/analysis/select_magnitude.h"
#include "core/dtype/describe.h"

namespace pl::experiment {
namespace {

TEST(ErrorStats, HandWorkedExample) {
  // Errors 0, 0.5, -1, 2 against references 1, 2, 4, 8 (float32 output).
  const std::vector<double> ref = {1, 2, 4, 8}, got = {1, 2.5, 3, 10};
  const ErrorStats s = error_stats(got, ref, DType::float32);
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.max_abs, 2.0);
  EXPECT_DOUBLE_EQ(s.mean_abs, (0 + 0.5 + 1 + 2) / 4.0);
  EXPECT_DOUBLE_EQ(s.rms_abs, std::sqrt((0 + 0.25 + 1 + 4) / 4.0));
  EXPECT_DOUBLE_EQ(s.max_rel, 0.25);  // 0.5/2 = 1/4 = 2/8 = 0.25
  EXPECT_DOUBLE_EQ(s.mean_rel, (0 + 0.25 + 0.25 + 0.25) / 4.0);
  EXPECT_DOUBLE_EQ(s.normwise_rel, std::sqrt(5.25 / 85.0));  // ||e||^2 = 5.25, ||ref||^2 = 85
  EXPECT_DOUBLE_EQ(s.sqnr_db, 10 * std::log10(85.0 / 5.25));
  // float32 ulp at 2 is 2^-22: 0.5 is 2^21 ulps; at 4, 2^-21: 1 is 2^21; at 8, 2^-20: 2 is 2^21.
  EXPECT_DOUBLE_EQ(s.max_ulp, std::ldexp(1.0, 21));
  EXPECT_DOUBLE_EQ(s.mean_ulp, 3 * std::ldexp(1.0, 21) / 4);
  EXPECT_DOUBLE_EQ(s.min_bits, 2.0);                      // -log2(1/4)
  EXPECT_DOUBLE_EQ(s.mean_bits, (24.0 + 2 + 2 + 2) / 4);  // exact agreement counts as 24 bits
  // Nearest-rank percentiles of the sorted |e| = 0, 0.5, 1, 2.
  EXPECT_DOUBLE_EQ(s.p50_abs, 0.5);
  EXPECT_DOUBLE_EQ(s.p90_abs, 2.0);
}

TEST(ErrorStats, PercentilesAreTheNearestRanksOfTheSortedErrors) {
  // Many equal errors, exact zeros, values in one narrow bucket and across decades: the
  // bucketed selection must give what sorting gives.
  std::mt19937_64 rng(3);
  for (size_t n : {1, 2, 7, 100, 1001, 50000}) {
    std::vector<double> ref(n, 0.0), got(n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t r = rng();
      const double e = r % 5 == 0   ? 0.0
                       : r % 5 == 1 ? 0.25
                       : r % 5 == 2 ? 1.0 + (r >> 40) * 0x1p-40
                                    : std::ldexp(1.0, static_cast<int>(r >> 58) - 30);
      got[i] = (r >> 1) & 1 ? e : -e;
    }
    const ErrorStats s = error_stats(got, ref, DType::float64);
    std::vector<double> sorted;
    for (double g : got) sorted.push_back(std::fabs(g));
    std::sort(sorted.begin(), sorted.end());
    auto rank = [&](double q) {
      return sorted[std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(n)))) - 1];
    };
    EXPECT_EQ(s.p50_abs, rank(0.50)) << n;
    EXPECT_EQ(s.p90_abs, rank(0.90)) << n;
    EXPECT_EQ(s.p99_abs, rank(0.99)) << n;
  }
}

// A key of tens of thousands of members, radix-selected: negative errors on the key's upper edge
// (|e| = 1.0625, which error_key() files under [1, 1.0625) when e < 0) are its largest members,
// though their leading 16 bits are the next key's.
TEST(ErrorStats, PercentilesInALargeKeyCountItsUpperEdgeLast) {
  std::mt19937_64 rng(5);
  const size_t n = 40000;
  std::vector<double> ref(n, 0.0), got(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    got[i] = r % 10 == 0 ? -1.0625 : ((r >> 1) & 1 ? 1.0 : -1.0) * (1.0 + (r >> 20) * 0x1p-48);
  }
  const ErrorStats s = error_stats(got, ref, DType::float64);
  std::vector<double> sorted;
  for (double g : got) sorted.push_back(std::fabs(g));
  std::sort(sorted.begin(), sorted.end());
  auto rank = [&](double q) { return sorted[static_cast<size_t>(std::ceil(q * double(n))) - 1]; };
  EXPECT_EQ(s.p50_abs, rank(0.50));
  EXPECT_EQ(s.p90_abs, rank(0.90));
  EXPECT_EQ(s.p99_abs, 1.0625);
  EXPECT_EQ(s.p99_abs, rank(0.99));
}

TEST(SelectNonnegative, GivesWhatSortingGives) {
  std::mt19937_64 rng(7);
  for (size_t n : {1, 5, 4096, 4097, 30000, 200000}) {
    std::vector<double> v(n);
    for (double& x : v) {
      const uint64_t r = rng();
      x = r % 7 == 0    ? 0.0
          : r % 7 == 1  ? 3.0
          : r % 7 == 2  ? 0x1p-1070 * double(r % 9)  // zeros, ties, subnormals
          : r % 97 == 3 ? INFINITY
                        : std::ldexp(1.0 + (r >> 12) * 0x1p-52, int(r % 40) - 20);
    }
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k : {size_t{0}, n / 3, n / 2, n - 1}) EXPECT_EQ(select_nonnegative(v, k), sorted[k]) << n << " " << k;
  }
  const std::vector<double> same(10000, 0.5);  // every byte alike
  EXPECT_EQ(select_nonnegative(same, 9999), 0.5);
}

TEST(ErrorStats, HistogramsCountEveryComparedElementEvenWhenErrorsOverflow) {
  // 1e308 - (-1e308) overflows to inf between two finite numbers; ulps of float64 at a tiny
  // reference overflow too. Every compared element still lands somewhere, and edges are finite.
  const std::vector<double> ref = {-1e308, 1e-310, 1.0, 2.0}, got = {1e308, 1e300, 1.5, 2.0};
  ErrorHistograms h;
  const ErrorStats s = error_stats(got, ref, DType::float64, 0, &h);
  EXPECT_EQ(s.count, 4u);
  for (const Histogram* x : {&h.signed_error, &h.relative, &h.ulps}) {
    EXPECT_EQ(x->total(), 4u);
    for (double e : x->edges) EXPECT_TRUE(std::isfinite(e));
  }
}

TEST(ErrorStats, CountsWhatWentWrongOutright) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> ref = {1e6, 70000, 1e-9, 1, 3};
  // float16: 1e6 overflowed to inf, 70000 saturated at 65504, 1e-9 flushed, then a NaN.
  const std::vector<double> got = {inf, 65504, 0, std::nan(""), 3};
  const ErrorStats s = error_stats(got, ref, DType::float16);
  EXPECT_EQ(s.inf, 1u);
  EXPECT_EQ(s.saturated, 1u);
  EXPECT_EQ(s.flushed, 1u);
  EXPECT_EQ(s.nan, 1u);
  EXPECT_EQ(s.count, 3u);  // 70000, 1e-9 and 3 are measured
}

TEST(ErrorStats, RelativeFloorAndExactResults) {
  const std::vector<double> ref = {0.0, 1.0}, got = {1e-3, 1.0};
  const ErrorStats s = error_stats(got, ref, DType::float32, 1e-2);
  EXPECT_DOUBLE_EQ(s.max_rel, 1e-3 / 1e-2);  // the floor, not 0, divides
  const ErrorStats exact = error_stats(ref, ref, DType::bfloat16);
  EXPECT_EQ(exact.max_abs, 0.0);
  EXPECT_TRUE(std::isinf(exact.sqnr_db));
  EXPECT_DOUBLE_EQ(exact.min_bits, 8.0);  // bfloat16's precision
}

// The ulps above come from describe.h's ulp_at, the one `cast` reports with.
TEST(ErrorStats, UlpAtFollowsTheFormatsSpacing) {
  const FloatFormat& h = info(DType::float16).format;
  EXPECT_EQ(ulp_at(h, 1.0), std::ldexp(1.0, -10));
  EXPECT_EQ(ulp_at(h, 1e-7), std::ldexp(1.0, -24));  // subnormal range: fixed spacing
  EXPECT_EQ(ulp_at(h, 1e9), std::ldexp(1.0, 5));     // beyond max: the top binade's spacing
  EXPECT_EQ(ulp_at(h, 0.0), std::ldexp(1.0, -24));
}

}  // namespace
}  // namespace pl::experiment

namespace pl::experiment {
namespace {

// The vectorised block loops (measure_block, bits_block) against the definitions one element
// at a time, on the awkward cases: zero and float64-subnormal references (ulps clamp to the
// format's emin), exact results (bits capped at the precision), errors that overflow to inf
// between finite values (0 bits), and float64 outputs, whose smallest ulps are subnormal.
TEST(ErrorStats, BlockLoopsAgreeWithThePerElementDefinitions) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  std::vector<double> ref = {0.0, tiny, -3 * tiny, 1e-310, 1.0, -1.5, 3e38, 1e300, -1e308, 7.25};
  std::vector<double> got = {1e-30, 0.0, tiny, 2e-310, 1.0, -1.25, 3.1e38, 1.0000001e300, 1e308, 7.0};
  std::mt19937_64 g(7);
  std::normal_distribution<double> d;
  for (int i = 0; i < 5000; ++i) {  // past one block, so every path runs in the block loops
    const double r = d(g) * std::ldexp(1.0, static_cast<int>(d(g) * 8));
    ref.push_back(r);
    got.push_back(i % 7 == 0 ? r : r * (1 + d(g) * 1e-4));
  }
  for (DType out : {DType::float32, DType::bfloat16, DType::float8_e4m3fn, DType::float64}) {
    SCOPED_TRACE(std::string(name(out)));
    const FloatFormat& f = info(out).format;
    const double floor = std::ldexp(1.0, f.emin());
    double max_ulp = 0, sum_ulp = 0, sum_bits = 0, min_bits = INFINITY;
    for (size_t i = 0; i < ref.size(); ++i) {
      const double e = std::fabs(got[i] - ref[i]);
      const double rel = e / std::max(std::fabs(ref[i]), floor);
      const double ulps = e / ulp_at(f, ref[i]);
      const double bits = e == 0 ? f.precision() : std::clamp(-std::log2(rel), 0.0, double(f.precision()));
      max_ulp = std::max(max_ulp, ulps);
      sum_ulp += ulps;
      sum_bits += bits;
      min_bits = std::min(min_bits, bits);
    }
    const ErrorStats s = error_stats(got, ref, out);
    ASSERT_EQ(s.count, ref.size());
    EXPECT_EQ(s.max_ulp, max_ulp);  // exact: the same divisions by powers of two
    EXPECT_DOUBLE_EQ(s.mean_ulp, sum_ulp / double(ref.size()));
    // No logarithm per element (exponents summed, fractions multiplied): within rounding.
    EXPECT_NEAR(s.mean_bits, sum_bits / double(ref.size()), 1e-12);
    EXPECT_EQ(s.min_bits, min_bits);  // the largest relative error's, by the same log2
  }
}

// The three histograms equal the ones made the plain way from each element's errors (ranges
// from the extremes, then add()): the relative and ulp ones come from pass 1's octave counts
// (OctaveBins) and the signed one from pass 1's key counts -- on data with exact results (zero errors),
// errors on octave edges, an overflowing error and, for float64 outputs, ulps below float64's
// normal range (the octave table declines those and pass 2 bins them as before).
TEST(ErrorStats, HistogramsEqualThePlainBinningOfEachElement) {
  std::mt19937_64 g(9);
  std::normal_distribution<double> d;
  std::vector<double> ref, got;
  for (int i = 0; i < 20000; ++i) {
    const double r = d(g) * std::ldexp(1.0, static_cast<int>(d(g) * 6));
    ref.push_back(r);
    got.push_back(i % 5 == 0 ? r : r * (1 + d(g) * 1e-3));
  }
  ref.insert(ref.end(), {1.0, 1.0, 10.0, -1e308, 1.0, 4.0, 0.5});
  // relative errors near 0.1, 0.01; an Inf error; relative errors 2^-1, 2^-2, 2^-3 on edges
  got.insert(got.end(), {1.1, 1.01, 11.0, 1e308, 1.5, 5.0, 0.5625});
  for (DType out : {DType::float32, DType::bfloat16, DType::float16, DType::float64}) {
    SCOPED_TRACE(std::string(name(out)));
    const FloatFormat& f = info(out).format;
    const double floor = std::ldexp(1.0, f.emin());
    std::vector<double> signed_e, rel, ulps;
    for (size_t i = 0; i < ref.size(); ++i) {
      const double e = std::fabs(got[i] - ref[i]);
      signed_e.push_back(got[i] - ref[i]);
      rel.push_back(e / std::max(std::fabs(ref[i]), floor));
      ulps.push_back(e / ulp_at(f, ref[i]));
    }
    auto positive_range = [](const std::vector<double>& v) {
      double lo = INFINITY, hi = 0;
      for (double x : v)
        if (x > 0 && std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
      return std::pair{lo, hi};
    };
    double max_abs = 0;
    for (double e : signed_e) max_abs = std::max(max_abs, std::fabs(e));
    Histogram want_signed = signed_error_bins(max_abs);
    add(want_signed, signed_e);
    const auto [rlo, rhi] = positive_range(rel);
    Histogram want_rel = log_bins_auto(rlo, rhi, error_passes::kRelPerOctave);
    add(want_rel, rel);
    const auto [ulo, uhi] = positive_range(ulps);
    Histogram want_ulps = log_bins_auto(ulo, uhi, error_passes::kUlpPerOctave);
    add(want_ulps, ulps);
    ErrorHistograms h;
    error_stats(got, ref, out, 0, &h);
    for (const auto& [got_h, want_h] : {std::pair{&h.signed_error, &want_signed}, std::pair{&h.relative, &want_rel},
                                        std::pair{&h.ulps, &want_ulps}}) {
      EXPECT_EQ(got_h->edges, want_h->edges);
      EXPECT_EQ(got_h->counts, want_h->counts);
      EXPECT_EQ(got_h->below, want_h->below);
      EXPECT_EQ(got_h->above, want_h->above);
      EXPECT_EQ(got_h->zeros, want_h->zeros);
      EXPECT_EQ(got_h->nonfinite, want_h->nonfinite);
    }
  }
}

// The signed histogram comes from pass 1's counts by key; a key never straddles a bin, since
// bins are powers of two wide and negative keys hold [-hi, -lo) as bins do. Errors exactly on
// edges of either sign (ties of a rounding, say), -0, an error overflowing to -inf, and errors
// in subnormal ranges (there bins are narrower than a key, and pass 2 bins those elements one
// by one) all land where add() puts them.
TEST(ErrorStats, SignedHistogramCountsErrorsOnEdgesOfEitherSign) {
  std::mt19937_64 g(21);
  std::uniform_int_distribution<int> step(-20, 20);
  const double dn = std::numeric_limits<double>::denorm_min();
  struct Case {
    double unit;  // errors are multiples of it, up to 20 of them (2^-5: every error on an edge)
    bool overflow;
  };
  for (const Case& k :
       {Case{0x1p-5, false}, Case{3 * 0x1p-9, false}, Case{0x1p-5, true}, Case{dn, false}, Case{7 * dn, false}}) {
    SCOPED_TRACE(k.unit);
    std::vector<double> ref, got, e;
    for (int i = 0; i < 30000; ++i) {
      const double err = step(g) * k.unit;
      ref.push_back(k.unit < 1e-300 ? 0.0 : 1000.0 + i);  // ref + err exact either way
      got.push_back(ref.back() + err);
    }
    ref.push_back(0.0), got.push_back(-0.0);                      // -0 - 0 = -0: +0's bin
    if (k.overflow) ref.push_back(1e308), got.push_back(-1e308);  // -1e308 - 1e308 = -inf
    for (size_t i = 0; i < ref.size(); ++i) e.push_back(got[i] - ref[i]);
    double max_abs = 0;
    for (double x : e) max_abs = std::max(max_abs, std::fabs(x));
    Histogram want = signed_error_bins(max_abs);
    add(want, e);
    ErrorHistograms h;
    error_stats(got, ref, DType::float64, 0, &h);
    EXPECT_EQ(h.signed_error.edges, want.edges);
    EXPECT_EQ(h.signed_error.counts, want.counts);
    EXPECT_EQ(h.signed_error.below, want.below);
    EXPECT_EQ(h.signed_error.above, want.above);
    EXPECT_EQ(h.signed_error.nonfinite, want.nonfinite);
    EXPECT_EQ(h.signed_error.total(), ref.size());
  }
}

// Comparisons made together equal the same comparisons made one by one: every statistic, every
// histogram, and the signed errors written on the way -- over arrays shared between
// comparisons, one comparison with nothing finite to compare, more comparisons than one group
// takes, and enough elements to split between threads.
TEST(ErrorStats, ComparisonsMadeTogetherEqualThoseMadeAlone) {
  std::mt19937_64 g(21);
  std::normal_distribution<double> d;
  const size_t n = 200000;
  std::vector<double> a(n), b(n), c(n), nan(n, NAN);
  for (size_t i = 0; i < n; ++i) {
    a[i] = d(g);
    b[i] = a[i] * (1 + 1e-3 * d(g));
    c[i] = i % 3 ? b[i] + 1e-4 * d(g) : a[i];
  }
  std::vector<std::pair<const std::vector<double>*, const std::vector<double>*>> pairs = {
      {&b, &a}, {&c, &a}, {&c, &b}, {&nan, &a}, {&a, &b}, {&b, &c}, {&a, &c}, {&c, &c}, {&a, &nan}, {&b, &a}};
  std::vector<ErrorHistograms> together(pairs.size());
  std::vector<double> signed_errors(n);
  std::vector<Comparison> cs;
  for (size_t p = 0; p < pairs.size(); ++p)
    cs.push_back({*pairs[p].first, *pairs[p].second, &together[p],
                  p == 2 ? std::span<double>(signed_errors) : std::span<double>()});
  const std::vector<ErrorStats> stats = error_stats(cs, DType::bfloat16);
  ASSERT_EQ(stats.size(), pairs.size());
  for (size_t p = 0; p < pairs.size(); ++p) {
    SCOPED_TRACE(p);
    ErrorHistograms h;
    const ErrorStats alone = error_stats(*pairs[p].first, *pairs[p].second, DType::bfloat16, 0, &h);
    const ErrorStats& got = stats[p];
    EXPECT_EQ(got.count, alone.count);
    EXPECT_EQ(got.nan, alone.nan);
    EXPECT_EQ(got.inf, alone.inf);
    for (auto [x, y] : {std::pair{got.max_abs, alone.max_abs},
                        {got.mean_abs, alone.mean_abs},
                        {got.rms_abs, alone.rms_abs},
                        {got.p50_abs, alone.p50_abs},
                        {got.p90_abs, alone.p90_abs},
                        {got.p99_abs, alone.p99_abs},
                        {got.max_rel, alone.max_rel},
                        {got.mean_rel, alone.mean_rel},
                        {got.max_ulp, alone.max_ulp},
                        {got.mean_ulp, alone.mean_ulp},
                        {got.mean_bits, alone.mean_bits},
                        {got.min_bits, alone.min_bits},
                        {got.normwise_rel, alone.normwise_rel},
                        {got.sqnr_db, alone.sqnr_db}})
      EXPECT_EQ(std::bit_cast<uint64_t>(x), std::bit_cast<uint64_t>(y)) << x << " vs " << y;
    for (const auto& [x, y] : {std::pair{&together[p].signed_error, &h.signed_error},
                               {&together[p].relative, &h.relative},
                               {&together[p].ulps, &h.ulps}}) {
      EXPECT_EQ(x->edges, y->edges);
      EXPECT_EQ(x->counts, y->counts);
      EXPECT_EQ(x->total(), y->total());
    }
  }
  EXPECT_EQ(stats[3].count, 0u);
  EXPECT_EQ(stats[3].nan, n);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(std::bit_cast<uint64_t>(signed_errors[i]), std::bit_cast<uint64_t>(c[i] - b[i]));
}

// matmul's table printed a 1.9e9-ulp error of an element near zero as "1887748588.94", past its
// column; the window already switched to exponent form there.
TEST(ErrorStats, UlpsTextSwitchesToExponentFormPastAMillion) {
  EXPECT_EQ(ulps_text(0), "0.00");
  EXPECT_EQ(ulps_text(39424), "39424.00");
  EXPECT_EQ(ulps_text(999999.5), "999999.50");
  EXPECT_EQ(ulps_text(1887748588.94), "1.888e+09");
  EXPECT_EQ(ulps_text(std::numeric_limits<double>::infinity()), "inf");
  // In a column, every row takes the format of the column's largest.
  EXPECT_EQ(ulps_text(39424, 1.137e9), "3.942e+04");
  EXPECT_EQ(ulps_text(0, 1.137e9), "0.000e+00");
  EXPECT_EQ(ulps_text(0.5, 39424), "0.50");
  // Bug: a nonzero error under 0.005 ulps read "0.00", as an exact one does.
  EXPECT_EQ(ulps_text(1.2e-4, 0.5), "<0.01");
  EXPECT_EQ(ulps_text(0.005, 0.5), "0.01");
  EXPECT_EQ(ulps_text(0, 0.5), "0.00");
}

}  // namespace
}  // namespace pl::experiment
