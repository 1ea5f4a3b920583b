// Text from a file, made safe to print: a tensor name holding an ANSI or OSC escape sequence
// must not reach the terminal as one, and a 10 MB string is not quoted whole.
#pragma once

#include <string>
#include <string_view>

namespace pl {

// Control characters (below 0x20, and 0x7f) written as \xNN, a backslash as \\; past `max`
// bytes the text is cut and "..." added. Bytes from 0x80 up (UTF-8) are kept.
std::string printable(std::string_view text, size_t max = 80);
// The same, never cut: a path or a value the user typed, quoted back in an error.
inline std::string printable_whole(std::string_view text) { return printable(text, text.size()); }

}  // namespace pl
