#include "core/promote/outcome.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/dtype/codec.h"
#include "core/dtype/device/float_format.h"
#include "core/util/names.h"

namespace pl::promote {
namespace {
constexpr std::array<std::string_view, kOperandKindCount> kKindNames = {"tensor", "zerodim", "scalar"};
}

bool holds_every_value(DType from, DType to) {
  if (from == to) return true;
  const DTypeInfo &f = info(from), &t = info(to);
  if (f.kind == DTypeKind::Bool) return true;  // 0 and 1
  if (t.kind == DTypeKind::Bool) return false;
  if (f.kind == DTypeKind::Complex && t.kind != DTypeKind::Complex) return false;  // the imaginary part
  if (t.kind == DTypeKind::SignedInt || t.kind == DTypeKind::UnsignedInt) {
    if (f.kind == DTypeKind::Float || f.kind == DTypeKind::Complex) return false;  // fractions
    return int_min(to) <= int_min(from) && int_max(to) >= int_max(from);
  }
  // Into a float (or a complex's component): every value of `from` exact and in range.
  const FloatFormat& into = t.format;
  if (f.kind == DTypeKind::SignedInt || f.kind == DTypeKind::UnsignedInt) {
    const int magnitude_bits = value_bits(from) - (f.kind == DTypeKind::SignedInt ? 1 : 0);
    // The most negative value too: int4's -8 is past float6_e2m3fn's 7.5, though 7 is not.
    const double largest = std::max(double(int_max(from)), -double(int_min(from)));
    return into.mantissa_bits + 1 >= magnitude_bits && max_finite(into) >= largest &&
           (int_min(from) == 0 || into.is_signed());
  }
  const FloatFormat& of = f.format;
  return into.mantissa_bits >= of.mantissa_bits && max_finite(into) >= max_finite(of) &&
         min_subnormal(into) <= min_subnormal(of);
}

OutcomeClass classify(DType a, DType b, const Outcome& o) {
  if (!o.ok()) return o.other_result.empty() ? OutcomeClass::Error : OutcomeClass::Object;
  const DType r = *o.result;
  if (!holds_every_value(a, r) || !holds_every_value(b, r)) return OutcomeClass::Narrowed;
  if (r == a || r == b) return OutcomeClass::Kept;
  return OutcomeClass::Widened;
}

bool holds_value(const PyValue& v, DType to) {
  const DTypeInfo& t = info(to);
  const bool whole = v.type == PyType::Bool || v.type == PyType::Int;
  if (v.type == PyType::Complex && v.imag != 0 && t.kind != DTypeKind::Complex) return false;
  switch (t.kind) {
    case DTypeKind::Bool: return whole && (v.integer == 0 || v.integer == 1);
    case DTypeKind::SignedInt:
    case DTypeKind::UnsignedInt: {
      __int128 n = v.integer;
      if (!whole) {  // a float holding a whole number in range
        if (!(std::fabs(v.real) < 0x1p126) || std::trunc(v.real) != v.real) return false;
        n = static_cast<__int128>(v.real);
      }
      return int_lo(to) <= n && n <= int_hi(to);
    }
    default: break;
  }
  // A float, or each part of a complex, in the format.
  const FloatFormat& f = t.format;
  auto fits = [&](double x) {
    if (std::isnan(x)) return f.has_nan();
    if (std::isinf(x)) return f.has_inf();
    return decode(f, encode(f, x, CastOptions{}).code) == x;
  };
  if (whole) {
    const double x = static_cast<double>(v.integer);
    // (2^127 - 1 rounds up to 2^127, which no __int128 holds; past float64's digits no narrower
    // float holds the value either.)
    return x < 0x1p127 && static_cast<__int128>(x) == v.integer && fits(x);
  }
  return fits(v.real) && fits(v.type == PyType::Complex ? v.imag : 0.0);
}

OutcomeClass classify_scalar(DType a, const PyValue& b, const Outcome& o) {
  if (!o.ok()) return o.other_result.empty() ? OutcomeClass::Error : OutcomeClass::Object;
  const DType r = *o.result;
  if (!holds_every_value(a, r) || !holds_value(b, r)) return OutcomeClass::Narrowed;
  return r == a ? OutcomeClass::Kept : OutcomeClass::Widened;
}

std::string scalar_lost_text(std::string_view literal, const PyValue& v, DType result, std::string_view spelled) {
  if (holds_value(v, result)) return "";
  std::string range;
  if (const DTypeKind k = info(result).kind; k == DTypeKind::SignedInt || k == DTypeKind::UnsignedInt)
    range = " (" + int128_to_string(int_lo(result)) + " to " + int128_to_string(int_hi(result)) + ")";
  return std::string(literal) + " is not a " + std::string(spelled) + " value" + range + ": the result cannot hold it";
}

std::string_view outcome_class_name(OutcomeClass c) {
  constexpr std::array<std::string_view, 5> kNames = {"kept", "widened", "narrowed", "error", "object"};
  return kNames[static_cast<int>(c)];
}

std::string_view operand_kind_name(OperandKind k) { return kKindNames[static_cast<int>(k)]; }

std::optional<OperandKind> parse_operand_kind(std::string_view s) { return find_named<OperandKind>(kKindNames, s); }

}  // namespace pl::promote
