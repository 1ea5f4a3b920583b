// A polyline of many points thinned to what a raster of it shows. Of the consecutive points that
// fall in one pixel column, a line drawn through them covers the column from the lowest to the
// highest and leaves it where the last one is: the first, the lowest, the highest and the last
// (in their order) draw nearly the same pixels, the edges' antialiasing aside (M4: Jugel, Jerzak,
// Hackenbroich and Markl, "M4: a visualization-oriented time series data aggregation", VLDB
// 2014). Unthinned, a training run's loss over 100,000 steps, five models, would take cairo
// seconds to stroke at 900 x 560, on the UI thread at each zoom; thinned, at most four points a
// column are left of each run.
#pragma once

#include <cstddef>
#include <vector>

namespace pl::figure {

struct PixelPoint {
  double x = 0, y = 0;  // in the drawing's units
};

// A raster's pixel columns in the drawing's units: column k spans
// [origin + k * width, origin + (k + 1) * width).
struct PixelColumns {
  double width = 1, origin = 0;
};

// `run` thinned to `columns`: consecutive points whose x lies in one column keep the first, the
// one of lowest y, the one of highest y and the last, in the run's order; runs of at most four
// points come back whole.
std::vector<PixelPoint> thin_to_columns(const std::vector<PixelPoint>& run, PixelColumns columns);

}  // namespace pl::figure
