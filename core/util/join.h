// Items spelled and joined with a separator: "16,256,4096", "H100 SXM5, H100 PCIe".
#pragma once

#include <string>
#include <string_view>

namespace pl {

template <typename Range, typename Spell>
std::string join(const Range& items, std::string_view separator, Spell spell) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;  // appended: chained `a + b` trips GCC 12's false -Wrestrict
    out += spell(item);
  }
  return out;
}

}  // namespace pl
