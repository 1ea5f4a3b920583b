// A fast path for the most common conversion: round a double to nearest-even in a float
// format, when the result is an ordinary finite value. Rounding to the format's grid is then
// plain arithmetic on the double: scale x so its quantum (the format's ulp at x, or at its
// smallest normal for subnormal results) is 1, round to an integer with the 2^52 * 1.5 trick
// (exact, and ties-to-even in the default rounding mode), scale back. The codec's general
// encode/decode handles everything else (other roundings, overflow policies, formats without
// negative zero or subnormals, NaN and Inf), and tests/core/dtype/round_nearest_test.cpp checks this
// path against it bit for bit.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/dtype/device/float_format.h"

namespace pl {

// 2^k for -1022 <= k <= 1023, built from its bits (float_format.h's exp2i loops, which is
// fine at compile time but costs a hundred multiplies per call at run time).
inline double pow2_bits(int k) { return std::bit_cast<double>(static_cast<uint64_t>(1023 + k) << 52); }

// Whether round_nearest_even_fast may answer for this format at all. The quantum's exponent
// q = e - mantissa_bits must leave 2^-q a normal double for every finite x (e up to 1023): for a
// format without mantissa bits (e2m0), q would be 1023 near float64's largest, 2^-q's bits those
// of zero, and x would round to 0 instead of overflowing (the GPU's round trip would then
// disagree with round_each's). Those formats take the codec.
constexpr bool nearest_fast_path_applies(const FloatFormat& f) {
  return f.has_subnormals() && f.has_negative_zero() && f.mantissa_bits >= 1 && f.precision() <= 52 &&
         f.emin() - f.mantissa_bits >= -1022 && f.emax() <= 1023;
}

// round(x) to nearest, ties to even, for one format with its constants worked out once (for
// loops over many elements): operator() returns false (out untouched) when the answer needs
// the general codec: x not finite, or the rounded value beyond the largest finite number.
// Construct only for formats where nearest_fast_path_applies().
class NearestEvenRounder {
 public:
  explicit NearestEvenRounder(const FloatFormat& f)
      : emin_(f.emin()),
        mantissa_bits_(f.mantissa_bits),
        largest_((1.0 + static_cast<double>(f.max_finite_mantissa()) * pow2_bits(-f.mantissa_bits)) *
                 pow2_bits(f.emax())) {}

  // operator() over x[0, n) at once, a loop that vectorises (round_nearest.cpp): out[i] is
  // the rounded value where operator() would answer, and defer[i] is 1 where it would return
  // false (out[i] is then meaningless). Returns whether any element was deferred.
  bool block(const double* x, size_t n, double* out, uint8_t* defer) const;

  bool operator()(double x, double* out) const {
    const uint64_t bits = std::bit_cast<uint64_t>(x);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    if (biased == 0x7ff) return false;
    const int e = biased - 1023;  // float64 subnormals give -1023: below every emin we accept
    const int q = (e > emin_ ? e : emin_) - mantissa_bits_;    // exponent of the quantum
    const double t = x * pow2_bits(-q);                        // exact: a power-of-two scaling, |t| < 2^p
    constexpr double kMagic = 6755399441055744.0;              // 1.5 * 2^52: integers are its ulps
    const double r = std::copysign((t + kMagic) - kMagic, x);  // RNE; a zero keeps x's sign
    const double y = r * pow2_bits(q);                         // exact
    if (std::fabs(y) > largest_) return false;
    *out = y;
    return true;
  }

 private:
  int emin_, mantissa_bits_;
  double largest_;
};

// One conversion with the rounder built on the spot.
// Call only for formats where nearest_fast_path_applies().
inline bool round_nearest_even_fast(const FloatFormat& f, double x, double* out) {
  return NearestEvenRounder(f)(x, out);
}

}  // namespace pl
