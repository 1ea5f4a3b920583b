// The window's view of a figure: the layout the renderer draws with maps data to the pixels it
// really painted; zoom keeps the value under the mouse where it is and pan moves it with the
// mouse (on linear and log axes); hidden series and scale switches change the description that
// is exported; hover read-outs name the point, bin or cell under the mouse.
#include <cairo.h>

#include <cmath>
#include <map>

#include "core/export/figure_export.h"
#include "core/figure/experiment_figures.h"
#include "core/figure/figure_view_state.h"
#include "core/figure/text_width.h"
#include "tests/core/test_util.h"

namespace pl::figure {
namespace {

Figure line_figure(bool log_x) {
  Figure f;
  f.name = "line";
  f.x.label = "K";
  f.y.label = "error";
  f.x.log = log_x;
  f.series.push_back({"measured", SeriesKind::Line, {1, 10, 100, 1000}, {0.5, 1, 2, 4}, palette(0)});
  f.series.push_back({"marker", SeriesKind::Points, {10}, {3}, {1, 0, 0, 1}});
  f.annotations.push_back({AnnotationKind::HorizontalLine, 3.5, "bound", palette(2)});
  return f;
}

Figure histogram_figure() {
  Figure f;
  f.name = "hist";
  f.x.label = "error";
  f.y.label = "count";
  f.series.push_back({"input rounding", SeriesKind::Bars, {-1, 0, 1, 2}, {3, 5, 7}, palette(0)});
  f.series.push_back({"total", SeriesKind::Steps, {-1, 0, 1, 2}, {4, 6, 8}, palette(1)});
  f.annotations.push_back({AnnotationKind::VerticalLine, 1.5, "u", palette(2)});
  return f;
}

// Bug: a figure exported from the window with a series hidden said nothing of it: a bound
// figure without its estimate read as if the model had none. The subtitle names what is hidden.
TEST(FigureView, TheFigureAsShownNamesWhatIsHidden) {
  Figure f;
  f.subtitle = "setup";
  f.series.push_back({"measured", SeriesKind::Line, {1, 2}, {1, 2}, palette(0)});
  f.series.push_back({"estimate sqrt(K) u (dotted)", SeriesKind::Line, {1, 2}, {3, 4}, palette(1)});
  f.annotations.push_back({AnnotationKind::HorizontalLine, 0.5, "u f32", {}});
  View v;
  EXPECT_EQ(apply_view(f, v).subtitle, "setup");
  v.toggle("estimate sqrt(K) u (dotted)");
  v.toggle("u f32");
  const Figure shown = apply_view(f, v);
  EXPECT_EQ(shown.subtitle, "setup; hidden here: estimate sqrt(K) u, u f32");
  EXPECT_EQ(shown.series.size(), 1u);
}

// Bug: the window offered the diverging map (white at zero) on an SQNR map of 17 to 58 dB: its
// white fell mid-range, and its midpoint could not be told from the white of an exact cell. It
// is offered, and applied, only where the values go below zero.
TEST(FigureView, TheDivergingMapIsOnlyForValuesThatGoBelowZero) {
  Figure f;
  f.heatmap = Heatmap{};
  f.heatmap->rows = 1, f.heatmap->cols = 2, f.heatmap->values = {17, 58};
  f.heatmap->vmin = 17, f.heatmap->vmax = 58;
  f.heatmap->map = Colormap::Viridis;
  EXPECT_FALSE(colormap_fits(*f.heatmap, Colormap::Diverging));
  EXPECT_TRUE(colormap_fits(*f.heatmap, Colormap::Cividis));
  View v;
  v.colormap = Colormap::Diverging;
  EXPECT_EQ(apply_view(f, v).heatmap->map, Colormap::Viridis);
  v.colormap = Colormap::Cividis;
  EXPECT_EQ(apply_view(f, v).heatmap->map, Colormap::Cividis);
  f.heatmap->vmin = -3;
  v.colormap = Colormap::Diverging;
  EXPECT_EQ(apply_view(f, v).heatmap->map, Colormap::Diverging);
}

// A scan's heat map names rows by module ("embeddings.position_embeddings"): a figure wide enough
// gives the names their room at full size, a narrow one keeps its plot.
TEST(FigureLayout, HeatmapRowNamesTakeTheRoomAWideFigureHas) {
  Figure f;
  f.name = "sqnr-heatmap";
  f.heatmap = Heatmap{};
  f.heatmap->rows = 2, f.heatmap->cols = 1, f.heatmap->values = {1, 2};
  const std::string name = "embeddings.position_embeddings";
  f.y.categories = {"0", name};
  const double needed = 34 + 1.03 * text_width(name, 10);
  EXPECT_GE(layout_figure(f, 1200, 700).x0, needed);
  EXPECT_LE(layout_figure(f, 600, 400).x0, 140);
}

TEST(FigureLayout, MapsEveryAxisValueToAPixelAndBack) {
  for (bool log : {false, true}) {
    const Figure f = line_figure(log);
    const PlotLayout l = layout_figure(f, 900, 560);
    EXPECT_DOUBLE_EQ(l.x0, 78);
    EXPECT_DOUBLE_EQ(l.y1, 560 - 58);
    for (double v : {1.0, 10.0, 300.0, 1000.0}) EXPECT_NEAR(l.x.to_value(l.x.to_pixel(v)), v, 1e-9 * v);
    EXPECT_LE(l.x.lo, 1.0);
    EXPECT_GE(l.x.hi, 1000.0);
    EXPECT_GT(l.y.to_pixel(1), l.y.to_pixel(2));  // up the screen is up the axis
  }
}

TEST(FigureLayout, IsWhereTheRendererPaintedThePoint) {
  // A red marker drawn by draw_figure lands on the pixel the layout computes for it -- the
  // renderer and the window's hover share one layout.
  const Figure f = line_figure(true);
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 900, 560);
  cairo_t* cr = cairo_create(s);
  draw_figure(cr, f, 900, 560);
  cairo_destroy(cr);
  cairo_surface_flush(s);
  const PlotLayout l = layout_figure(f, 900, 560);
  const int px = static_cast<int>(l.x.to_pixel(10)), py = static_cast<int>(l.y.to_pixel(3));
  const auto* p = cairo_image_surface_get_data(s) + py * cairo_image_surface_get_stride(s) + 4 * px;
  EXPECT_EQ(p[2], 255);  // BGRA: red
  EXPECT_LT(p[1], 40);
  EXPECT_LT(p[0], 40);
  cairo_surface_destroy(s);
}

TEST(FigureView, ZoomKeepsTheValueUnderTheMouseOnLinearAndLogAxes) {
  for (bool log : {false, true}) {
    const Figure f = line_figure(log);
    const PlotLayout before = layout_figure(f, 900, 560);
    const double px = 300, py = 200;
    const View v = zoomed({}, f, before, px, py, 0.5);
    ASSERT_TRUE(v.zoomed());
    const PlotLayout after = layout_figure(apply_view(f, v), 900, 560);
    EXPECT_NEAR(after.x.to_value(px), before.x.to_value(px), 1e-9 * std::fabs(before.x.to_value(px)));
    EXPECT_NEAR(after.y.to_value(py), before.y.to_value(py), 1e-9);
    if (log) EXPECT_NEAR(std::log10(after.x.hi / after.x.lo), 0.5 * std::log10(before.x.hi / before.x.lo), 1e-9);
    else EXPECT_NEAR(after.x.hi - after.x.lo, 0.5 * (before.x.hi - before.x.lo), 1e-9);
  }
}

TEST(FigureView, PanMovesTheDataWithTheMouse) {
  for (bool log : {false, true}) {
    const Figure f = line_figure(log);
    const PlotLayout before = layout_figure(f, 900, 560);
    const View v = panned({}, f, before, 40, -25);
    const PlotLayout after = layout_figure(apply_view(f, v), 900, 560);
    EXPECT_NEAR(after.x.to_value(340), before.x.to_value(300), 1e-9 * before.x.to_value(300));
    EXPECT_NEAR(after.y.to_value(175), before.y.to_value(200), 1e-9);
  }
}

TEST(FigureView, HiddenSeriesAndScaleSwitchesChangeTheDescription) {
  const Figure f = line_figure(false);
  View v;
  v.toggle("marker");
  v.toggle("bound");
  v.x_log = true;
  const Figure shown = apply_view(f, v);
  ASSERT_EQ(shown.series.size(), 1u);
  EXPECT_EQ(shown.series[0].label, "measured");
  EXPECT_TRUE(shown.annotations.empty());
  EXPECT_TRUE(shown.x.log);
  EXPECT_NE(v.key(), View{}.key());
  v.toggle("marker");
  EXPECT_EQ(apply_view(f, v).series.size(), 2u);
  // Hidden by name: the next run's note on the label does not bring a series back.
  View by_name;
  by_name.toggle("arithmetic (881 exact)");
  EXPECT_TRUE(by_name.hides("arithmetic (12 exact)"));
  EXPECT_TRUE(by_name.hides("arithmetic"));
  EXPECT_FALSE(by_name.hides("arithmetic error"));
  // A categorical axis neither zooms nor goes logarithmic; a heat map takes no view at all.
  Figure bars;
  bars.x.categories = {"f32", "bf16"};
  category_axis(bars, 2);
  bars.series.push_back(category_bar(0, "f32", 10));
  EXPECT_FALSE(can_zoom(bars, true));
  EXPECT_FALSE(can_log(bars, true));
  EXPECT_TRUE(can_log(bars, false));
  Figure heat;
  heat.heatmap = Heatmap{2, 2, {1, 2, 3, 4}, Colormap::Diverging, 0, 4, ""};
  EXPECT_FALSE(can_zoom(heat, false));
  View z;
  z.y_log = true;
  EXPECT_FALSE(apply_view(heat, z).y.log);
}

TEST(FigureView, ASequentialColourMapShowsTheMagnitudeOfSignedErrors) {
  Figure heat;
  heat.heatmap = Heatmap{1, 3, {-2, 0.5, 1}, Colormap::Diverging, -2, 2, "C - R"};
  View v;
  v.colormap = Colormap::Cividis;
  const Heatmap h = *apply_view(heat, v).heatmap;
  EXPECT_EQ(h.map, Colormap::Cividis);
  EXPECT_EQ(h.values, (std::vector<double>{2, 0.5, 1}));
  EXPECT_EQ(h.vmin, 0);
  EXPECT_EQ(h.vmax, 2);
  EXPECT_EQ(h.colorbar_label, "|C - R|");
  v.colormap = Colormap::Diverging;  // the figure's own map: unchanged
  EXPECT_EQ(apply_view(heat, v).heatmap->values, heat.heatmap->values);
  // Cividis runs dark blue to yellow, as matplotlib's does.
  EXPECT_LT(colormap(Colormap::Cividis, 0).r, 0.05);
  EXPECT_GT(colormap(Colormap::Cividis, 1).r, 0.95);
  EXPECT_LT(colormap(Colormap::Cividis, 1).b, 0.3);
}

// Bug: the Experiment panel offered "show: every part" above the signed-error and heat map
// figures, which plot the total alone. It offers the choice where the figure plots parts.
TEST(FigureView, ErrorPartsAreCountedByTheSeriesAFigurePlots) {
  experiment::MatmulConfig c;
  c.m = c.n = 8;
  c.k = 32;
  c.input = c.weight = DType::bfloat16;
  auto r = experiment::run_matmul(c);
  ASSERT_TRUE(r) << r.error();
  const std::string parts[] = {r->total.name, r->input.name, r->arithmetic.name, r->output.name};
  std::map<std::string, std::vector<std::string>> plotted;
  for (const Figure& f : matmul_figures(*r)) plotted[f.name] = error_parts_plotted(f, parts);
  EXPECT_EQ(plotted.at("error-attribution"), (std::vector<std::string>{parts, parts + 4}));
  EXPECT_EQ(plotted.at("ulp-error"), (std::vector<std::string>{r->total.name, r->output.name}));
  EXPECT_EQ(plotted.at("signed-error"), std::vector<std::string>{r->total.name});
  // The bound figure plots the arithmetic part (its series was "measured", and the window said
  // the figure plotted the total).
  EXPECT_EQ(plotted.at("arithmetic-vs-bound"), std::vector<std::string>{r->arithmetic.name});
  EXPECT_TRUE(plotted.at("error-heatmap").empty());
}

// Bug: the palette's seventh colour, Okabe-Ito's yellow, drew the unit roundoff of a dtype an
// operand was stored in first (and a dot sweep's seventh model) at 1.3:1 against the white
// plot. Every line colour keeps at least 2:1 (WCAG's relative luminance).
TEST(Palette, EveryColourStandsOutOnTheWhitePlot) {
  auto linear = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
  for (size_t i = 0; i < 8; ++i) {
    const Color c = palette(i);
    const double luminance = 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
    EXPECT_GE(1.05 / (luminance + 0.05), 2.0) << "palette(" << i << ")";
  }
}

// A log-spaced bin read "[0.0017782794100389228, 0.0031622776601683794)": four significant digits
// say as much; counts stay whole.
TEST(FigureReadout, NumbersHaveFourSignificantDigitsAndCountsStayWhole) {
  Figure f;
  f.x.log = true;
  f.series.push_back({"count", SeriesKind::Bars, {0.0017782794100389228, 0.0031622776601683794}, {1234567}, {}});
  const PlotLayout l = layout_figure(f, 900, 560);
  const auto r = readout_at(f, l, l.x.to_pixel(0.0024), l.y1 - 2);
  ASSERT_TRUE(r);
  ASSERT_GE(r->lines.size(), 2u);
  EXPECT_EQ(r->lines[0], "[0.001779, 0.003162)");  // each end toward the bin's inside
  EXPECT_EQ(r->lines[1], "count: 1234567");
}

// Bug: a bin's ends were rounded to nearest, so [0.0017782794..., 0.0031622776...) read
// "[0.001778, 0.003162)", which begins in the bin before it. The lower end is rounded up and
// the upper down, on either side of zero and with an exponent.
TEST(FigureReadout, ABinsEndsAreShortenedTowardItsInside) {
  Figure f;
  f.series.push_back(
      {"count", SeriesKind::Bars, {-0.0031622776601683794, -0.0017782794100389228, 1.23456e-5}, {3, 4}, {}});
  const PlotLayout l = layout_figure(f, 900, 560);
  auto r = readout_at(f, l, l.x.to_pixel(-0.0024), l.y1 - 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lines[0], "[-0.003162, -0.001779)");
  r = readout_at(f, l, l.x.to_pixel(-0.0001), l.y1 - 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lines[0], "[-0.001778, 1.234e-05)");
  // A bin narrower than four digits tell apart takes more: never "[1.001, 1)".
  Figure narrow;
  narrow.series.push_back({"count", SeriesKind::Bars, {1.00001, 1.00002}, {5}, {}});
  const PlotLayout nl = layout_figure(narrow, 900, 560);
  r = readout_at(narrow, nl, nl.x.to_pixel(1.000015), nl.y1 - 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lines[0], "[1.000011, 1.000019)");
}

TEST(FigureReadout, NamesTheNearestPointTheBinAndTheCell) {
  const Figure f = line_figure(true);
  const PlotLayout l = layout_figure(f, 900, 560);
  auto r = readout_at(f, l, l.x.to_pixel(100) + 3, l.y.to_pixel(2) - 2);
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->marker);
  EXPECT_EQ(r->lines[0], "measured");
  EXPECT_EQ(r->lines[1], "K = 100");
  EXPECT_EQ(r->lines[2], "error = 2");
  EXPECT_FALSE(readout_at(f, l, 10, 10));  // outside the plot
  // Far from any point: the coordinates under the mouse.
  r = readout_at(f, l, (l.x0 + l.x1) / 2, l.y0 + 5);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->marker);
  EXPECT_EQ(r->lines[0].rfind("K = ", 0), 0u);

  const Figure h = histogram_figure();
  const PlotLayout hl = layout_figure(h, 900, 560);
  r = readout_at(h, hl, hl.x.to_pixel(1.5), hl.y.to_pixel(1));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->lines.size(), 4u);
  EXPECT_EQ(r->lines[0], "[1, 2)");
  EXPECT_EQ(r->lines[1], "input rounding: 7");
  EXPECT_EQ(r->lines[2], "total: 8");
  EXPECT_EQ(r->lines[3], "u at 1.5");

  Figure heat;
  heat.heatmap = Heatmap{2, 3, {1, 2, 3, 4, 5, 6.25}, Colormap::Viridis, 0, 7, ""};
  heat.heatmap->colorbar_label = "error (ulp)";
  const PlotLayout ml = layout_figure(heat, 900, 560);
  r = readout_at(heat, ml, ml.x1 - 1, ml.y1 - 1);  // bottom right: row 1, column 2
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lines[0], "row 1, column 2");
  EXPECT_EQ(r->lines[1], "error (ulp) = 6.25");
}

}  // namespace
}  // namespace pl::figure
