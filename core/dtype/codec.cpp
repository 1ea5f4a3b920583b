// The exact scalar codec. See codec.h for the numeric contract.
//
// [SECTION] rounding a significand to a quantum (its arithmetic: quantum.h)
// [SECTION] overflow and specials
// [SECTION] encode / decode
#include "core/dtype/codec.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/dtype/device/quantum.h"
#include "core/dtype/device/roundtrip_f64.h"
#include "core/dtype/device/stochastic.h"
#include "core/util/parallel.h"

namespace pl {
namespace {

//-----------------------------------------------------------------------------
// [SECTION] rounding a significand to a quantum
//-----------------------------------------------------------------------------

// The exact decomposition of the input and its rounding to a quantum (Magnitude, decompose,
// floor_log2, round_to_quantum) are in core/dtype/device/quantum.h, which the GPU's emulated sums
// share.

bool rounds_toward_zero(Rounding r, bool negative) {
  return r == Rounding::TowardZero || (r == Rounding::Down && !negative) || (r == Rounding::Up && negative);
}

//-----------------------------------------------------------------------------
// [SECTION] overflow and specials
//-----------------------------------------------------------------------------

uint64_t sign_bit(const FloatFormat& f, bool negative) { return negative ? f.sign_mask() : 0; }

Encoded nan_result(const FloatFormat& f, bool negative) {
  Encoded e{0, {}};
  if (!f.has_nan()) {
    e.code = sign_bit(f, negative);
    e.flags.nan_to_zero = true;
    return e;
  }
  e.code = f.nan_code();
  if (f.specials == Specials::IEEE || f.specials == Specials::FN) e.code |= sign_bit(f, negative);
  return e;
}

// A number float8_e8m0fnu has no code for (0, a negative, Inf): its NaN, and flags that say so.
Encoded unencodable(const FloatFormat& f, bool negative) {
  Encoded e = nan_result(f, negative);
  e.flags.inexact = true;
  e.flags.to_nan = true;
  return e;
}

// What an over-large magnitude becomes, for a rounding that does not go toward zero.
Encoded overflow_result(const FloatFormat& f, bool negative, Overflow policy) {
  const bool saturate = overflow_saturates(f, policy);
  Encoded e{0, {}};
  e.flags.overflow = true;
  e.flags.inexact = true;
  if (saturate) {
    e.code = sign_bit(f, negative) | f.max_finite_code();
    e.flags.saturated = true;
  } else if (f.has_inf()) {
    e.code = sign_bit(f, negative) | f.inf_code();
  } else {
    e.code = nan_result(f, negative).code;
  }
  return e;
}

Encoded infinity_input(const FloatFormat& f, bool negative, Overflow policy) {
  if (f.specials == Specials::E8M0 && policy != Overflow::Saturate) {
    Encoded e = unencodable(f, negative);
    e.flags.overflow = true;
    return e;
  }
  if (f.has_inf() && policy != Overflow::Saturate) return {sign_bit(f, negative) | f.inf_code(), {}};
  Encoded e = overflow_result(f, negative, policy);
  e.flags.inexact = true;
  return e;
}

Encoded zero_result(const FloatFormat& f, bool negative, bool inexact) {
  Encoded e{0, {}};
  e.flags.inexact = inexact;
  e.flags.underflow = inexact;
  if (f.specials == Specials::E8M0) {
    // No zero to round to: ml_dtypes 0.6.0 gives the smallest scale, 2^-127 (code 0).
    e.code = 0;
    return e;
  }
  e.code = f.has_negative_zero() ? sign_bit(f, negative) : 0;
  return e;
}

//-----------------------------------------------------------------------------
// [SECTION] encode / decode
//-----------------------------------------------------------------------------

// Packs kept * 2^qe (kept <= 2^(m+1), already rounded) into a code, handling overflow.
Encoded pack(const FloatFormat& f, bool negative, uint64_t kept, int qe, bool inexact, const CastOptions& o) {
  const int m = f.mantissa_bits;
  if (kept == 0) return zero_result(f, negative, inexact);
  if (kept == (uint64_t{1} << (m + 1))) {  // carry out of the top bit: next binade
    kept >>= 1;
    ++qe;
  }
  const bool normal = kept >= (uint64_t{1} << m);
  uint64_t exp_field = normal ? uint64_t(qe + m + f.bias) : 0;
  uint64_t mant = normal ? kept - (uint64_t{1} << m) : kept;
  bool too_big = normal && (int64_t(exp_field) > f.max_finite_exponent_field() ||
                            (int64_t(exp_field) == f.max_finite_exponent_field() && mant > f.max_finite_mantissa()));
  if (too_big) {
    if (rounds_toward_zero(o.rounding, negative)) {
      Encoded e{sign_bit(f, negative) | f.max_finite_code(), {}};
      e.flags.inexact = e.flags.overflow = true;
      return e;
    }
    return overflow_result(f, negative, o.overflow);
  }
  Encoded e{sign_bit(f, negative) | (exp_field << m) | mant, {}};
  e.flags.inexact = inexact;
  if (!normal) {
    e.flags.underflow = inexact;
    if (o.flush_output_subnormals) {
      e = zero_result(f, negative, true);
      e.flags.flushed_output = true;
    }
  }
  return e;
}

// Rounds a nonzero finite magnitude once to the format: quantum from its binade, then pack.
Encoded encode_magnitude(const FloatFormat& f, bool negative, const Magnitude& mag, const CastOptions& o,
                         uint64_t index) {
  const int e = floor_log2(mag);
  const int qe = (e > f.emin() ? e : f.emin()) - f.mantissa_bits;
  bool inexact = false;
  uint32_t rnd = o.rounding == Rounding::Stochastic ? stochastic_bits(o.seed, index) : 0;
  uint64_t kept = round_to_quantum(mag, qe, negative, o.rounding, rnd, &inexact);
  return pack(f, negative, kept, qe, inexact, o);
}

// hi + rest / divisor (rest != 0) as a magnitude with kExtra bits below hi's last place, rounded
// to odd: the last bit set wherever bits further down were dropped. With at least two bits below
// any quantum rounded to, rounding that once gives the exact value's rounding in every mode
// (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
// rounding to odd", 2008). hi a power of two with the rest below it: the binade below has half the
// ulp, still kExtra - 1 bits above the odd bit.
Magnitude odd_magnitude(const ExactValue& x) {
  constexpr int kExtra = 9;
  const Magnitude h = decompose(std::fabs(x.hi));
  const uint64_t sig = h.sig << kExtra;
  const int lsb = h.lsb_exp - kExtra;
  // |rest / divisor| in units of the new last place: n whole units and whether more is left,
  // checked exactly (n <= 2^(kExtra-1)). The divisor is brought into [1, 2) and the rest with it,
  // both by powers of two, so that neither overflows whatever the divisor's size.
  const int scale = std::ilogb(x.divisor);
  const double r = std::ldexp(std::fabs(x.rest), -lsb - scale), d = std::ldexp(std::fabs(x.divisor), -scale);
  double n = std::floor(r / d);
  double left = std::fma(-n, d, r);
  if (left < 0) n -= 1, left = std::fma(-n, d, r);
  else if (left >= d) n += 1, left = std::fma(-n, d, r);
  const bool exact = left == 0;
  const auto whole = static_cast<uint64_t>(n);
  const bool away = std::signbit(x.hi) == (std::signbit(x.rest) != std::signbit(x.divisor));
  uint64_t v;
  if (away) v = sig + whole;
  else v = exact ? sig - whole : sig - whole - 1;  // floor(sig - t)
  if (!exact) v |= 1;
  return {v, lsb};
}

// x rounded once; with `exact`, x is exact->hi and the value rounded is hi + rest / divisor.
Encoded encode_value(const FloatFormat& f, double x, const CastOptions& o, uint64_t index, double source_min_normal,
                     const ExactValue* exact = nullptr) {
  const bool negative = std::signbit(x);
  if (std::isnan(x)) return nan_result(f, negative);
  if (std::isinf(x) && !negative) return infinity_input(f, negative, o.overflow);
  if (f.specials == Specials::E8M0 && (negative || x == 0.0)) return unencodable(f, negative);
  if (std::isinf(x)) return infinity_input(f, negative, o.overflow);
  bool flushed = false;
  if (o.flush_input_subnormals && x != 0.0 && std::fabs(x) < source_min_normal) {
    x = negative ? -0.0 : 0.0;
    flushed = true;
    exact = nullptr;  // (read as zero: no rest is left to add)
    if (f.specials == Specials::E8M0) {
      Encoded e = unencodable(f, negative);
      e.flags.flushed_input = true;
      return e;
    }
  }
  if (narrows_through_float32(f, o.path)) {
    // RNE, the hardware default: of the exact value too, rounded once.
    constexpr FloatFormat kFloat32{8, 23, 127, Specials::IEEE};
    double narrowed = exact ? decode(kFloat32, encode_magnitude(kFloat32, negative, odd_magnitude(*exact), {}, 0).code)
                            : static_cast<double>(static_cast<float>(x));
    if (std::isinf(narrowed)) return infinity_input(f, negative, o.overflow);
    if (narrowed == 0.0 && f.specials == Specials::E8M0) return unencodable(f, negative);
    x = narrowed;
    exact = nullptr;
  }
  if (x == 0.0) {
    Encoded e = zero_result(f, negative, false);
    e.flags.flushed_input = flushed;
    return e;
  }
  return encode_magnitude(f, negative, exact ? odd_magnitude(*exact) : decompose(std::fabs(x)), o, index);
}

}  // namespace

Encoded encode_exact(const FloatFormat& f, const ExactValue& x, const CastOptions& o) {
  const bool rest = x.rest != 0.0 && x.hi != 0.0 && std::isfinite(x.hi) && std::isfinite(x.rest) &&
                    std::isfinite(x.divisor) && x.divisor != 0.0;
  return encode_value(f, x.hi, o, 0, std::numeric_limits<double>::min(), rest ? &x : nullptr);
}

Encoded encode_integer(const FloatFormat& f, bool negative, uint64_t magnitude, const CastOptions& o, uint64_t index) {
  if (magnitude == 0) {
    if (f.specials == Specials::E8M0) return unencodable(f, negative);
    return zero_result(f, negative, false);
  }
  if (f.specials == Specials::E8M0 && negative) return unencodable(f, negative);
  return encode_magnitude(f, negative, Magnitude{magnitude, 0}, o, index);
}

Encoded encode(const FloatFormat& f, double x, const CastOptions& o, uint64_t index) {
  return encode_value(f, x, o, index, std::numeric_limits<double>::min());
}

Encoded encode_f32(const FloatFormat& f, float x, const CastOptions& o, uint64_t index) {
  return encode_value(f, static_cast<double>(x), o, index, std::numeric_limits<float>::min());
}

CodeFields split_code(const FloatFormat& f, uint64_t code) {
  code &= f.code_mask();
  return {f.is_signed() ? (code >> (f.exponent_bits + f.mantissa_bits)) & 1 : 0,
          (code >> f.mantissa_bits) & uint64_t(f.max_exponent_field()), code & f.mantissa_mask()};
}

ValueClass classify(const FloatFormat& f, uint64_t code) {
  CodeFields c = split_code(f, code);
  const uint64_t top = uint64_t(f.max_exponent_field());
  switch (f.specials) {
    case Specials::IEEE:
      if (c.exponent == top) return c.mantissa == 0 ? ValueClass::Infinite : ValueClass::NaN;
      break;
    case Specials::FN:
      if (c.exponent == top && c.mantissa == f.mantissa_mask()) return ValueClass::NaN;
      break;
    case Specials::FNUZ:
      if (c.sign && c.exponent == 0 && c.mantissa == 0) return ValueClass::NaN;
      break;
    case Specials::E8M0: return c.exponent == top ? ValueClass::NaN : ValueClass::Normal;
    case Specials::None: break;
  }
  if (c.exponent == 0) return c.mantissa == 0 ? ValueClass::Zero : ValueClass::Subnormal;
  return ValueClass::Normal;
}

double decode(const FloatFormat& f, uint64_t code) {
  CodeFields c = split_code(f, code);
  const double sign = c.sign ? -1.0 : 1.0;
  switch (classify(f, code)) {
    case ValueClass::NaN: return std::copysign(std::numeric_limits<double>::quiet_NaN(), c.sign ? -1.0 : 1.0);
    case ValueClass::Infinite: return sign * std::numeric_limits<double>::infinity();
    case ValueClass::Zero: return sign * 0.0;
    case ValueClass::Subnormal: return sign * std::ldexp(double(c.mantissa), f.emin() - f.mantissa_bits);
    case ValueClass::Normal: break;
  }
  double significand = double(c.mantissa | (uint64_t{1} << f.mantissa_bits));
  return sign * std::ldexp(significand, int(c.exponent) - f.bias - f.mantissa_bits);
}

const char* value_class_name(ValueClass c) {
  switch (c) {
    case ValueClass::Zero: return "zero";
    case ValueClass::Subnormal: return "subnormal";
    case ValueClass::Normal: return "normal";
    case ValueClass::Infinite: return "infinite";
    case ValueClass::NaN: return "nan";
  }
  return "?";
}

void round_each(const FloatFormat& f, std::span<const double> in, std::span<double> out, const CastOptions& o,
                uint64_t index0) {
  const size_t n = std::min(in.size(), out.size());
  const bool nearest_block = o.rounding == Rounding::NearestEven && o.path == CastPath::Direct &&
                             !o.flush_input_subnormals && !o.flush_output_subnormals && nearest_fast_path_applies(f);
  // The element path's params (six codec calls) only where it runs.
  const RoundtripF64Params any_mode = nearest_block ? RoundtripF64Params{} : make_roundtrip_f64_params(f, o);
  // What the block leaves to the codec: Inf and NaN, and finite values rounding past the
  // largest, whose result (Inf, NaN or the largest, by the overflow policy) depends on the sign
  // alone: asked of the codec once. Data past a narrow format's range (float4's 6) would
  // otherwise go through the codec element by element, ten times slower.
  const double overflow[2] = {nearest_block ? decode(f, encode(f, std::numeric_limits<double>::max(), o).code) : 0.0,
                              nearest_block ? decode(f, encode(f, -std::numeric_limits<double>::max(), o).code) : 0.0};
  // Each element on its own (stochastic rounding draws by index), so the threads may split them.
  parallel_for(n, 0, [&](size_t begin, size_t end) {
    if (nearest_block) {
      const NearestEvenRounder nearest(f);
      constexpr size_t kBlock = 2048;
      // Straight into out unless the two overlap: a deferred element needs its input.
      const bool apart = out.data() + n <= in.data() || in.data() + n <= out.data();
      double buffer[kBlock];
      uint8_t defer[kBlock];
      for (size_t b0 = begin; b0 < end; b0 += kBlock) {
        const size_t m = std::min(kBlock, end - b0);
        double* rounded = apart ? out.data() + b0 : buffer;
        if (nearest.block(in.data() + b0, m, rounded, defer))
          for (size_t i = 0; i < m; ++i)
            if (defer[i]) {
              const double x = in[b0 + i];
              rounded[i] =
                  std::isfinite(x) ? overflow[std::signbit(x)] : decode(f, encode(f, x, o, index0 + b0 + i).code);
            }
        if (!apart) std::copy(rounded, rounded + m, out.begin() + static_cast<std::ptrdiff_t>(b0));
      }
      return;
    }
    if (any_mode.supported) {
      for (size_t i = begin; i < end; ++i) out[i] = roundtrip_f64(in[i], any_mode, index0 + i);
      return;
    }
    for (size_t i = begin; i < end; ++i) out[i] = round_to(f, in[i], o, index0 + i);
  });
}

bool overflow_saturates(const FloatFormat& f, Overflow policy) {
  return policy == Overflow::Saturate ||
         (policy == Overflow::FormatDefault && f.overflow_default() == OverflowDefault::Saturate) ||
         (!f.has_inf() && !f.has_nan());
}

}  // namespace pl
