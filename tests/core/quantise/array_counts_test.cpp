// The vectorised counts and maxima against the plain loops they replace, on arrays with zeros of
// both signs, Inf, NaN, values at and past a top, and lengths that leave a ragged tail.
#include "core/quantise/array_counts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace pl::experiment {
namespace {

std::vector<double> awkward(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    switch (rng() % 11) {
      case 0: v[i] = 0.0; break;
      case 1: v[i] = -0.0; break;
      case 2: v[i] = rng() % 2 ? inf : -inf; break;
      case 3: v[i] = nan; break;
      case 4: v[i] = 448.0; break;
      case 5: v[i] = -std::nextafter(448.0, 1e9); break;
      case 6: v[i] = 4.9e-324; break;
      default: v[i] = 300 * z(rng);
    }
  }
  return v;
}

double plain_amax(const double* v, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(v[i])) m = std::max(m, std::fabs(v[i]));
  return m;
}

TEST(ArrayCounts, MatchThePlainLoops) {
  for (size_t n : {0u, 1u, 7u, 8u, 31u, 32u, 33u, 1000u, 4099u}) {
    const std::vector<double> v = awkward(n, unsigned(n) + 1);
    size_t zeros = 0, past = 0;
    for (double x : v) zeros += x == 0, past += std::fabs(x) > 448.0;
    EXPECT_EQ(count_zeros(v), zeros) << n;
    EXPECT_EQ(count_past(v, 448.0), past) << n;
    EXPECT_EQ(finite_amax(v), plain_amax(v.data(), n)) << n;
    for (size_t block : {5u, 16u, 32u, 48u}) {
      std::vector<double> out((n + block - 1) / block, -1);
      block_amaxes(v, block, out.data());
      for (size_t b = 0; b < out.size(); ++b)
        EXPECT_EQ(out[b], plain_amax(v.data() + b * block, std::min(block, n - b * block)))
            << "n " << n << ", block " << block << " #" << b;
    }
  }
}

TEST(ArrayCounts, NothingFiniteHasNoAmax) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> v = {inf, -inf, nan, -0.0, inf, nan, nan, inf, -inf};
  EXPECT_EQ(finite_amax(v), 0.0);
  EXPECT_EQ(count_past(v, 1.0), 5u);  // the five Infs, not the NaNs
  EXPECT_EQ(count_zeros(v), 1u);
}

}  // namespace
}  // namespace pl::experiment
