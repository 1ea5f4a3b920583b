// How the window shows a figure -- zoomed to a range, an axis switched between linear and log,
// some series hidden -- and what lies under the mouse. A view is applied to the description
// itself (apply_view), so the file exported from the window is the picture on the screen.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/figure/figure.h"
#include "core/figure/plot_layout.h"

namespace pl::figure {

// A series' name without the note a run appends to its label: "arithmetic (881 exact)" is
// "arithmetic". Hiding goes by name, so a series stays hidden when the next run's note differs.
std::string series_name(const std::string& label);

// Which of `parts` (series names: an error's total and its sources) the figure plots as series,
// in the order of `parts`: a choice between them means something only among these.
std::vector<std::string> error_parts_plotted(const Figure& f, std::span<const std::string> parts);

struct View {
  std::optional<double> x_lo, x_hi, y_lo, y_hi;  // a zoomed range; unset: the figure's own
  std::optional<bool> x_log, y_log;              // unset: the figure's own scale
  std::vector<std::string> hidden;               // names (series_name) of series and lines not drawn
  // A heat map's colour map; a sequential map over signed values shows their magnitudes.
  std::optional<Colormap> colormap;

  bool zoomed() const { return x_lo || x_hi || y_lo || y_hi; }
  bool hides(const std::string& label) const;
  void toggle(const std::string& label);
  void reset_zoom() { x_lo = x_hi = y_lo = y_hi = std::nullopt; }
  std::string key() const;  // changes whenever the picture would (a texture cache key)
};

// Whether a heat map may be drawn in colour map `m`: the diverging map (white at zero) only where
// its values go below zero; on an SQNR or a log2-scale map its white would fall mid-range and
// could not be told from the white of an exact cell.
bool colormap_fits(const Heatmap& h, Colormap m);

// The figure as the view shows it. A heat map ignores zoom and scales and takes the colour map
// where it fits (colormap_fits), else keeps its own.
Figure apply_view(const Figure& f, const View& v);

// Whether the window may zoom or put on a log scale this axis of `f`: not a heat map and not
// a categorical axis; a log scale also needs some positive data.
bool can_zoom(const Figure& f, bool x_axis);
bool can_log(const Figure& f, bool x_axis);

// Zooms by `factor` (below 1 zooms in) about the pixel (px, py) of the drawing `l` describes,
// in each axis's own scale (log axes zoom in decades). Axes that cannot zoom are left alone.
View zoomed(const View& v, const Figure& f, const PlotLayout& l, double px, double py, double factor);
// Moves the shown range so the data follows a drag of (dx, dy) pixels.
View panned(const View& v, const Figure& f, const PlotLayout& l, double dx, double dy);

// What the mouse at (px, py) points at: the nearest data point within `radius` pixels, else the
// histogram bin or category under it (every series' count there) and any reference line
// within `radius`, else the coordinates. Lines are ready to print; `marker` says whether
// (mx, my) is a data point to highlight. Outside the plot: nothing.
struct Readout {
  std::vector<std::string> lines;
  bool marker = false;
  double mx = 0, my = 0;
};
std::optional<Readout> readout_at(const Figure& f, const PlotLayout& l, double px, double py, double radius = 8);

}  // namespace pl::figure
