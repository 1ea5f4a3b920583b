// Fast, branch-light round trip float32 -> format -> float32 ("fake
// quantisation"), one element at a time. The same function runs in the CPU
// bulk loops (auto-vectorised) and in the CUDA kernels, so both agree bit for
// bit; tests check it against the scalar codec (codec.h), which is the
// reference. Every special output (NaN, Inf, overflow, zero) is taken from
// the scalar codec when the parameters are built, so the two cannot drift.
//
// Numeric contract: identical to encode_f32() followed by decode() for every
// format with make_roundtrip_params(...).supported; the significand is rounded
// with integer arithmetic and rebuilt as kept * 2^qe, a float32 product that is
// exact (or overflows to Inf, which the max-finite test then catches).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/dtype/cast_policy.h"
#include "core/dtype/stochastic.h"
#include "core/util/host_device.h"

namespace pl {

struct RoundtripF32Params {
  bool supported;     // false: use the scalar codec (e8m0, formats finer than float32)
  int mantissa_bits;
  int emin;
  float max_finite;
  float min_normal;
  uint32_t nan_out[2];        // result for +NaN, -NaN inputs (index: sign)
  uint32_t inf_out[2];        // result for +Inf, -Inf inputs
  uint32_t overflow_out[2];   // result when rounding away from zero overflows
  uint32_t max_out[2];        // +-max finite: directed rounding toward zero overflows here
  bool unsigned_zero;         // fnuz: zero is always +0
  bool flush_input;
  bool flush_output;
  uint64_t seed;
};

PL_HD inline uint32_t f32_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
PL_HD inline float f32_from_bits(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

// 2^k for -149 <= k <= 127, built from bits.
PL_HD inline float pow2f(int k) {
  return f32_from_bits(k >= -126 ? uint32_t(k + 127) << 23 : uint32_t{1} << (k + 149));
}

// Written without early returns: every lane computes the rounded value and the special
// results, then selects, so GPU warps do not diverge. (GCC 12 still does not vectorise the
// CPU loop over it: "control flow in loop"; see README, Performance.)
template <Rounding R>
PL_HD inline float roundtrip_f32(float x, const RoundtripF32Params& p, uint64_t index) {
  const uint32_t u = f32_bits(x);
  const bool neg = (u >> 31) != 0;
  const uint32_t a_in = u & 0x7FFFFFFFu;
  const bool is_nan = a_in > 0x7F800000u;
  const bool is_inf = a_in == 0x7F800000u;
  const int biased = int(a_in >> 23);
  const uint32_t a = (p.flush_input && biased == 0) ? 0u : a_in;
  const uint32_t sig = (a & 0x7FFFFFu) | (biased ? 0x800000u : 0u);
  const int e1 = biased ? biased - 127 : -126;      // exponent of the 2^23 bit of sig
  const int qe = (e1 > p.emin ? e1 : p.emin) - p.mantissa_bits;  // quantum exponent
  int d = qe - (e1 - 23);                           // bits to discard, >= 0
  d = d < 56 ? d : 56;                              // sig < 2^24: beyond 56 all is fraction
  const uint64_t s64 = uint64_t(sig) << 32;
  const uint64_t t = s64 >> d;
  uint32_t kept = uint32_t(t >> 32);
  const uint32_t frac32 = uint32_t(t);              // first 32 discarded bits
  const bool below = (s64 & ((uint64_t{1} << d) - 1)) != 0;
  bool up;
  if constexpr (R == Rounding::NearestEven)
    up = frac32 > 0x80000000u || (frac32 == 0x80000000u && (below || (kept & 1u)));
  else if constexpr (R == Rounding::NearestAway)
    up = frac32 >= 0x80000000u;
  else if constexpr (R == Rounding::TowardZero)
    up = false;
  else if constexpr (R == Rounding::Up)
    up = !neg && (frac32 | uint32_t(below));
  else if constexpr (R == Rounding::Down)
    up = neg && (frac32 | uint32_t(below));
  else
    up = uint64_t(frac32) + stochastic_bits(p.seed, index) >= (uint64_t{1} << 32);
  kept += up ? 1u : 0u;
  // kept <= 2^24 + 1 fits int32: the signed conversion has a vector instruction, unsigned has not.
  float mag = float(int32_t(kept)) * pow2f(qe);
  constexpr bool kTowardZeroPos = R == Rounding::TowardZero || R == Rounding::Down;
  constexpr bool kTowardZeroNeg = R == Rounding::TowardZero || R == Rounding::Up;
  const bool toward_zero = neg ? kTowardZeroNeg : kTowardZeroPos;
  const uint32_t overflow_bits = toward_zero ? p.max_out[neg] : p.overflow_out[neg];
  mag = (p.flush_output && mag < p.min_normal) ? 0.0f : mag;
  const uint32_t sign = (p.unsigned_zero && mag == 0.0f) ? 0u : uint32_t(neg) << 31;
  uint32_t out = sign | f32_bits(mag);
  out = mag > p.max_finite ? overflow_bits : out;
  out = is_inf ? p.inf_out[neg] : out;
  out = is_nan ? p.nan_out[neg] : out;
  return f32_from_bits(out);
}

}  // namespace pl
