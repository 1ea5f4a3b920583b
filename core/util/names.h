// Name lookups over fixed tables (an enum's names in order), shared so every module parses
// names the same way (a list of dtypes: core/dtype/find_dtype.h).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pl {

// The enum value whose name is `n`, for enums numbered 0..N-1 in the table's order.
template <typename E, size_t N>
std::optional<E> find_named(const std::array<std::string_view, N>& names, std::string_view n) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == n) return static_cast<E>(i);
  return std::nullopt;
}

// The names of a table joined by `separator` ("none, per-tensor, ..."): what help texts and
// error messages list, so they cannot drift from what the parser accepts.
template <size_t N>
std::string join_names(const std::array<std::string_view, N>& names, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out.append(i ? separator : "").append(names[i]);
  return out;
}

}  // namespace pl
