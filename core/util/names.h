// Name lookups over fixed tables (an enum's names in order, a list of dtypes), shared so
// every module parses names the same way.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "core/dtype/dtype.h"

namespace pl {

// The enum value whose name is `n`, for enums numbered 0..N-1 in the table's order.
template <typename E, size_t N>
std::optional<E> find_named(const std::array<std::string_view, N>& names, std::string_view n) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == n) return static_cast<E>(i);
  return std::nullopt;
}

// The dtype among `dtypes` whose canonical name is `n`.
template <size_t N>
std::optional<DType> find_dtype(const std::array<DType, N>& dtypes, std::string_view n) {
  for (DType t : dtypes)
    if (name(t) == n) return t;
  return std::nullopt;
}

}  // namespace pl
