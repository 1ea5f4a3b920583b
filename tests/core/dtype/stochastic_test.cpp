#include <cmath>
#include <vector>

#include "core/dtype/bulk_convert.h"
#include "core/dtype/codec.h"
#include "core/dtype/device/stochastic.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

CastOptions stochastic(uint64_t seed) {
  CastOptions o;
  o.rounding = Rounding::Stochastic;
  o.seed = seed;
  return o;
}

// E[SR(x)] = x: the mean of many independent roundings converges to x. With N draws between two
// neighbours a quantum q apart, the standard error of the mean is q * sqrt(p(1-p)/N); allow 5 of them.
TEST(Stochastic, UnbiasedInExpectation) {
  const FloatFormat& f = info(DType::float16).format;
  const double q = std::ldexp(1.0, -10);
  for (double frac : {0.3, 0.5, 0.01, 0.999}) {
    const double x = 1.0 + frac * q;
    const int n = 200000;
    double sum = 0;
    for (int i = 0; i < n; ++i) {
      double r = round_to(f, x, stochastic(42), i);
      ASSERT_TRUE(r == 1.0 || r == 1.0 + q) << r;
      sum += r;
    }
    double mean = sum / n;
    double se = q * std::sqrt(frac * (1 - frac) / n);
    EXPECT_NEAR(mean, x, 5 * se) << "frac " << frac;
  }
}

// A run that starts at element k of a stream draws, from stochastic_seed_at(s, k), what the
// whole stream draws there (the checkpoint scan rounds a tensor a run of rows at a time).
TEST(Stochastic, ASeedAtAnOffsetContinuesTheStream) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{7}, ~uint64_t{0}})
    for (uint64_t k : {uint64_t{0}, uint64_t{1}, uint64_t{100}, uint64_t{1} << 40})
      for (uint64_t i : {uint64_t{0}, uint64_t{3}, uint64_t{12345}})
        EXPECT_EQ(stochastic_bits(stochastic_seed_at(seed, k), i), stochastic_bits(seed, k + i)) << seed << " " << k;
}

TEST(Stochastic, UnbiasedInTheSubnormalRangeAndForFloat8) {
  const FloatFormat& f = info(DType::float8_e4m3fn).format;
  const double q = std::ldexp(1.0, -9);  // subnormal spacing
  const double x = 2.7 * q;
  const int n = 200000;
  std::vector<float> in(n, static_cast<float>(x)), out(n);
  roundtrip_f32_array(f, stochastic(3), in.data(), out.data(), n);
  double sum = 0;
  for (float v : out) sum += v;
  double se = q * std::sqrt(0.7 * 0.3 / n);
  EXPECT_NEAR(sum / n, double(static_cast<float>(x)), 5 * se);
}

TEST(Stochastic, ReproducibleAndSeedDependent) {
  const FloatFormat& f = info(DType::bfloat16).format;
  int same = 0, differ = 0;
  for (int i = 0; i < 1000; ++i) {
    double x = 1.0 + 0.37 * std::ldexp(1.0, -7);
    same += round_to(f, x, stochastic(1), i) == round_to(f, x, stochastic(1), i);
    differ += round_to(f, x, stochastic(1), i) != round_to(f, x, stochastic(2), i);
  }
  EXPECT_EQ(same, 1000);
  EXPECT_GT(differ, 300);  // two streams disagree about 2 p (1 - p) = 47% of the time
}

TEST(Stochastic, BitsAreUniform) {
  // Chi-square over 16 buckets of the top 4 bits; 15 degrees of freedom, 99.9% quantile 37.7.
  std::vector<int> buckets(16);
  const int n = 160000;
  for (int i = 0; i < n; ++i) ++buckets[stochastic_bits(99, i) >> 28];
  double chi2 = 0, expect = n / 16.0;
  for (int b : buckets) chi2 += (b - expect) * (b - expect) / expect;
  EXPECT_LT(chi2, 37.7);
}

}  // namespace
}  // namespace pl
