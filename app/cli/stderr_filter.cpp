#include "app/cli/stderr_filter.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace pl::cli {

std::string escape_controls(std::string_view text, bool* pending_c2) {
  std::string out;
  out.reserve(text.size() + (*pending_c2 ? 1 : 0));
  char hex[8];
  for (unsigned char c : text) {
    if (*pending_c2) {
      *pending_c2 = false;
      if (c >= 0x80 && c <= 0x9f) {  // U+0080 .. U+009F
        std::snprintf(hex, sizeof hex, "\\u%04x", c);
        out += hex;
        continue;
      }
      out += static_cast<char>(0xc2);
    }
    if (c == 0xc2) {
      *pending_c2 = true;
    } else if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f) {
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {

bool pending = false;

// All of `data`, retrying short writes and EINTR; what fwrite sees as the count written.
ssize_t write_escaped(void*, const char* data, size_t size) {
  const std::string out = escape_controls(std::string_view(data, size), &pending);
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::write(STDERR_FILENO, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(size);
}

}  // namespace

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

bool filter_stderr() {
  cookie_io_functions_t io{};
  io.write = write_escaped;
  FILE* filtered = fopencookie(nullptr, "w", io);
  if (!filtered) return false;
  std::setvbuf(filtered, nullptr, _IONBF, 0);  // in order with anything else written to fd 2
  stderr = filtered;
  return true;
}

}  // namespace pl::cli
