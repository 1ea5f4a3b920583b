// Round trip float64 -> format -> float64, one element at a time, in every rounding mode,
// overflow policy, flush setting and cast path: the codec's own steps (quantum.h's decompose
// and round_to_quantum, which the codec calls too) without its code words, and every special
// result (NaN, Inf, overflow) taken from the codec when the params are built, so the two
// cannot drift; a finite value normal in the format takes a short path on the float64 bits
// (an increment below the cut, then the cut) in every mode. Tests check it against encode() +
// decode() bit for bit (tests/core/dtype/roundtrip_f64_test.cpp). The CPU's conversions of float64
// data -- the scaling recipes' elements, an experiment's output -- run it in every mode but
// nearest-even, whose vectorised block (round_nearest.h) is faster still; it compiles for the
// GPU too.
//
// It covers every format whose values and quanta are float64 numbers and that has a zero and
// a sign: every float format of the table but float8_e8m0fnu (no zero, no sign: the codec's).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/device/float_format.h"
#include "core/dtype/device/quantum.h"
#include "core/dtype/device/stochastic.h"
#include "core/util/host_device.h"

namespace pl {

struct RoundtripF64Params {
  bool supported = false;  // false: use the codec
  int mantissa_bits = 0, emin = 0;
  double largest = 0;     // the format's largest finite value
  double min_normal = 0;  // its smallest normal (flushing output subnormals)
  // The codec's results, by the input's sign (index 1: negative): for NaN and Inf inputs, and
  // for a rounding away from zero past the largest value (the overflow policy's).
  double nan_out[2] = {}, inf_out[2] = {}, overflow_out[2] = {};
  bool unsigned_zero = false;  // fnuz: zero is always +0
  bool flush_input = false, flush_output = false;
  bool via_float32 = false;  // CastPath::ViaFloat32 for a format narrower than float32
  Rounding rounding = Rounding::NearestEven;
  uint64_t seed = 0;
};

RoundtripF64Params make_roundtrip_f64_params(const FloatFormat& f, const CastOptions& o);

PL_HD inline uint64_t f64_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
PL_HD inline double f64_from_bits(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

// 2^k for -1074 <= k <= 1023, from bits (subnormal powers below 2^-1022).
PL_HD inline double pow2_exact(int k) {
  return f64_from_bits(k >= -1022 ? uint64_t(k + 1023) << 52 : uint64_t{1} << (k + 1074));
}

// The result of a rounding past the largest finite value: the largest itself when the mode
// rounds toward zero there, else the overflow policy's (the codec's).
PL_HD inline double past_largest(const RoundtripF64Params& p, int neg) {
  const bool toward_zero = p.rounding == Rounding::TowardZero || (p.rounding == Rounding::Down && !neg) ||
                           (p.rounding == Rounding::Up && neg);
  return toward_zero ? (neg ? -p.largest : p.largest) : p.overflow_out[neg];
}

// x rounded into the format and read back, element `index` of its stochastic stream.
// Needs params.supported.
PL_HD inline double roundtrip_f64(double x, const RoundtripF64Params& p, uint64_t index) {
  const uint64_t u = f64_bits(x);
  const int neg = int(u >> 63);
  uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
  // A finite value normal in the format, in any mode: an increment added below the cut of the
  // float64 bits, then the cut (d = 52 - mantissa bits discarded, rem the discarded bits, a
  // carry out of the mantissa the next binade). That is round_to_quantum's rule: toward zero
  // adds nothing, away from zero 2^d - 1 (up for positive values, down for negative), nearest
  // 2^(d-1) less one unless ties go away or the kept last bit is odd, and stochastic rounding
  // its draw below the cut -- rem + draw 2^(d-32) >= 2^d exactly when the first 32 discarded
  // bits + draw >= 2^32 (d >= 32), rem + (draw >> (32 - d)) >= 2^d when rem 2^(32-d) + draw
  // >= 2^32 (d < 32). Like the steps below it rounds with no top to the exponent, so a result
  // past the largest (Inf's bits included) takes their overflow result: data past a narrow
  // format's range stays here. Everything else (subnormal, zero, Inf, NaN, via float32) takes
  // the steps below.
  if (!p.via_float32 && p.mantissa_bits < 52 && a >= f64_bits(p.min_normal) && a < 0x7FF0000000000000ull) {
    const int d = 52 - p.mantissa_bits;
    const uint64_t below = (uint64_t{1} << d) - 1;
    uint64_t add;
    if (p.rounding == Rounding::Stochastic) {
      const uint64_t draw = stochastic_bits(p.seed, index);
      add = d >= 32 ? draw << (d - 32) : draw >> (32 - d);
    } else if (p.rounding == Rounding::NearestEven) {
      add = (below >> 1) + ((a >> d) & 1);
    } else if (p.rounding == Rounding::NearestAway) {
      add = (below >> 1) + 1;
    } else {  // directed: away from zero is up for a positive value, down for a negative one
      const bool away = (p.rounding == Rounding::Up && !neg) || (p.rounding == Rounding::Down && neg);
      add = away ? below : 0;
    }
    const uint64_t mag = (a + add) & ~below;  // a + add < 2^63: a is below Inf's bits, add below 2^52
    return mag <= f64_bits(p.largest) ? f64_from_bits(mag | (u & 0x8000000000000000ull)) : past_largest(p, neg);
  }
  if (a > 0x7FF0000000000000ull) return p.nan_out[neg];
  if (a == 0x7FF0000000000000ull) return p.inf_out[neg];
  const double signed_zero = (neg && !p.unsigned_zero) ? -0.0 : 0.0;
  if (p.flush_input && a < 0x0010000000000000ull) a = 0;  // float64 subnormals read as zero
  double v = f64_from_bits(a);
  if (p.via_float32) {  // narrowed first, to nearest even, as the hardware does
    v = double(float(v));
    if (v > 1.7976931348623157e308) return p.inf_out[neg];
  }
  if (v == 0) return signed_zero;
  const Magnitude m = decompose(v);
  const int e = floor_log2(m);
  const int qe = (e > p.emin ? e : p.emin) - p.mantissa_bits;
  bool inexact = false;
  const uint32_t draw = p.rounding == Rounding::Stochastic ? stochastic_bits(p.seed, index) : 0;
  const uint64_t kept = round_to_quantum(m, qe, neg != 0, p.rounding, draw, &inexact);
  if (kept == 0) return signed_zero;
  // Exact: kept < 2^54 is a float64 number and every multiple of 2^qe this small is too (or
  // the product overflows to Inf, which the next test takes as past the largest).
  const double mag = double(kept) * pow2_exact(qe);
  if (mag > p.largest) return past_largest(p, neg);
  if (p.flush_output && mag < p.min_normal) return signed_zero;
  return neg ? -mag : mag;
}

}  // namespace pl
