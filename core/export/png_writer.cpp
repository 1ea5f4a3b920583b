#include "core/export/png_writer.h"

#include <cairo.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "core/export/cairo_memory.h"
#include "core/io/checked_write.h"

namespace pl {

Status write_png_rgba(const std::string& path, const std::vector<unsigned char>& rgba, int width, int height) {
  if (width <= 0 || height <= 0 || rgba.size() != size_t(width) * height * 4)
    return Error{"image size does not match its pixel data"};
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_surface_flush(s);
  unsigned char* data = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < height; ++y) {
    auto* row = reinterpret_cast<uint32_t*>(data + size_t(y) * stride);
    for (int x = 0; x < width; ++x) {
      const unsigned char* p = &rgba[(size_t(y) * width + x) * 4];
      uint32_t a = p[3];
      auto pm = [a](uint32_t c) { return (c * a + 127) / 255; };  // cairo wants premultiplied
      row[x] = (a << 24) | (pm(p[0]) << 16) | (pm(p[1]) << 8) | pm(p[2]);
    }
  }
  cairo_surface_mark_dirty(s);
  // Encoded in memory, then written whole or not at all (a stopped run leaves no half a PNG, and
  // a missing folder or a full disk is named as the system names it).
  std::string png;
  const cairo_status_t st = cairo_surface_write_to_png_stream(s, figure::append_to_string, &png);
  cairo_surface_destroy(s);
  if (st != CAIRO_STATUS_SUCCESS) return Error{"could not encode " + path + ": " + cairo_status_to_string(st)};
  return io::write_file_atomic(path, png);
}

}  // namespace pl
