// An error heat map drawn on the GPU: the cell values go up as a float texture and the fragment
// shader in shaders/heatmap.frag maps them through a colour table filled from core's colour maps
// (figure::colormap), into a texture the window shows over the plot area of the figure -- whose
// axes, labels and colour bar cairo draws from the same description.
#pragma once

#include <string>
#include <vector>

#include "core/figure/figure.h"

namespace pl::gl {

class HeatmapShader {
 public:
  HeatmapShader() = default;
  HeatmapShader(const HeatmapShader&) = delete;
  HeatmapShader& operator=(const HeatmapShader&) = delete;
  ~HeatmapShader();

  // Draws `h` into a width x height texture when `key` (the data), the size or the map changed.
  // Needs a current GL 3.3 context; restores the framebuffer, viewport and program it found.
  // False, with error() saying why, when the shader does not compile or the target is incomplete.
  bool render(const figure::Heatmap& h, const std::string& key, int width, int height);
  unsigned texture() const { return color_; }
  const std::string& error() const { return error_; }
  // The rendered pixels, RGBA, the heat map's row 0 first (the top as the window shows it).
  std::vector<unsigned char> read_pixels() const;

 private:
  bool build_program();

  unsigned program_ = 0, vao_ = 0, values_ = 0, lut_ = 0, fbo_ = 0, color_ = 0;
  int width_ = 0, height_ = 0;
  figure::Colormap lut_map_ = figure::Colormap::Viridis;
  bool lut_filled_ = false;
  std::string key_, error_;
};

}  // namespace pl::gl
