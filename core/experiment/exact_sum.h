// The two exact steps every emulated addition is built from: Knuth's TwoSum (the float64 sum
// and its rounding error) and rounding hi + lo once into a narrower format. Include only from
// files built with -ffp-contract=off (core/CMakeLists.txt): a fused multiply-add or a
// reassociation would break TwoSum's exactness.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/dtype/codec.h"

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
// tests/core/accumulate_test.cpp's SumNextToAMidpointRoundsLikeTheExactSum.) The neighbour is
// one step of hi's bit pattern (hi != 0 when lo != 0).
inline double round_sum(const FloatFormat& format, double hi, double lo, const CastOptions& o,
                        uint64_t index) {
  if (lo != 0.0 && std::isfinite(hi)) {
    const uint64_t bits = std::bit_cast<uint64_t>(hi);
    if ((bits & 1) == 0) hi = std::bit_cast<double>((lo > 0) == (hi > 0) ? bits + 1 : bits - 1);
  }
  return round_to(format, hi, o, index);
}

// hi + lo (TwoSum's rounded sum and its exact error) rounded to odd at hi's precision, as the
// bit pattern. Rounding to odd is truncation (toward zero) with the last bit set when anything
// was cut off: the truncation of hi + lo is hi itself when lo has hi's sign (|hi| < |hi + lo|
// < the next number away from zero) and the number just below hi in magnitude when it does not
// -- one less as a bit pattern, binade edges included. Branch-free, in seven integer
// operations, so the lanes that call it vectorise. Bits is the unsigned integer as wide as F.
// (Only finite sums are meant: a lane whose sum is not finite is redone by the general code.)
template <typename Bits, typename F>
inline Bits round_to_odd_bits(F hi, F lo) {
  constexpr int kSign = 8 * sizeof(Bits) - 1;
  const Bits bits = std::bit_cast<Bits>(hi);
  const Bits inexact = Bits{0} - static_cast<Bits>(lo != F{0});          // all ones, or none
  const Bits opposite = (bits ^ std::bit_cast<Bits>(lo)) >> kSign;        // 1: lo has the other sign
  return (bits - (opposite & inexact)) | (inexact & 1);
}

}  // namespace pl::experiment::detail
