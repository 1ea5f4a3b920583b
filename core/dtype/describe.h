// What the CLI prints and the Formats panel shows for one value or code:
// the result, its bits split by field, and the error, computed once here so
// both front ends show the same numbers.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "core/dtype/codec.h"
#include "core/dtype/format_lookup.h"

namespace pl {

struct CodeReport {
  uint64_t code;
  std::string bits_hex;     // 0x-prefixed, width of the format
  std::string bits_binary;  // "s eeee mmm" with spaces between fields
  CodeFields fields;
  ValueClass value_class;
  double value;
  std::string value_shortest;  // shortest decimal that reads back to this code
  std::string value_exact;     // every digit
  int precision = 0;           // the format's significand bits (display_value's digits)
};

struct CastReport {
  double input;
  CodeReport result;
  CastFlags flags;
  double abs_error;  // |result - input|: Inf when a finite input overflowed to an Inf, NaN for a
                     // non-finite input or a NaN result
  double rel_error;  // abs_error / |input|, NaN for input 0 or as abs_error
  double ulp_error;  // (result - input) / ulp(input) in the target format
};

// Why a cast has no finite error to show: "overflow to inf" (65520 -> float16), "overflow to
// nan" (1000 -> float8_e4m3fnuz), "not a finite input"; nothing when the errors are numbers.
std::optional<std::string> no_finite_error(const CastReport& r);

CodeReport describe_code(const FloatFormat& f, uint64_t code);
// The value as text for a person: the exact decimal when it is short (float16's "0.1" is
// 0.0999755859375), else its own first digits, as many as the format tells apart, and "..."
// (stored_value_text). Never the shortest decimal that reads back to the same bits: float32's
// nearest value to 1e-40 would read "1e-40", as if 1e-40 were representable.
std::string display_value(const CodeReport& r);
CastReport describe_cast(const FloatFormat& f, double x, const CastOptions& o, uint64_t index = 0);
// ulp of the format at x: 2^(max(floor(log2|x|), emin) - m), capped at the top binade; NaN
// for x not finite. Inline: error statistics call it for every element.
inline double ulp_at(const FloatFormat& f, double x) {
  if (!std::isfinite(x)) return std::numeric_limits<double>::quiet_NaN();
  // The exponent straight from the bits for normal doubles (ilogb is a libm call), ilogb for
  // float64 subnormals.
  const int biased = static_cast<int>((std::bit_cast<uint64_t>(x) >> 52) & 0x7ff);
  int e = x == 0.0 ? f.emin() : biased ? biased - 1023 : std::ilogb(x);
  e = std::max(e, f.emin());
  e = std::min(e, f.emax());
  e -= f.mantissa_bits;
  return e >= -1022 ? std::bit_cast<double>(static_cast<uint64_t>(e + 1023) << 52) : std::ldexp(1.0, e);
}

nlohmann::json to_json(const CodeReport& r);
nlohmann::json to_json(const CastReport& r, const std::string& input_text);
nlohmann::json format_json(const FormatRef& f);  // one row of `precision-lab formats --json`
// JSON numbers cannot hold NaN or Inf: they become the strings "nan", "inf", "-inf".
nlohmann::json json_number(double v);

}  // namespace pl
