// Text inside XML or HTML (an SVG's <text>, a slide page's cells): the five characters markup
// reads as its own written as entities.
#pragma once

#include <string>
#include <string_view>

namespace pl {

inline std::string markup_escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace pl
