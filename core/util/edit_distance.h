// Levenshtein distance, for "did you mean" suggestions when a name is mistyped.
#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

namespace pl {

// The fewest single-character insertions, deletions and substitutions that turn `a` into `b`.
inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace pl
