// The bound check (bound_check.h), made by error_stats' first pass from the |e| it has, against
// a plain loop over the elements: the counts, the largest scaled error and the histogram (the
// plain loop's values binned by log_histogram_auto, not by the octave table) bit for bit.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/bound_check.h"
#include "core/analysis/error_stats.h"

namespace pl::experiment {
namespace {

struct Case {
  size_t m, n;
  std::vector<double> acc, ref, bias;
  std::vector<float> abs_product;
  BoundInputs in;

  Case(size_t rows, size_t cols, bool with_bias)
      : m(rows), n(cols), acc(rows * cols), ref(rows * cols), abs_product(rows * cols) {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> d(0, 4);
    std::uniform_real_distribution<double> u(0, 1);
    for (size_t e = 0; e < acc.size(); ++e) {
      ref[e] = d(rng);
      acc[e] = ref[e] * (1 + std::ldexp(d(rng), -22));
      abs_product[e] = static_cast<float>(std::fabs(ref[e]) * (1 + u(rng)));
    }
    // The cases the check sorts out: a NaN and an Inf sum, a zero denominator, an exact sum.
    acc[3] = std::numeric_limits<double>::quiet_NaN();
    acc[5] = INFINITY;
    abs_product[7] = 0;     // column 7: the bias makes the denominator positive again
    abs_product[cols] = 0;  // column 0, whose bias is 0: not compared either way
    acc[9] = ref[9];
    if (with_bias)
      for (size_t j = 0; j < n; ++j) bias.push_back(j == 0 ? 0.0 : d(rng));
    in = {abs_product, 0.999, bias, n, {1e-6, 2e-7}, nullptr};
  }
};

void expect_same(const BoundCheck& a, const BoundCheck& b) {
  EXPECT_EQ(a.compared, b.compared);
  EXPECT_EQ(a.within_deterministic, b.within_deterministic);
  EXPECT_EQ(a.within_probabilistic, b.within_probabilistic);
  EXPECT_EQ(a.max_scaled, b.max_scaled);
  EXPECT_EQ(a.scaled.edges, b.scaled.edges);
  EXPECT_EQ(a.scaled.counts, b.scaled.counts);
  EXPECT_EQ(a.scaled.below, b.scaled.below);
  EXPECT_EQ(a.scaled.above, b.scaled.above);
}

// m x n past one span of error_stats' first pass (65536 elements), with rows that do not
// divide its blocks, so that blocks cross rows and the bias is looked up across them.
TEST(BoundCheck, FromErrorStatsEqualsTheDefinition) {
  for (bool with_bias : {false, true}) {
    SCOPED_TRACE(with_bias ? "bias" : "no bias");
    Case c(2003, 37, with_bias);
    BoundCheck fused;
    const Comparison cmp{c.acc, c.ref, nullptr, {}, &c.in, &fused};
    error_stats(std::span(&cmp, 1), DType::float32);

    // The definition, element by element.
    size_t compared = 0, within_d = 0, within_p = 0;
    double max = 0;
    std::vector<double> scaled;
    for (size_t e = 0; e < c.acc.size(); ++e) {
      const double denom =
          static_cast<double>(c.abs_product[e]) * c.in.slack + (with_bias ? std::fabs(c.bias[e % c.n]) : 0.0);
      if (!std::isfinite(c.acc[e]) || !(denom > 0)) continue;
      const double v = std::fabs(c.acc[e] - c.ref[e]) / denom;
      ++compared;
      within_d += v <= c.in.bounds.deterministic;
      within_p += v <= c.in.bounds.probabilistic;
      max = std::max(max, v);
      scaled.push_back(v);
    }
    BoundCheck definition;
    definition.compared = compared;
    definition.within_deterministic = within_d;
    definition.within_probabilistic = within_p;
    definition.max_scaled = max;
    definition.scaled = log_histogram_auto(scaled, BoundTally::kPerOctave);
    expect_same(definition, fused);
    EXPECT_EQ(fused.scaled.zeros, definition.scaled.zeros);
    EXPECT_EQ(compared, c.acc.size() - (with_bias ? 3 : 4));
    EXPECT_GT(within_d, within_p);  // the bounds split the elements: the counts mean something
    EXPECT_LT(within_d, compared);
  }
}

}  // namespace
}  // namespace pl::experiment
