#include "app/ui/widgets/figure_texture.h"

#include <cairo.h>
#include <glad/gl.h>

#include <cstdint>
#include <vector>

#include "core/export/figure_export.h"

namespace pl::ui {

FigureTexture::~FigureTexture() {
  if (texture_) glDeleteTextures(1, &texture_);
}

bool FigureTexture::update(const figure::Figure& f, const std::string& key, int width, int height, float scale) {
  if (width < 64 || height < 64) return false;
  if (!texture_ || key != key_ || width != width_ || height != height_ || scale != scale_) {
    cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    cairo_t* cr = cairo_create(s);
    figure::draw_figure(cr, f, width, height, scale);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    // cairo's ARGB32 is premultiplied, native-endian 0xAARRGGBB (B, G, R, A bytes here); the
    // figure paints an opaque background, so the bytes upload as BGRA.
    const int stride = cairo_image_surface_get_stride(s);
    const unsigned char* data = cairo_image_surface_get_data(s);
    std::vector<unsigned char> packed(static_cast<size_t>(width) * height * 4);
    for (int y = 0; y < height; ++y)
      std::copy(data + y * stride, data + y * stride + width * 4, packed.data() + static_cast<size_t>(y) * width * 4);
    cairo_surface_destroy(s);
    if (!texture_) glGenTextures(1, &texture_);
    glBindTexture(GL_TEXTURE_2D, texture_);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_BGRA, GL_UNSIGNED_BYTE, packed.data());
    key_ = key;
    scale_ = scale;
    width_ = width;
    height_ = height;
  }
  return true;
}

}  // namespace pl::ui
