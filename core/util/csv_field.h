// A field of a CSV line as RFC 4180 writes it: in double quotes, inner quotes doubled, where it
// holds a comma, a quote or a line break (a figure's legend entry "x.to(w.dtype): float32, 21.9
// bits" would otherwise be two fields); as it is elsewhere. csv_quoted always quotes (tables of
// messages, whose fields a reader should not have to tell apart by their content).
#pragma once

#include <string>
#include <string_view>

namespace pl {

inline std::string csv_quoted(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

inline std::string csv_field(std::string_view s) {
  return s.find_first_of(",\"\r\n") == std::string_view::npos ? std::string(s) : csv_quoted(s);
}

}  // namespace pl
