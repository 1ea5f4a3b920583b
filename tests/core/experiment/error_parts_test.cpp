// The scan's error sums over a block against the same sums taken element by element: the largest
// absolute and relative errors in the lanes are the same doubles as the largest of every
// element's (a pass that skips quotients that cannot win must keep it so: a skip on d <= m |x|,
// each side rounded, fails this test).
#include "core/experiment/scan/error_parts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace pl::experiment {
namespace {

ErrorPart element_by_element(const std::vector<double>& q, const std::vector<double>& x) {
  ErrorPart p;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = std::fabs(q[i] - x[i]), ax = std::fabs(x[i]);
    p.max_abs = std::max(p.max_abs, d);
    if (ax > 0) p.max_rel = std::max(p.max_rel, d / ax);
  }
  return p;
}

// Quotients one or two doubles apart, in every order, at every magnitude (subnormal x among
// them), with elements rounded to zero (a quotient of 1) and exact ones between.
TEST(ErrorParts, TheLargestRelativeErrorIsTheLargestQuotient) {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 400; ++trial) {
    const size_t n = 1 + rng() % kSumBlock;
    std::vector<double> x(n), q(n);
    const double level = std::ldexp(0.5 + unit(rng), int(rng() % 40) - 20);  // the block's usual quotient
    for (size_t i = 0; i < n; ++i) {
      const int exponent = trial % 5 == 0 ? -1074 + int(rng() % 60) : int(rng() % 200) - 100;
      x[i] = std::ldexp(1 + unit(rng), exponent) * (rng() % 2 ? 1 : -1);
      double target = level;
      switch (rng() % 6) {
        case 0: target = 1; break;                                           // rounded to zero
        case 1: target = 0; break;                                           // exact
        case 2: target = std::nextafter(level, 2 * level); break;            // a double past it
        case 3: target = std::nextafter(level, 0.0); break;                  // a double short of it
        default: target = level * (1 + (unit(rng) - 0.5) * 0x1p-49); break;  // within a few doubles
      }
      q[i] = target == 1 ? 0 : x[i] + std::copysign(target * std::fabs(x[i]), x[i]);
    }
    const ErrorPart lanes = block_errors(q.data(), x.data(), n), each = element_by_element(q, x);
    ASSERT_EQ(lanes.max_rel, each.max_rel) << "trial " << trial;
    ASSERT_EQ(lanes.max_abs, each.max_abs) << "trial " << trial;
  }
}

}  // namespace
}  // namespace pl::experiment
