#include "core/dtype/describe.h"

#include <cmath>
#include <cstdio>

#include "core/dtype/shortest_decimal.h"
#include "core/util/number_text.h"

namespace pl {

CodeReport describe_code(const FloatFormat& f, uint64_t code) {
  CodeReport r{};
  r.code = code & f.code_mask();
  r.precision = f.precision();
  int hex_digits = (f.total_bits() + 3) / 4;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", hex_digits, static_cast<unsigned long long>(r.code));
  r.bits_hex = buf;
  for (int b = f.total_bits() - 1; b >= 0; --b) {
    r.bits_binary += ((r.code >> b) & 1) ? '1' : '0';
    bool field_end =
        (f.is_signed() && b == f.exponent_bits + f.mantissa_bits) || (b == f.mantissa_bits && f.mantissa_bits > 0);
    if (field_end && b != 0) r.bits_binary += ' ';
  }
  r.fields = split_code(f, r.code);
  r.value_class = classify(f, r.code);
  r.value = decode(f, r.code);
  r.value_shortest = shortest_decimal(f, r.value);
  r.value_exact = exact_decimal(r.value);
  // A NaN's sign bit carries no value (fnuz formats' only NaN is 0x80): "nan", as NumPy and
  // PyTorch print it; the bits show the sign.
  if (std::isnan(r.value)) r.value_shortest = r.value_exact = "nan";
  return r;
}

std::optional<std::string> no_finite_error(const CastReport& r) {
  if (!std::isfinite(r.input)) return "not a finite input";
  if (std::isfinite(r.result.value)) return std::nullopt;
  const std::string what = std::isnan(r.result.value) ? "nan" : r.result.value < 0 ? "-inf" : "inf";
  return (r.flags.overflow ? "overflow to " : "becomes ") + what;
}

std::string display_value(const CodeReport& r) {
  constexpr size_t kShortEnough = 30;  // fits a terminal column beside the bits
  if (r.value_exact.size() <= kShortEnough || !std::isfinite(r.value)) return r.value_exact;
  return stored_value_text(r.value, r.value_exact, r.precision);
}

CastReport describe_cast(const FloatFormat& f, double x, const CastOptions& o, uint64_t index) {
  Encoded e = encode(f, x, o, index);
  CastReport r{};
  r.input = x;
  r.result = describe_code(f, e.code);
  r.flags = e.flags;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  bool finite = std::isfinite(x) && std::isfinite(r.result.value);
  // A finite value that overflows to an infinity is off by an infinite amount, not an undefined
  // one; only a non-finite input (or a NaN result) leaves the errors undefined.
  const bool overflowed = std::isfinite(x) && std::isinf(r.result.value);
  const double inf = std::numeric_limits<double>::infinity();
  r.abs_error = finite ? std::fabs(r.result.value - x) : overflowed ? inf : nan;
  r.rel_error = (finite || overflowed) && x != 0.0 ? r.abs_error / std::fabs(x) : nan;
  r.ulp_error = finite ? (r.result.value - x) / ulp_at(f, x) : overflowed ? std::copysign(inf, r.result.value) : nan;
  return r;
}

nlohmann::json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

nlohmann::json to_json(const CodeReport& r) {
  return {{"bits", r.bits_hex},
          {"bits_binary", r.bits_binary},
          {"sign", r.fields.sign},
          {"exponent_field", r.fields.exponent},
          {"mantissa_field", r.fields.mantissa},
          {"class", value_class_name(r.value_class)},
          {"value", json_number(r.value)},
          {"value_decimal", r.value_shortest},
          {"value_exact", r.value_exact}};
}

nlohmann::json to_json(const CastReport& r, const std::string& input_text) {
  nlohmann::json j = to_json(r.result);
  j["input"] = input_text;
  j["input_value"] = json_number(r.input);
  j["abs_error"] = json_number(r.abs_error);
  j["rel_error"] = json_number(r.rel_error);
  j["ulp_error"] = json_number(r.ulp_error);
  j["flags"] = {{"inexact", r.flags.inexact},
                {"overflow", r.flags.overflow},
                {"saturated", r.flags.saturated},
                {"underflow", r.flags.underflow},
                {"nan_to_zero", r.flags.nan_to_zero},
                {"to_nan", r.flags.to_nan},
                {"flushed_input", r.flags.flushed_input},
                {"flushed_output", r.flags.flushed_output}};
  return j;
}

nlohmann::json format_json(const FormatRef& ref) {
  const FloatFormat& f = ref.format;
  nlohmann::json j{{"name", ref.name},
                   {"bits", f.total_bits()},
                   {"storage_bits", ref.dtype ? info(*ref.dtype).storage_bits : f.total_bits()},
                   {"sign_bits", f.sign_bits()},
                   {"exponent_bits", f.exponent_bits},
                   {"mantissa_bits", f.mantissa_bits},
                   {"bias", f.bias},
                   {"precision", f.precision()},
                   {"emin", f.emin()},
                   {"emax", f.emax()},
                   {"max_finite", max_finite(f)},
                   {"min_normal", min_normal(f)},
                   {"min_subnormal", f.has_subnormals() ? nlohmann::json(min_subnormal(f)) : nlohmann::json()},  // null: none (E8M0)
                   {"epsilon", machine_epsilon(f)},
                   {"unit_roundoff", unit_roundoff(f)},
                   {"has_inf", f.has_inf()},
                   {"has_nan", f.has_nan()},
                   {"has_negative_zero", f.has_negative_zero()},
                   {"specials", specials_name(f.specials)},
                   {"overflow_default", f.overflow_default() == OverflowDefault::ToInf   ? "inf"
                                        : f.overflow_default() == OverflowDefault::ToNaN ? "nan"
                                                                                         : "saturate"}};
  j["nan_encoding"] = f.has_nan() ? nlohmann::json(describe_code(f, f.nan_code()).bits_hex) : nullptr;
  j["inf_encoding"] = f.has_inf() ? nlohmann::json(describe_code(f, f.inf_code()).bits_hex) : nullptr;
  j["negative_zero_encoding"] =
      f.has_negative_zero() ? nlohmann::json(describe_code(f, f.sign_mask()).bits_hex) : nullptr;
  if (ref.dtype) {
    const auto& fw = framework_names(*ref.dtype);
    j["torch"] = fw.torch;
    j["numpy"] = fw.numpy;
    j["jax"] = fw.jax;
    j["tensorflow"] = fw.tf;
    j["defined_by"] = info(*ref.dtype).defined_by;
  }
  return j;
}

}  // namespace pl
