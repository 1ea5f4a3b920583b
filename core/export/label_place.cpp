#include "core/export/label_place.h"

#include <algorithm>
#include <cmath>

namespace pl::figure {

LabelBox choose_label_box(double w, double h, double gap, double px, double py, const LabelBox& plot,
                          const std::vector<LabelBox>& placed, const std::vector<LabelBox>& markers) {
  auto overlap = [](const LabelBox& a, const LabelBox& b) {
    return std::max(0.0, std::min(a.x1, b.x1) - std::max(a.x0, b.x0)) *
           std::max(0.0, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
  };
  auto covered = [&](const LabelBox& b) {
    double area = 3 * ((b.x1 - b.x0) * (b.y1 - b.y0) - overlap(b, plot));
    for (const LabelBox& o : placed) area += overlap(b, o);
    for (const LabelBox& m : markers) area += 2 * overlap(b, m);
    return area;
  };
  LabelBox best{};
  double least = INFINITY;
  // Nearest first: beside the marker, then a line further up or down each time, beside it or
  // centred over it (centred only off its line, where the marker is not under the name).
  for (const double lines : {0.0, -1.0, 1.0, -2.0, 2.0, -3.0, 3.0, -4.0, 4.0, -5.0, 5.0})
    for (const double x : {px + gap, px - gap - w, px - w / 2}) {
      if (lines == 0 && x == px - w / 2) continue;
      const double dy = lines * h;
      const LabelBox b{x, py + dy - h / 2, x + w, py + dy + h / 2};
      const double c = covered(b);
      if (c < least) least = c, best = b;
      if (c == 0) return best;
    }
  return best;
}

}  // namespace pl::figure
