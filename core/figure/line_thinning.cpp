#include "core/figure/line_thinning.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace pl::figure {

std::vector<PixelPoint> thin_to_columns(const std::vector<PixelPoint>& run, PixelColumns columns) {
  if (run.size() <= 4 || !(columns.width > 0)) return run;
  std::vector<PixelPoint> out;
  const auto column = [&](size_t i) { return std::floor((run[i].x - columns.origin) / columns.width); };
  for (size_t i = 0; i < run.size();) {
    const double c = column(i);
    size_t j = i + 1, lo = i, hi = i;
    for (; j < run.size() && column(j) == c; ++j) {
      if (run[j].y < run[lo].y) lo = j;
      if (run[j].y > run[hi].y) hi = j;
    }
    const std::array<size_t, 4> kept{i, std::min(lo, hi), std::max(lo, hi), j - 1};
    for (size_t k = 0; k < kept.size(); ++k)
      if (k == 0 || kept[k] > kept[k - 1]) out.push_back(run[kept[k]]);
    i = j;
  }
  return out;
}

}  // namespace pl::figure
