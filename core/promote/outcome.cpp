#include "core/promote/outcome.h"

#include <algorithm>
#include <array>

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

std::string_view outcome_class_name(OutcomeClass c) {
  constexpr std::array<std::string_view, 5> kNames = {"kept", "widened", "narrowed", "error", "object"};
  return kNames[static_cast<int>(c)];
}

std::string_view operand_kind_name(OperandKind k) { return kKindNames[static_cast<int>(k)]; }

std::optional<OperandKind> parse_operand_kind(std::string_view s) { return find_named<OperandKind>(kKindNames, s); }

}  // namespace pl::promote
