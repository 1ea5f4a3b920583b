#include "core/promote/outcome.h"

#include <array>

#include "core/util/names.h"

namespace pl::promote {
namespace {
constexpr std::array<std::string_view, kOperandKindCount> kKindNames = {"tensor", "zerodim", "scalar"};
}

OutcomeClass classify(DType a, DType b, const Outcome& o) {
  if (!o.ok()) return o.other_result.empty() ? OutcomeClass::Error : OutcomeClass::Object;
  const DType r = *o.result;
  const int bits = info(r).storage_bits;
  if (bits < info(a).storage_bits || bits < info(b).storage_bits) return OutcomeClass::Narrowed;
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
