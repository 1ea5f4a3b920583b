#include "core/promote/outcome.h"

#include <array>

namespace pl::promote {
namespace {
constexpr std::array<std::string_view, kOperandKindCount> kKindNames = {"tensor", "zerodim",
                                                                        "scalar"};
}

std::string_view operand_kind_name(OperandKind k) { return kKindNames[static_cast<int>(k)]; }

std::optional<OperandKind> parse_operand_kind(std::string_view s) {
  for (int i = 0; i < kOperandKindCount; ++i)
    if (kKindNames[i] == s) return static_cast<OperandKind>(i);
  return std::nullopt;
}

}  // namespace pl::promote
