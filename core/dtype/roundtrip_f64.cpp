#include "core/dtype/device/roundtrip_f64.h"

#include <cmath>
#include <limits>

#include "core/dtype/codec.h"

namespace pl {

RoundtripF64Params make_roundtrip_f64_params(const FloatFormat& f, const CastOptions& o) {
  RoundtripF64Params p;
  // Every value and quantum a float64 number (the codec accepts no other format, but say so),
  // and a zero and a sign to round to.
  p.supported =
      f.is_signed() && f.has_zero() && f.mantissa_bits <= 52 && f.emin() - f.mantissa_bits >= -1074 && f.emax() <= 1023;
  if (!p.supported) return p;
  p.mantissa_bits = f.mantissa_bits;
  p.emin = f.emin();
  p.largest = max_finite(f);
  p.min_normal = min_normal(f);
  auto codec = [&f](const CastOptions& with, double x) { return decode(f, encode(f, x, with).code); };
  // Overflow by rounding, not by an infinite input: the direct path, so that narrowing to
  // float32 first cannot turn the huge value into one.
  CastOptions away = o;
  away.rounding = Rounding::NearestEven;
  away.path = CastPath::Direct;
  for (int s = 0; s < 2; ++s) {
    const double sign = s ? -1.0 : 1.0;
    p.nan_out[s] = codec(o, std::copysign(std::numeric_limits<double>::quiet_NaN(), sign));
    p.inf_out[s] = codec(o, sign * std::numeric_limits<double>::infinity());
    p.overflow_out[s] = codec(away, sign * std::numeric_limits<double>::max());
  }
  p.unsigned_zero = !f.has_negative_zero();
  p.flush_input = o.flush_input_subnormals;
  p.flush_output = o.flush_output_subnormals;
  p.via_float32 = narrows_through_float32(f, o.path);
  p.rounding = o.rounding;
  p.seed = o.seed;
  return p;
}

}  // namespace pl
