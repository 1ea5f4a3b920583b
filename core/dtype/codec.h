// The exact scalar codec: any float64 or float32 value into any FloatFormat,
// and any code back to its value. This is the reference every fast path (bulk
// CPU loops, CUDA kernels) is checked against, bit for bit.
//
// Numeric contract
//  - encode() rounds the exact input value once (CastPath::Direct) to the
//    format, as IEEE 754-2019 section 4.3 defines for the chosen Rounding,
//    with an unbounded exponent first and overflow handled after (section 7.4):
//    a directed rounding toward zero gives max finite, otherwise the Overflow
//    policy decides.
//  - Round-to-nearest-even compares the parity of the kept significand with its
//    implicit bit; for float8_e8m0fnu (no mantissa) ties therefore go to the
//    larger power of two, as ml_dtypes 0.6.0 and PyTorch 2.x do.
//  - NaN becomes the format's canonical NaN (sign kept where the format has
//    one; the quiet bit set for IEEE formats; payloads are dropped, as
//    ml_dtypes does). A format without NaN (fp6, fp4) turns NaN into a zero of
//    the NaN's sign and raises flags.nan_to_zero; ml_dtypes 0.6.0 and 0.7.0
//    give the zero of the other sign (+NaN becomes -0), which is not followed.
//  - fnuz formats have no -0: a negative value that rounds to zero gives +0.
//  - float8_e8m0fnu has no zero and no sign: 0, negatives, Inf and NaN give
//    NaN (the numbers among them inexact, with flags.to_nan; +Inf also with
//    overflow); a positive value below 2^-127 gives 2^-127 (ml_dtypes 0.6.0).
//  - decode() is exact: every code of every accepted format is a double.
#pragma once

#include <cstdint>
#include <span>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/device/float_format.h"
#include "core/dtype/round_nearest.h"

namespace pl {

enum class ValueClass : uint8_t { Zero, Subnormal, Normal, Infinite, NaN };

struct CastFlags {
  bool inexact = false;
  bool overflow = false;        // the rounded magnitude exceeded max finite
  bool saturated = false;       // ... and max finite was returned
  bool underflow = false;       // tiny (below min normal) and inexact
  bool nan_to_zero = false;     // NaN had no encoding and became zero
  bool to_nan = false;          // a number with no encoding became NaN (float8_e8m0fnu's 0, negatives, Inf)
  bool flushed_input = false;   // DAZ turned a subnormal input into zero
  bool flushed_output = false;  // FTZ turned a subnormal result into zero
};

struct Encoded {
  uint64_t code;
  CastFlags flags;
};

struct CodeFields {
  uint64_t sign;
  uint64_t exponent;
  uint64_t mantissa;
};

// `index` picks element `index` of the stochastic stream (ignored by other roundings).
Encoded encode(const FloatFormat& f, double x, const CastOptions& o, uint64_t index = 0);
// As encode(), with the input read as float32 (DAZ tests float32's subnormal range).
Encoded encode_f32(const FloatFormat& f, float x, const CastOptions& o, uint64_t index = 0);
// An integer, rounded once (no detour through float64, which would round int64 values twice).
Encoded encode_integer(const FloatFormat& f, bool negative, uint64_t magnitude, const CastOptions& o,
                       uint64_t index = 0);

// A real number float64 cannot hold, held exactly: hi + rest / divisor, hi that number rounded to
// nearest in float64 (|rest / divisor| <= half an ulp of hi). A TwoSum's pair and a product with
// its FMA error have divisor 1; a quotient A/B is hi = A/B with rest = fma(-hi, B, A), divisor B.
struct ExactValue {
  double hi = 0;
  double rest = 0;
  double divisor = 1;
};
// A finite value past float64's largest, as rounding sees one: every mode rounds a value from
// DBL_MAX + half its ulp up as it rounds that one (to nearest: overflow; toward zero: DBL_MAX).
inline ExactValue beyond_float64(bool negative) {
  const double sign = negative ? -1.0 : 1.0;
  return {sign * 0x1.fffffffffffffp+1023, sign * 0x1p970, 1};
}
// The exact value rounded once. Rounding hi alone would round twice (1/3 rounded up into float64
// would come out below 1/3). Stochastic rounding is not taken (its draw would need every
// discarded bit): refused by the callers. Non-finite hi, or rest 0: encode(hi).
Encoded encode_exact(const FloatFormat& f, const ExactValue& x, const CastOptions& o);

// Whether a cast to `f` along `path` rounds to float32 first: the route through float32 narrows
// only a format narrower than float32 (to float32 itself, or to a wider format, both routes
// round once). The codec, the float64 round trip and the CLI's refusal share this one rule.
inline bool narrows_through_float32(const FloatFormat& f, CastPath path) {
  return path == CastPath::ViaFloat32 && f.total_bits() < 32;
}

// Whether a magnitude beyond max finite (rounded away from zero) becomes +-max finite under
// `policy`, rather than Inf or NaN.
bool overflow_saturates(const FloatFormat& f, Overflow policy);

// Bits above total_bits() are ignored.
double decode(const FloatFormat& f, uint64_t code);
ValueClass classify(const FloatFormat& f, uint64_t code);
CodeFields split_code(const FloatFormat& f, uint64_t code);

// decode(encode(x)).
// Plain nearest-even conversions of finite values take round_nearest.h's arithmetic path.
inline double round_to(const FloatFormat& f, double x, const CastOptions& o, uint64_t index = 0) {
  double fast;
  if (o.rounding == Rounding::NearestEven && o.path == CastPath::Direct && !o.flush_input_subnormals &&
      !o.flush_output_subnormals && nearest_fast_path_applies(f) && round_nearest_even_fast(f, x, &fast))
    return fast;
  return decode(f, encode(f, x, o, index).code);
}

// out[i] = round_to(f, in[i], o, index0 + i) for every i (in and out may be the same array),
// with the format's constants worked out once.
void round_each(const FloatFormat& f, std::span<const double> in, std::span<double> out, const CastOptions& o,
                uint64_t index0 = 0);

const char* value_class_name(ValueClass c);

}  // namespace pl
