// Where a point's name goes beside its marker in a figure: the first of a few places (right of
// the marker, left of it, then up to five lines above or below, beside it or centred over it) that
// covers no name already
// placed and no marker and stays inside the plot -- or, where every place does, the one that
// covers least. Kept apart from the drawing so that the choice can be tested without cairo.
#pragma once

#include <vector>

namespace pl::figure {

struct LabelBox {
  double x0, y0, x1, y1;
};

// A name `w` wide and `h` high for the marker at (px, py), `gap` from it. `plot` clips: a part
// past its edges counts three times (a cut name is lost outright), a marker covered twice (it
// hides a point), a name already placed once.
LabelBox choose_label_box(double w, double h, double gap, double px, double py, const LabelBox& plot,
                          const std::vector<LabelBox>& placed, const std::vector<LabelBox>& markers);

}  // namespace pl::figure
