#include "core/figure/throughput_figures.h"

#include <algorithm>
#include <cstdio>

namespace pl::figure {
namespace {

std::string subtitle(const ThroughputContext& c) {
  return std::to_string(c.n) + "^3 products on " + c.device +
         "; float64/float32 are the library's own, narrower dtypes are emulated on this CPU "
         "(rounded values in float32 arithmetic), not hardware speed";
}

}  // namespace

Figure throughput_over_time(const experiment::ThroughputHistory& h, const ThroughputContext& c) {
  Figure f;
  f.name = "throughput-over-time";
  f.title = "Matrix-product throughput, live";
  f.subtitle = subtitle(c);
  f.x.label = "seconds since sampling started";
  f.y.label = "GFLOP/s";
  f.y.min = 0;
  const auto dtypes = h.dtypes();
  for (size_t i = 0; i < dtypes.size(); ++i) {
    const auto samples = h.of(dtypes[i]);
    Series points{"", SeriesKind::Points, {}, {}, palette(i)};
    points.color.a = 0.45;
    for (const auto& s : samples) points.x.push_back(s.at), points.y.push_back(s.gflops);
    Series line{std::string(name(dtypes[i])) + " (median of last " + std::to_string(c.median_window) + ")",
                SeriesKind::Line, points.x, h.sliding_median(dtypes[i], c.median_window), palette(i)};
    f.series.push_back(std::move(points));
    f.series.push_back(std::move(line));
  }
  return f;
}

Figure throughput_bars(const experiment::ThroughputHistory& h, const ThroughputContext& c) {
  Figure f;
  f.name = "throughput-by-dtype";
  f.title = "Matrix-product throughput by dtype (median of each dtype's samples)";
  f.subtitle = subtitle(c);
  f.y.label = "GFLOP/s";
  f.y.min = 0;
  const auto dtypes = h.dtypes();
  double top = 0;
  for (DType t : dtypes) top = std::max(top, h.median_gflops(t));
  // Headroom above the tallest bar for the legend, which carries each rate.
  if (top > 0) f.y.max = top * (1.2 + 0.06 * double(dtypes.size()));
  f.x.min = 0;
  f.x.max = static_cast<double>(std::max<size_t>(dtypes.size(), 1));
  for (size_t i = 0; i < dtypes.size(); ++i) {
    f.x.categories.emplace_back(name(dtypes[i]));
    const double g = h.median_gflops(dtypes[i]);
    char label[96];
    std::snprintf(label, sizeof label, "%s  %.1f GFLOP/s (%zu samples)", std::string(name(dtypes[i])).c_str(), g,
                  h.of(dtypes[i]).size());
    // A bar narrower than its category, so neighbours stand apart.
    f.series.push_back({label, SeriesKind::Bars, {i + 0.15, i + 0.85}, {g}, palette(i)});
  }
  return f;
}

}  // namespace pl::figure
