#include "core/util/printable.h"

#include <cstdio>

namespace pl {

std::string printable(std::string_view text, size_t max) {
  std::string out;
  const bool cut = text.size() > max;
  for (unsigned char c : text.substr(0, max)) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += static_cast<char>(c);
    }
  }
  if (cut) out += "...";
  return out;
}

}  // namespace pl
