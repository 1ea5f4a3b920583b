// Fast, branch-light round trip float32 -> format -> float32 ("fake
// quantisation"), one element at a time. The same function runs in the CPU
// bulk loops (auto-vectorised) and in the CUDA kernels, so both agree bit for
// bit; tests check it against the scalar codec (codec.h), which is the
// reference. Every special output (NaN, Inf, overflow, zero) is taken from
// the scalar codec when the parameters are built, so the two cannot drift.
//
// Numeric contract: identical to encode_f32() followed by decode() for every
// format with make_roundtrip_params(...).supported. Nearest-even, the mode
// everyone uses, has its own short path; the other modes round the
// significand with integer arithmetic and rebuild it as kept * 2^qe, a
// float32 product that is exact (or overflows to Inf, which the max-finite
// test then catches).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/device/stochastic.h"
#include "core/util/host_device.h"

namespace pl {

struct RoundtripF32Params {
  bool supported;  // false: use the scalar codec (custom formats finer than float32 in part)
  bool e8m0;       // float8_e8m0fnu: roundtrip_f32_e8m0 (powers of two, no sign, no zero)
  int mantissa_bits;
  int emin;
  uint32_t max_finite_bits;  // float32 bits of min(the format's max finite, FLT_MAX)
  uint32_t nan_out[2];       // result for +NaN, -NaN inputs (index: sign)
  uint32_t inf_out[2];       // result for +Inf, -Inf inputs
  uint32_t overflow_out[2];  // result when rounding away from zero overflows
  uint32_t max_out[2];       // +-max finite: directed rounding toward zero overflows here
  bool unsigned_zero;        // fnuz: zero is always +0
  bool flush_input;
  bool flush_output;
  uint64_t seed;
  // Round-to-nearest-even in bits (roundtrip_f32_nearest_even): with s = 23 - mantissa_bits
  // dropped bits, add rne_bias (2^(s-1) - 1, or 0 when s == 0) plus the kept lsb (rne_lsb
  // selects it: 1, or 0 when s == 0), then clear the dropped bits (rne_keep_mask).
  uint32_t rne_bias;
  uint32_t rne_lsb;
  uint32_t rne_keep_mask;
  uint32_t min_normal_bits;  // below this the format is subnormal: rounded by subnormal_magic
  float subnormal_magic;     // 2^(emin - mantissa_bits + 23): its float32 ulp is the quantum
  // True when every special result for a negative input is the positive one with the sign
  // bit set, an infinite input gives the overflow result, and zero keeps its sign: then
  // nearest-even can work on magnitudes and re-attach the sign once at the end.
  bool sign_symmetric;
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

// cond ? a : b written as a mask blend. GCC 12 turns chains of ?: into one multi-way
// join that its if-converter gives up on ("complicated PHI"), so the CPU loop would not
// vectorise; masks leave it nothing to join.
PL_HD inline uint32_t select_bits(bool cond, uint32_t a, uint32_t b) {
  const uint32_t m = 0u - uint32_t(cond);
  return (a & m) | (b & ~m);
}

// 2^k for -149 <= k <= 127, built from bits.
PL_HD inline float pow2f(int k) {
  return f32_from_bits(k >= -126 ? uint32_t(k + 127) << 23 : uint32_t{1} << (k + 149));
}

// The result of a rounding past the largest finite value, as float32 bits: the largest itself
// where mode R rounds toward zero for this sign, else the overflow result (the codec's).
template <Rounding R>
PL_HD inline uint32_t past_largest_bits(bool neg, const RoundtripF32Params& p) {
  constexpr bool kTowardZeroPos = R == Rounding::TowardZero || R == Rounding::Down;
  constexpr bool kTowardZeroNeg = R == Rounding::TowardZero || R == Rounding::Up;
  const bool toward_zero = neg ? kTowardZeroNeg : kTowardZeroPos;
  return select_bits(toward_zero, select_bits(neg, p.max_out[1], p.max_out[0]),
                     select_bits(neg, p.overflow_out[1], p.overflow_out[0]));
}

// Shared last step of every mode: given the rounded magnitude (as float32 bits, Inf if
// it overflowed float32), apply output flushing, the unsigned zero, overflow and the
// NaN/Inf inputs, all taken from the scalar codec through the params.
// kMayFlush = false compiles the DAZ/FTZ selects away; only for params with both flush
// flags off (the CPU loop picks it then: eight fewer vector operations per element).
template <Rounding R, bool kMayFlush>
PL_HD inline float roundtrip_f32_finish(uint32_t mag_bits, bool neg, uint32_t a_in, const RoundtripF32Params& p) {
  const bool is_nan = a_in > 0x7F800000u;
  const bool is_inf = a_in == 0x7F800000u;
  const uint32_t overflow_bits = past_largest_bits<R>(neg, p);
  // Magnitudes compare as their bit patterns (float32 order equals integer order for >= 0).
  if constexpr (kMayFlush) mag_bits = select_bits(p.flush_output & (mag_bits < p.min_normal_bits), 0u, mag_bits);
  const bool drop_sign = p.unsigned_zero & (mag_bits == 0u);
  uint32_t out = mag_bits | (uint32_t(neg & !drop_sign) << 31);
  out = select_bits(mag_bits > p.max_finite_bits, overflow_bits, out);
  out = select_bits(is_inf, select_bits(neg, p.inf_out[1], p.inf_out[0]), out);
  out = select_bits(is_nan, select_bits(neg, p.nan_out[1], p.nan_out[0]), out);
  return f32_from_bits(out);
}

// What nearest-even adds to a magnitude's float32 bits a before the dropped bits are cleared:
// 2^(s-1) - 1 and the kept last bit (nothing when no bit is dropped).
PL_HD inline uint32_t nearest_even_increment(uint32_t a, const RoundtripF32Params& p) {
  return p.rne_bias + ((a >> (23 - p.mantissa_bits)) & p.rne_lsb);
}

// The magnitude |x| (float32 bits a, sign cleared) rounded to nearest, ties to even, as
// float32 bits; Inf or NaN-like bits when it leaves the float32 range (callers compare
// with max_finite_bits). Normal results by integer rounding of the float32 bits (a carry
// out of the mantissa correctly bumps the exponent), subnormal results by the hardware:
// adding subnormal_magic puts the binary point exactly at the format's subnormal quantum,
// float32 addition rounds to nearest even there, and subtracting it back is exact
// (Sterbenz). Needs round-to-nearest and no flush-to-zero in the FPU, the C++ and CUDA
// defaults (and -ffast-math would break it).
PL_HD inline uint32_t nearest_even_magnitude(uint32_t a, const RoundtripF32Params& p) {
  const uint32_t normal = (a + nearest_even_increment(a, p)) & p.rne_keep_mask;
  const float sub = (f32_from_bits(a) + p.subnormal_magic) - p.subnormal_magic;
  return select_bits(a < p.min_normal_bits, f32_bits(sub), normal);
}

// Round to nearest, ties to even, any params: about twenty operations.
template <bool kMayFlush>
PL_HD inline float roundtrip_f32_nearest_even(float x, const RoundtripF32Params& p) {
  const uint32_t u = f32_bits(x);
  const bool neg = (u >> 31) != 0;
  const uint32_t a_in = u & 0x7FFFFFFFu;
  const uint32_t a = kMayFlush ? select_bits(p.flush_input & (a_in < 0x00800000u), 0u, a_in) : a_in;
  const uint32_t mag_bits = nearest_even_magnitude(a, p);
  return roundtrip_f32_finish<Rounding::NearestEven, kMayFlush>(mag_bits, neg, a_in, p);
}

// Nearest-even when params.sign_symmetric and neither flush flag is set (float16, bfloat16
// and most float8/6/4 formats under the default policy): half the operations of the
// general function, which matters on CPUs where the loop is compute bound.
PL_HD inline float roundtrip_f32_nearest_even_symmetric(float x, const RoundtripF32Params& p) {
  const uint32_t u = f32_bits(x);
  const uint32_t a = u & 0x7FFFFFFFu;
  uint32_t mag = nearest_even_magnitude(a, p);
  mag = select_bits(mag > p.max_finite_bits, p.overflow_out[0], mag);  // Inf lands here too
  mag = select_bits(a > 0x7F800000u, p.nan_out[0], mag);
  return f32_from_bits(mag | (u & 0x80000000u));
}

// Every mode: round the significand with integer arithmetic and rebuild it as kept * 2^qe.
// Written without early returns or short-circuit && (control flow): every lane computes
// the rounded value and the special results, then selects, so GPU warps do not diverge
// and GCC vectorises the CPU loop.
// draw() gives the element's stochastic_bits (stochastic.h), asked where the rounding needs it
// (asked first, the CPU loop ran ~10% slower); the other modes never ask.
template <Rounding R, bool kMayFlush, class Draw>
PL_HD inline float roundtrip_f32_generic_with(float x, const RoundtripF32Params& p, Draw draw) {
  const uint32_t u = f32_bits(x);
  const bool neg = (u >> 31) != 0;
  const uint32_t a_in = u & 0x7FFFFFFFu;
  const int biased_in = int(a_in >> 23);
  const uint32_t a = (kMayFlush & p.flush_input & (biased_in == 0)) ? 0u : a_in;
  const int biased = int(a >> 23);
  const uint32_t sig = (a & 0x7FFFFFu) | (biased != 0 ? 0x800000u : 0u);
  const int e1 = biased != 0 ? biased - 127 : -126;              // exponent of the 2^23 bit of sig
  const int qe = (e1 > p.emin ? e1 : p.emin) - p.mantissa_bits;  // quantum exponent
  const int d = qe - (e1 - 23);                                  // bits to discard, >= 0
  // All in 32-bit lanes (AVX2 has per-lane 32-bit shifts, not 64-bit ones by int counts).
  // sig < 2^24, so clamping the shift to 31 loses nothing: kept is 0 and rem is all of sig.
  const int dc = d < 31 ? d : 31;
  uint32_t kept = sig >> dc;
  const uint32_t rem = sig & ((1u << dc) - 1u);                    // discarded bits, an integer below 2^dc
  const uint32_t half = (1u << dc) >> 1;                           // half a quantum; 0 when nothing is discarded
  bool up;                                                         // (nearest-even has its own faster function above)
  if constexpr (R == Rounding::NearestAway) up = rem > half - 1u;  // rem >= half, and never when d == 0
  else if constexpr (R == Rounding::TowardZero) up = false;
  else if constexpr (R == Rounding::Up) up = !neg & (rem != 0);
  else if constexpr (R == Rounding::Down) up = neg & (rem != 0);
  else {
    // The first 32 discarded bits as a fraction of a quantum (stochastic.h's rule).
    const int left = 32 - d;   // d <= 32: rem moved to the top
    const int right = d - 32;  // d > 32: sig lies below the binary point
    const uint32_t frac32 = d <= 32 ? rem << (left < 31 ? left : 31) : sig >> (right < 31 ? right : 31);
    up = uint64_t(frac32) + draw() >= (uint64_t{1} << 32);
  }
  kept += up ? 1u : 0u;
  // kept <= 2^24 + 1 fits int32: the signed conversion has a vector instruction, unsigned has not.
  const float mag = float(int32_t(kept)) * pow2f(qe);
  return roundtrip_f32_finish<R, kMayFlush>(f32_bits(mag), neg, a_in, p);
}

template <Rounding R, bool kMayFlush>
PL_HD inline float roundtrip_f32_generic(float x, const RoundtripF32Params& p, uint64_t index) {
  return roundtrip_f32_generic_with<R, kMayFlush>(x, p, [&] { return stochastic_bits(p.seed, index); });
}

// The same with the draw given (the GPU's stochastic short path falls back to it).
template <Rounding R, bool kMayFlush>
PL_HD inline float roundtrip_f32_generic_drawn(float x, const RoundtripF32Params& p, uint32_t draw) {
  return roundtrip_f32_generic_with<R, kMayFlush>(x, p, [draw] { return draw; });
}

// The short path of every mode, for |x| (float32 bits a) finite and normal in the format: an
// increment added to the float32 bits and the s bits below the cut cleared (s = 23 - mantissa
// bits >= 1). With rem the discarded bits, the carry into bit s is the generic function's "up"
// (nearest_even_magnitude's for nearest-even) and a carry out of the mantissa its next binade:
// nearest-even adds 2^(s-1) - 1 and the kept last bit, toward zero nothing, away from zero
// 2^s - 1 (up for a positive x, down for a negative one), nearest-away 2^(s-1), and stochastic
// rounding the draw's top s bits --
// rem + (draw >> (32 - s)) >= 2^s exactly when the generic function's rem * 2^(32 - s) + draw
// >= 2^32 (rem and 2^s are integers). Like the generic function it rounds as if the exponent
// had no top, so a magnitude past the largest finite (float32's Inf bits included) takes the
// result its finish gives there: the largest for a rounding toward zero, else the overflow
// result. Values beyond a narrow format's range (float4 saturating at 6) stay on the short
// path. short_covers says where this is the generic function's result (bit for bit:
// RoundtripF32.ShortPathsAreTheGenericFunctions): not for subnormal or zero, Inf or NaN.
// Branch-free, for the CPU's vectorised blocks (bulk_convert.cpp) as for the GPU kernels.
template <Rounding R>
PL_HD inline uint32_t short_magnitude(uint32_t u, const RoundtripF32Params& p, uint32_t draw) {
  const uint32_t a = u & 0x7FFFFFFFu, below = ~p.rne_keep_mask;  // below: 2^s - 1
  uint32_t add = 0;
  if constexpr (R == Rounding::NearestEven) add = nearest_even_increment(a, p);
  else if constexpr (R == Rounding::Stochastic) add = draw >> (9 + p.mantissa_bits);  // 32 - s = 9 + mantissa bits
  else if constexpr (R == Rounding::NearestAway) add = (below >> 1) + 1;
  else if constexpr (R == Rounding::Up) add = select_bits((u >> 31) != 0, 0u, below);
  else if constexpr (R == Rounding::Down) add = select_bits((u >> 31) != 0, below, 0u);
  return (a + add) & p.rne_keep_mask;
}
PL_HD inline bool short_covers(uint32_t a, const RoundtripF32Params& p) {
  // a below Inf: the sum stays below 2^31 (at most Inf's bits), so mag is a magnitude.
  return (a >= p.min_normal_bits) & (a < 0x7F800000u);
}
// The short path's result for float32 bits u (sign included) and mag its rounded magnitude.
template <Rounding R>
PL_HD inline uint32_t short_result(uint32_t u, uint32_t mag, const RoundtripF32Params& p) {
  return select_bits(mag > p.max_finite_bits, past_largest_bits<R>((u >> 31) != 0, p), mag | (u & 0x80000000u));
}

// Any mode with a branch to the short path, for the GPU kernels (a warp takes the branch
// together); every value the short path does not cover takes the mode's full function:
// nearest-even's own, or the generic one with the same draw (stochastic rounding's; the other
// modes ignore it).
template <Rounding R, bool kMayFlush>
PL_HD inline float roundtrip_f32_short_first(float x, const RoundtripF32Params& p, uint32_t draw) {
  const uint32_t u = f32_bits(x);
  if (p.mantissa_bits < 23 && short_covers(u & 0x7FFFFFFFu, p))  // the short path needs a cut below float32's
    return f32_from_bits(short_result<R>(u, short_magnitude<R>(u, p, draw), p));
  if constexpr (R == Rounding::NearestEven) return roundtrip_f32_nearest_even<kMayFlush>(x, p);
  else return roundtrip_f32_generic_drawn<R, kMayFlush>(x, p, draw);
}

// float8_e8m0fnu, the OCP MX scale (codec.h): the powers of two 2^-127 .. 2^127, no sign, no
// zero. Its own function: its smallest value lies below float32's normal range (2^-127 is a
// float32 subnormal, which the functions above do not round to), and with no mantissa the
// kept significand is the implicit bit alone, odd, so a tie goes up to the larger power.
// NaN for NaN, zeros, negatives (and positive subnormals read as zero); a positive value
// below 2^-127 gives 2^-127 in every mode, as zero is not there to round to. Every result is
// a float32 number, built from bits.
template <Rounding R, bool kMayFlush>
PL_HD inline float roundtrip_f32_e8m0(float x, const RoundtripF32Params& p, uint64_t index) {
  const uint32_t u = f32_bits(x);
  const bool neg = (u >> 31) != 0;
  const uint32_t a = u & 0x7FFFFFFFu;
  const bool normal = a >= 0x00800000u;
  // x lies in [2^k, 2^(k+1)), frac32 its part above 2^k in 32 bits (exact: 23 or 22 bits);
  // below 2^-127 every mode gives 2^-127, so k = -127 with nothing above it.
  const int k = normal ? int(a >> 23) - 127 : -127;
  const uint32_t frac32 = normal ? (a & 0x7FFFFFu) << 9 : select_bits(a >= 0x00400000u, (a & 0x3FFFFFu) << 10, 0u);
  bool up;  // (x > 0 here: the results for the rest are selected below)
  if constexpr (to_nearest(R)) up = frac32 >= 0x80000000u;  // a tie too: NearestEven's kept significand 1 is odd
  else if constexpr (R == Rounding::Up) up = frac32 != 0;
  else if constexpr (R == Rounding::Stochastic)
    up = uint64_t(frac32) + stochastic_bits(p.seed, index) >= (uint64_t{1} << 32);
  else up = false;                 // toward zero, down
  const int r = k + (up ? 1 : 0);  // -127 .. 128
  uint32_t out = r >= -126 ? uint32_t(r + 127) << 23 : 0x00400000u;
  out = select_bits(r > 127, p.overflow_out[0], out);
  out = select_bits(a == 0x7F800000u, p.inf_out[0], out);
  // What has no encoding: zeros, negatives (-Inf among them), positive subnormals read as
  // zero, and NaN.
  const bool flushed = kMayFlush & p.flush_input & !normal;
  const bool no_value = neg | (a == 0u) | flushed | (a > 0x7F800000u);
  return f32_from_bits(select_bits(no_value, select_bits(neg, p.nan_out[1], p.nan_out[0]), out));
}

// Any params but e8m0's: nearest-even's own function, the integer rounding for the others.
template <Rounding R, bool kMayFlush = true>
PL_HD inline float roundtrip_f32_signed(float x, const RoundtripF32Params& p, uint64_t index) {
  if constexpr (R == Rounding::NearestEven) return roundtrip_f32_nearest_even<kMayFlush>(x, p);
  else return roundtrip_f32_generic<R, kMayFlush>(x, p, index);
}

// Any params (loops over one params set pick the function ahead: bulk_convert.cpp).
template <Rounding R, bool kMayFlush = true>
PL_HD inline float roundtrip_f32(float x, const RoundtripF32Params& p, uint64_t index) {
  if (p.e8m0) return roundtrip_f32_e8m0<R, kMayFlush>(x, p, index);
  return roundtrip_f32_signed<R, kMayFlush>(x, p, index);
}

}  // namespace pl
