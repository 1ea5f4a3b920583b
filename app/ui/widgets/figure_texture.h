// A figure description (core/figure) drawn by the same cairo code the exporters use, into an
// OpenGL texture the window shows -- so the screen and the exported files show the same picture.
#pragma once

#include <string>

#include "core/figure/figure.h"

namespace pl::ui {

class FigureTexture {
 public:
  FigureTexture() = default;
  FigureTexture(const FigureTexture&) = delete;
  FigureTexture& operator=(const FigureTexture&) = delete;
  ~FigureTexture();

  // Redraws when the figure (by `key`), the size or the text scale changed. False when the
  // size is too small to draw.
  bool update(const figure::Figure& f, const std::string& key, int width, int height, float font_scale);
  unsigned texture() const { return texture_; }

 private:
  unsigned texture_ = 0;
  int width_ = 0, height_ = 0;
  float scale_ = 1;  // the figure text scale it was drawn at (presentation mode)
  std::string key_;
};

}  // namespace pl::ui
