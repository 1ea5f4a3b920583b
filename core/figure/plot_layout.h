// Where a figure's plot sits in a W x H drawing and which data range each axis shows: the one
// computation both the cairo renderer (core/export/figure_export) and the window's hover,
// zoom and pan (app/ui/figure_view) use, so a mouse position maps to the value drawn under it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/figure/figure.h"

namespace pl::figure {

// An axis as drawn: data range [lo, hi] mapped linearly (or in log10) onto pixels [p0, p1].
struct AxisMap {
  double lo = 0, hi = 1;
  bool log = false;
  double p0 = 0, p1 = 1;
  double to_pixel(double v) const;
  std::vector<double> to_pixels(const std::vector<double>& v) const;  // to_pixel's bits, the logs of lo and hi once
  double to_value(double pixel) const;
};

// The legend's box in pixels (nothing when the figure has no labelled series or lines).
struct LegendBox {
  double left = 0, top = 0, width = 0, height = 0;
  size_t entries = 0;
  // Each entry's label in lines, in the legend's order (the labelled series, then the reference
  // lines), when the labels were broken between words to fit their box (in the plot, beside it or
  // under the figure); empty: one line each. An entry takes legend_entry_height.
  std::vector<std::vector<std::string>> lines;
  // Under the x axis's title, across the figure's foot, in columns of these widths with the
  // entries row by row (a row as tall as its entry of most lines); empty: one column, in the plot
  // or beside it.
  std::vector<double> columns;
};
inline constexpr double kLegendColumnGap = 8;
inline constexpr double kLegendEntry = 16, kLegendLine = 13;
// An entry of `lines` lines (or a row of entries under the figure, its most), at text scale fs:
// kLegendEntry, and kLegendLine for each further line.
inline double legend_entry_height(size_t lines, double fs) {
  return (kLegendEntry + kLegendLine * static_cast<double>(lines > 0 ? lines - 1 : 0)) * fs;
}
// The margin under the plot (times the text scale): tick labels (or category names in up to two
// lines) and the x axis's title, or the labels alone where the axis has no title.
inline constexpr double kBottomWithTitle = 58, kBottomWithoutTitle = 36;

// `label` broken between words into lines no wider than `width` pixels at `font_px` (a word
// wider than that is a line of its own).
std::vector<std::string> wrap_label(const std::string& label, double width, double font_px);
// wrap_label's lines at the narrowest width that needs no more of them: a legend's label broken
// in two reads "float32 (on float64: within / 1% at every point)", not "... at every / point)".
std::vector<std::string> balanced_label(const std::string& label, double width, double font_px);

// The header above the plot (times the text scale): the title, kTitlePx bold, centred on kTitleY
// (a second line kTitleStep below it), then the subtitle, kSubtitlePx in one to four lines
// kSubtitleStep apart, centred kSubtitleBelow under the title's last line, and the plot's top
// kPlotBelow under that (each line of subtitle past two moves it kSubtitleStep further down).
inline constexpr double kTitlePx = 15, kSubtitlePx = 11;
inline constexpr double kTitleY = 22, kTitleStep = 18, kSubtitleStep = 12, kSubtitleBelow = 20, kPlotBelow = 20;
// The smallest the title and the subtitle are drawn before the title takes a second line or
// either is cut (of their sizes); and the figure's margin, left of a header that does not start
// in line with the plot and right of every header.
inline constexpr double kHeaderSmallest = 0.8, kHeaderMargin = 12;

struct PlotLayout {
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;  // the plot rectangle in pixels (y0 is the top)
  // Where the title and subtitle start: in line with the plot, or at the figure's margin where
  // either would be cut there. The title takes 2 lines where it is too wide for one even from
  // the margin (and has a space to break at), which moves the subtitle and the plot a line down.
  // The subtitle takes 3 or 4 lines where 2 would cut it even from the margin (moving the plot
  // down a line each).
  double header_left = 0;
  int title_lines = 1;
  int subtitle_lines = 2;                 // the most the subtitle takes
  AxisMap x, y;                           // y.p0 is the bottom edge (y1), y.p1 the top (y0)
  LegendBox legend;
  bool contains(double px, double py) const { return px >= x0 && px <= x1 && py >= y0 && py <= y1; }
};

// The layout draw_figure() uses for `f` drawn at W x H with text scale `font_scale`. A heat map
// maps columns and rows: x in [0, cols], y in [rows, 0] (row 0 at the top). The legend goes in
// the plot's corner that covers the least data (data_under); when every corner covers some and
// the y axis is not fixed (a zoom fixes it), the y range grows at the top until the legend's
// row is free of data, and the legend sits there.
PlotLayout layout_figure(const Figure& f, double W, double H, double font_scale = 1);

// How much of f's data a box (left, top, width, height; pixels of `l`) would cover: the data
// points inside it, the bars whose top lies in or under it anywhere across their width, and the
// reference lines crossing it. The legend goes in the corner where this is least.
size_t data_under(const Figure& f, const PlotLayout& l, double left, double top, double width, double height);
// Each series' x and y in pixels of a layout (NaN or an infinity where the data has no place on a
// log axis), for data_under to compare many boxes without mapping the data again.
struct DataPixels {
  DataPixels(const Figure& f, const PlotLayout& l);
  std::vector<std::vector<double>> x, y;  // by series, then point
};
size_t data_under(const DataPixels& pixels, const Figure& f, const PlotLayout& l, double left, double top,
                  double width, double height);

// Where an axis is ticked: whole decades on a log axis (every few when there are many; 1, 2 and
// 5 times each decade when it spans fewer than two), else whole multiples of a 1-2-5 step (so
// that zero, when in range, is exactly 0), about one per 60 pixels of the axis.
std::vector<double> axis_ticks(const AxisMap& axis);
// An axis's tick texts, one format for all of them (else a log axis could read "0.01, 1e-3" and "1000, 1e4"):
// a log axis in plain decimals when every tick lies in [0.01, 1000], else all as 1e-3, 2e-3;
// a linear axis with as many decimals as its step has (0.0, 0.5, 1.0), or all as 2e6, 4e6 when
// its values reach a million or stay under a thousandth.
std::vector<std::string> tick_labels(const std::vector<double>& ticks, bool log);

// A heat map's colour bar beside a plot from pixel y0 (top) to y1: its scale ticked as an axis
// is (1-2-5 steps, one format), and where its parts sit right of the plot's edge, in pixels at
// font scale 1: the bar, its tick texts (and "exact" under it where a cell is exact), then the
// title, as close as the widest text allows. The layout leaves the plot `room` less than the
// figure's width, so that short texts ("40") leave no blank band for the cells to lose.
struct ColourBar {
  std::vector<double> ticks;
  std::vector<std::string> labels;
  bool exact = false;         // a cell is +inf read as exact (Heatmap::inf_is_exact): keyed under the bar
  double bar = 18, width = 16;  // the bar's left edge from the plot, and its width
  double texts = 38;            // where the tick texts start
  double title = 0;             // the rotated title's centre
  double room = 0;              // from the plot's edge to the figure's
};
ColourBar colour_bar(const Heatmap& h, double y0, double y1);

}  // namespace pl::figure
