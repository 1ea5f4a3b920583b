// A comma-separated list read as its items: "float32,bfloat16:float32", "f16:sequential,f32:kahan".
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/expected.h"

namespace pl {

// The items of `list`, in order. An empty item -- two commas, or one at an end, or no list at
// all -- is an error naming `what` an item is ("an empty model in the list ..."), not an item
// dropped: "float32," read as one model would hide a typo.
inline Expected<std::vector<std::string>> comma_items(std::string_view list, std::string_view what) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= list.size();) {
    const size_t end = std::min(list.find(',', start), list.size());
    if (end == start)
      return Error{"an empty " + std::string(what) + " in the list (two commas, or one at an end)"};
    out.emplace_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace pl
