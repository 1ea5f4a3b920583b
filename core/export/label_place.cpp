#include "core/export/label_place.h"

#include <algorithm>
#include <cmath>

namespace pl::figure {

namespace {

// The length of segment s inside box b (Liang-Barsky: s clipped to each of b's four sides).
double length_inside(const LabelSegment& s, const LabelBox& b) {
  const double dx = s.x1 - s.x0, dy = s.y1 - s.y0;
  double t0 = 0, t1 = 1;
  const double p[] = {-dx, dx, -dy, dy}, q[] = {s.x0 - b.x0, b.x1 - s.x0, s.y0 - b.y0, b.y1 - s.y0};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return 0;  // parallel to this side and outside it
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0) t0 = std::max(t0, t);
    else t1 = std::min(t1, t);
  }
  return t1 > t0 ? (t1 - t0) * std::hypot(dx, dy) : 0;
}

// Whether segments a and b cross (each one's ends on opposite sides of the other's line).
bool cross(const LabelSegment& a, const LabelSegment& b) {
  auto side = [](double x0, double y0, double x1, double y1, double x, double y) {
    return (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0);
  };
  const double d1 = side(a.x0, a.y0, a.x1, a.y1, b.x0, b.y0), d2 = side(a.x0, a.y0, a.x1, a.y1, b.x1, b.y1);
  const double d3 = side(b.x0, b.y0, b.x1, b.y1, a.x0, a.y0), d4 = side(b.x0, b.y0, b.x1, b.y1, a.x1, a.y1);
  return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

}  // namespace

std::optional<LabelSegment> leader_of(const LabelBox& b, double px, double py, double h, double pad) {
  const double cy = (b.y0 + b.y1) / 2;
  if (std::fabs(cy - py) <= h / 4) return std::nullopt;
  // A name over or under its marker: straight up or down to the edge of its line nearer the marker.
  if (b.x0 <= px && px <= b.x1) return LabelSegment{px, py, px, cy > py ? b.y0 + pad : b.y1 - pad};
  return LabelSegment{px, py, b.x0 > px ? b.x0 - pad : b.x1 + pad, cy};
}

LabelBox choose_label_box(double w, double h, double gap, double px, double py, const LabelBox& plot,
                          const std::vector<LabelBox>& placed, const std::vector<LabelBox>& markers,
                          const std::vector<LabelSegment>& lines, const LabelBox* legend,
                          const std::vector<LabelSegment>& leaders) {
  auto overlap = [](const LabelBox& a, const LabelBox& b) {
    return std::max(0.0, std::min(a.x1, b.x1) - std::max(a.x0, b.x0)) *
           std::max(0.0, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
  };
  auto covered = [&](const LabelBox& b) {
    double area = 3 * ((b.x1 - b.x0) * (b.y1 - b.y0) - overlap(b, plot));
    if (legend) area += 3 * overlap(b, *legend);
    for (const LabelBox& o : placed) area += overlap(b, o);
    for (const LabelBox& m : markers) area += 2 * overlap(b, m);
    for (const LabelSegment& s : lines) area += h * length_inside(s, b);
    for (const LabelSegment& s : leaders) area += h * length_inside(s, b);
    if (const auto mine = leader_of(b, px, py, h, 0)) {
      for (const LabelSegment& s : leaders)
        if (cross(*mine, s)) area += h * h;
      for (const LabelBox& o : placed) area += h * length_inside(*mine, o);
      // Through another marker, a leader reads as that marker's (the plan frontier's "i8 channel"
      // below its dot, its leader running up past "e4m3fn channel"'s, at 1280x800).
      for (const LabelBox& m : markers)
        if (!(m.x0 <= px && px <= m.x1 && m.y0 <= py && py <= m.y1)) area += 2 * h * length_inside(*mine, m);
    }
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
