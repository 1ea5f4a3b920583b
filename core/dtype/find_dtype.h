// A dtype looked up by name in a fixed list (an engine's supported dtypes).
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "core/dtype/dtype.h"

namespace pl {

// The dtype among `dtypes` whose canonical name is `n`.
template <size_t N>
std::optional<DType> find_dtype(const std::array<DType, N>& dtypes, std::string_view n) {
  for (DType t : dtypes)
    if (name(t) == n) return t;
  return std::nullopt;
}

}  // namespace pl
