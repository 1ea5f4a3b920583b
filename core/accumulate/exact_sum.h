// The two exact steps every emulated addition is built from: Knuth's TwoSum (the float64 sum
// and its rounding error) and rounding hi + lo once into a narrower format. Include only from
// files built with -ffp-contract=off (core/CMakeLists.txt): a fused multiply-add or a
// reassociation would break TwoSum's exactness.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/dtype/codec.h"
#include "core/dtype/device/round_to_odd.h"

namespace pl::experiment::detail {

struct TwoSumResult {
  double hi, lo;
};

// hi + lo == a + b exactly (for finite results).
inline TwoSumResult two_sum(double a, double b) {
  const double hi = a + b;
  const double bb = hi - a;
  const double lo = (a - (hi - bb)) + (b - bb);
  return {hi, lo};
}

// hi + lo (|lo| <= ulp(hi) / 2, from TwoSum) rounded once, by rounding to odd first
// (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
// rounding to odd", IEEE TC 2008): hi + lo lies strictly between hi and its neighbour toward
// lo; of those two doubles, take the odd one. An odd double has 53 significant bits, so it is
// never a value or a midpoint of a format of at most 51 bits, and no such boundary lies
// between it and hi + lo: it rounds as hi + lo does, in every rounding mode. (Always taking
// the neighbour is wrong: it can be a midpoint, a tie that hi + lo is not --
// tests/core/accumulate/accumulate_test.cpp's SumNextToAMidpointRoundsLikeTheExactSum.) The neighbour is
// one step of hi's bit pattern (hi != 0 when lo != 0): round_to_odd_bits (round_to_odd.h).
inline double round_sum(const FloatFormat& format, double hi, double lo, const CastOptions& o, uint64_t index) {
  if (std::isfinite(hi)) hi = std::bit_cast<double>(round_to_odd_bits<uint64_t>(hi, lo));
  return round_to(format, hi, o, index);
}

}  // namespace pl::experiment::detail
