// cairo's output into memory: a file is encoded whole before anything is written, and then
// written whole or not at all (io::write_file_atomic), so a stopped run or a failed write leaves
// no half a PNG or PDF under the file's name.
#pragma once

#include <cairo.h>

#include <string>

namespace pl::figure {

// A cairo_write_func_t appending to the std::string `out` points at. No exception may cross
// cairo's C code: running out of memory is cairo's error instead.
inline cairo_status_t append_to_string(void* out, const unsigned char* bytes, unsigned int n) noexcept {
  try {
    static_cast<std::string*>(out)->append(reinterpret_cast<const char*>(bytes), n);
    return CAIRO_STATUS_SUCCESS;
  } catch (...) {
    return CAIRO_STATUS_NO_MEMORY;
  }
}

}  // namespace pl::figure
