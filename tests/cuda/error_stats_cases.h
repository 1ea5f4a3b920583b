// Comparisons for checking an error-statistics pass made elsewhere (the GPU's, or the host's run
// of its element functions) against the CPU's error_stats(): arrays holding what breaks such
// passes -- NaN and Inf on either side, zeros, float64 subnormals, saturated values, errors over
// two dozen decades, spans cut short -- and the checks: every count, extreme, histogram and
// percentile equal; the sums, added in another order, within a relative tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/analysis/bound_check.h"
#include "core/analysis/error_stats.h"

namespace pl::cuda::testing {

// Four arrays shaped as an experiment's attribution (m x n): a reference, a rounded one, an
// accumulated one and a result, plus |A||B| and a bias for the bound check.
struct AttributionArrays {
  size_t m = 0, n = 0;
  std::vector<double> ref, rq, acc, result, bias;
  std::vector<float> abs_product;
};

inline AttributionArrays attribution_arrays(size_t m, size_t n, uint64_t seed, bool specials) {
  AttributionArrays a;
  a.m = m, a.n = n;
  const size_t count = m * n;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> decade(-12, 12);
  a.ref.resize(count), a.rq.resize(count), a.acc.resize(count), a.result.resize(count);
  a.abs_product.resize(count), a.bias.resize(n);
  for (size_t j = 0; j < n; ++j) a.bias[j] = 0.01 * normal(rng);
  for (size_t i = 0; i < count; ++i) {
    const double r = normal(rng) * std::pow(10.0, decade(rng) / 4);
    a.ref[i] = r;
    a.rq[i] = r * (1 + 0x1p-9 * normal(rng));
    a.acc[i] = a.rq[i] * (1 + std::pow(10.0, decade(rng)) * 0x1p-24 * normal(rng));
    a.result[i] = static_cast<double>(static_cast<float>(a.acc[i]));
    a.abs_product[i] = static_cast<float>(std::fabs(r) * (1 + std::fabs(normal(rng))));
  }
  if (specials) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const double big = 3.4028234663852886e38;  // float32's largest
    auto at = [&](size_t i) { return i * 7919 % count; };
    for (size_t k = 0; k < count / 200; ++k) {
      a.result[at(5 * k)] = nan;                                         // a NaN result
      a.acc[at(5 * k + 1)] = inf, a.result[at(5 * k + 1)] = inf;         // overflow
      a.ref[at(5 * k + 2)] = 0, a.rq[at(5 * k + 2)] = 0;                 // zero references
      a.result[at(5 * k + 3)] = 0;                                       // flushed
      a.ref[at(5 * k + 4)] = 4e-320 * (1 + static_cast<double>(k % 5));  // float64 subnormals
    }
    a.ref[at(1)] = 1e39, a.result[at(1)] = big;       // saturated
    a.ref[at(2)] = nan;                               // a reference that is not a number
    a.abs_product[at(3)] = 0, a.bias[at(3) % n] = 0;  // a zero denominator
  }
  return a;
}

// The four comparisons of the attribution with histograms, the arithmetic one with the bound
// check; `h` and `check` receive what they ask for.
struct AttributionComparisons {
  experiment::ErrorHistograms h[4];
  experiment::BoundCheck check;
  experiment::BoundInputs bound;
  std::vector<experiment::Comparison> list;
};

inline void fill_comparisons(const AttributionArrays& a, AttributionComparisons& c) {
  c.bound = {a.abs_product, 0.999, a.bias, a.n, {1e-5, 1e-7}, {}};
  c.list = {{a.result, a.ref, &c.h[0]},
            {a.rq, a.ref, &c.h[1]},
            {a.acc, a.rq, &c.h[2], {}, &c.bound, &c.check},
            {a.result, a.acc, &c.h[3]}};
}

inline void expect_same_histogram(const experiment::Histogram& got, const experiment::Histogram& want,
                                  const std::string& what) {
  EXPECT_EQ(got.edges, want.edges) << what;
  EXPECT_EQ(got.counts, want.counts) << what;
  EXPECT_EQ(got.below, want.below) << what;
  EXPECT_EQ(got.above, want.above) << what;
  EXPECT_EQ(got.zeros, want.zeros) << what;
  EXPECT_EQ(got.nonfinite, want.nonfinite) << what;
}

// Sums added in another order: `tolerance` relative (both infinite, or both zero, pass).
inline void expect_close(double got, double want, double tolerance, const std::string& what) {
  if (std::isinf(want) || want == 0) {
    EXPECT_EQ(got, want) << what;
    return;
  }
  EXPECT_NEAR(got, want, tolerance * std::fabs(want)) << what;
}

inline void expect_same_stats(const experiment::ErrorStats& got, const experiment::ErrorStats& want,
                              const std::string& what, double tolerance = 1e-9) {
  EXPECT_EQ(got.count, want.count) << what;
  EXPECT_EQ(got.nan, want.nan) << what;
  EXPECT_EQ(got.inf, want.inf) << what;
  EXPECT_EQ(got.saturated, want.saturated) << what;
  EXPECT_EQ(got.flushed, want.flushed) << what;
  EXPECT_EQ(got.max_abs, want.max_abs) << what;
  EXPECT_EQ(got.max_rel, want.max_rel) << what;
  EXPECT_EQ(got.max_ulp, want.max_ulp) << what;
  EXPECT_EQ(got.min_bits, want.min_bits) << what;
  EXPECT_EQ(got.rel_floor, want.rel_floor) << what;
  EXPECT_EQ(got.p50_abs, want.p50_abs) << what;
  EXPECT_EQ(got.p90_abs, want.p90_abs) << what;
  EXPECT_EQ(got.p99_abs, want.p99_abs) << what;
  expect_close(got.mean_abs, want.mean_abs, tolerance, what + " mean_abs");
  expect_close(got.rms_abs, want.rms_abs, tolerance, what + " rms_abs");
  expect_close(got.mean_rel, want.mean_rel, tolerance, what + " mean_rel");
  expect_close(got.mean_ulp, want.mean_ulp, tolerance, what + " mean_ulp");
  expect_close(got.mean_bits, want.mean_bits, tolerance, what + " mean_bits");
  expect_close(got.normwise_rel, want.normwise_rel, tolerance, what + " normwise_rel");
  expect_close(got.sqnr_db, want.sqnr_db, tolerance, what + " sqnr_db");
}

// Everything a pass made elsewhere gave for the attribution against the CPU's.
inline void expect_same_attribution(const std::vector<experiment::ErrorStats>& got, const AttributionComparisons& g,
                                    const std::vector<experiment::ErrorStats>& want, const AttributionComparisons& w,
                                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t c = 0; c < got.size(); ++c) {
    const std::string part = what + ", comparison " + std::to_string(c);
    expect_same_stats(got[c], want[c], part);
    expect_same_histogram(g.h[c].signed_error, w.h[c].signed_error, part + " signed");
    expect_same_histogram(g.h[c].relative, w.h[c].relative, part + " relative");
    expect_same_histogram(g.h[c].ulps, w.h[c].ulps, part + " ulps");
  }
  EXPECT_EQ(g.check.compared, w.check.compared) << what;
  EXPECT_EQ(g.check.within_deterministic, w.check.within_deterministic) << what;
  EXPECT_EQ(g.check.within_probabilistic, w.check.within_probabilistic) << what;
  EXPECT_EQ(g.check.max_scaled, w.check.max_scaled) << what;
  expect_same_histogram(g.check.scaled, w.check.scaled, what + " scaled arithmetic");
}

}  // namespace pl::cuda::testing
