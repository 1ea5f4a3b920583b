// A row of tabs, one per figure, and the chosen figure drawn into the space left -- at the
// exported files' aspect ratio, or filling the space in presentation mode.
#pragma once

#include <string>
#include <vector>

#include "app/ui/figure_texture.h"
#include "core/figure/figure.h"

namespace pl::ui {

class FigureView {
 public:
  // `version` changes whenever the figures' data does (the texture is redrawn then).
  void draw(const char* id, const std::vector<figure::Figure>& figures, const std::string& version, float aspect);
  int chosen() const { return chosen_; }  // the figure on screen (its tab)

 private:
  int chosen_ = 0;
  FigureTexture texture_;
};

}  // namespace pl::ui
