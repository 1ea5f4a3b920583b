// A figure described once, in data: axes, series, annotations, an optional heat map. The
// exporters (core/export/figure_export) draw it with cairo to PNG, SVG and PDF and write its
// data as CSV; the window draws the same description, so a file shows what the screen shows.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pl::figure {

struct Color {
  double r = 0, g = 0, b = 0, a = 1;
};

// Colour-blind-safe qualitative palette (Okabe and Ito, 2008), one colour per series index.
Color palette(size_t i);

enum class SeriesKind : uint8_t {
  Bars,    // histogram: x holds bins + 1 edges, y one count per bin
  Steps,   // the same, drawn as an outline (for a histogram laid over others)
  Line,    // polyline through (x, y)
  Points,  // markers at (x, y)
};

struct Series {
  std::string label;
  SeriesKind kind = SeriesKind::Line;
  std::vector<double> x, y;
  Color color;
  bool dashed = false;
  double width = 0;  // a line's or outline's width at text scale 1; 0: the kind's own (2)
  // Points: a name beside each marker (a scan's candidates on its frontier plot); empty: none.
  std::vector<std::string> point_labels = {};
  // A dotted line: a second reference beside a dashed one (an estimate beside a bound).
  bool dotted = false;
  // In the legend. A series left out keeps its label for the CSV and the window's show/hide list
  // (a dot sweep's per-model bounds, which a legend key names once by their pattern).
  bool in_legend = true;
  // Bars: the value they grow from, up or down; NaN: the axis's bottom. A log axis has no zero,
  // and bars from its arbitrary floor made a 1x speed-up look like a solid bar (scenario 18):
  // a speed-up's bars grow from 1.
  double base = std::numeric_limits<double>::quiet_NaN();
};

enum class AnnotationKind : uint8_t { VerticalLine, HorizontalLine };

// A reference value drawn across the plot with its label: a unit roundoff, a bound.
struct Annotation {
  AnnotationKind kind = AnnotationKind::VerticalLine;
  double value = 0;
  std::string label;
  Color color;
  bool dashed = true;
};

struct Axis {
  std::string label;
  bool log = false;
  std::optional<double> min, max;  // unset: from the data
  // A categorical axis (bar charts of dtypes): category i spans [i, i + 1] and is labelled at
  // its centre instead of numeric ticks. Empty: a numeric axis.
  std::vector<std::string> categories;
  // The same categories named shorter ("f32", "bf16", "e4m3fn"), drawn where the names would be
  // cut; empty: the names are cut.
  std::vector<std::string> short_categories;
  bool ticks = true;  // false: no tick marks or numbers (a number line's vertical axis)
};

enum class Colormap : uint8_t {
  Viridis,    // sequential, perceptually uniform, colour-blind safe (matplotlib's viridis)
  Diverging,  // blue - white - red for signed values, symmetric about zero (ColorBrewer RdBu)
  Cividis,    // sequential, made for colour-vision deficiency (Nunez et al. 2018; matplotlib's)
};
const char* colormap_name(Colormap m);  // "viridis", "RdBu (diverging)", "cividis"
bool sequential(Colormap m);

Color colormap(Colormap m, double t);  // t in [0, 1]

struct Heatmap {
  size_t rows = 0, cols = 0;
  std::vector<double> values;  // row-major; NaN and infinities: no value (grey), but see inf_is_exact
  Colormap map = Colormap::Diverging;
  double vmin = 0, vmax = 1;  // the colour bar's range (values clamp to it)
  std::string colorbar_label;
  // +inf means exact (an SQNR without any error) and is drawn white, outside the map, keyed
  // under the colour bar; elsewhere +inf is an overflow (an error map's Inf output), grey.
  bool inf_is_exact = false;
  // A matrix's map whose cells each cover a block of elements (a pooled error map): cell (i, j)
  // holds rows i * block_rows ... of matrix_rows, columns j * block_cols ... of matrix_cols. The
  // axes then count the matrix's rows and columns, not the cells; 0: the map has no such matrix.
  size_t block_rows = 1, block_cols = 1, matrix_rows = 0, matrix_cols = 0;
  // Row-major, one per cell ("" for none), written in the cells where every one fits (a scan's
  // SQNRs: viridis draws 31 dB and 33 dB alike); empty: no labels.
  std::vector<std::string> cell_labels = {};
  // What the CSV writes for each cell, where `values` draws some cells at a value they do not
  // have (draw_at_bottom), and what those cells hold, for the CSV's comment line; empty: `values`
  // as they are.
  std::vector<double> csv_values = {};
  std::string csv_note = {};
};

// Draws the cells whose value `has_no_place` (a block of zeros, which has no scale; an SQNR of
// -inf) at `bottom`, the colour scale's lowest, keeping what they hold for the CSV with `note`.
void draw_at_bottom(Heatmap& h, bool (*has_no_place)(double), double bottom, const std::string& note);

// A cell's colour as the map draws it: its value's, white for an exact cell, grey for none.
Color heatmap_cell_colour(const Heatmap& h, double v);

// Where a heat map's cell labels go in a plot area `w` x `hgt` pixels, at `font_px` pixels of
// text: each one's centre (from the area's top left), its text, and whether it is written dark
// (on a light cell) or light. None unless every label fits its cell with room around it: a few
// numbers on a map of many would read as all there are.
struct CellLabel {
  double x, y;
  std::string_view text;
  bool dark;
};
std::vector<CellLabel> heatmap_cell_labels(const Heatmap& h, double w, double hgt, double font_px);

struct Figure {
  std::string name;  // file stem: "error-histogram"
  std::string tab;   // what a tab shows, when not the name read as words ("error histogram")
  // The run it comes from, when figures of several runs are shown together (a scenario's): the
  // window's tabs name the runs, then the chosen run's figures.
  std::string group;
  std::string title, subtitle;
  Axis x, y;
  std::vector<Series> series;
  std::vector<Annotation> annotations;
  std::optional<Heatmap> heatmap;  // drawn instead of series when set
};

// Bar charts over categories (dtypes, fixes): the categorical x axis for `count` bars and y from
// zero; a bar for category i, narrower than its slot so neighbours stand apart, coloured by i.
// The legend carries the numbers; its room above the tallest bar is made by the layout, in
// pixels (plot_layout.cpp's place_legend), so that it holds at any size the figure is drawn.
// A labelled line drawn exactly over an earlier one would hide it (scenario 11's "the layer's own
// error" lies on its arithmetic error, every point equal): the earlier is drawn wide, so the later
// shows inside it, and the later's label says which line it lies on.
void separate_coincident_lines(Figure& f);
void category_axis(Figure& f, size_t count);
Series category_bar(size_t i, std::string legend, double value);

// A value in a legend line, short enough to fit the box: four significant digits, or "2^-24" for
// a power of two they do not hold exactly (a unit roundoff). Hover and CSV keep every digit.
std::string legend_value(double v);

}  // namespace pl::figure
