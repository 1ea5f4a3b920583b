// A long line drawn on a raster keeps only what its pixels show: each pixel column's first,
// lowest, highest and last point of a run.
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include <gtest/gtest.h>

#include "core/export/figure_export.h"
#include "core/figure/line_thinning.h"

namespace pl::figure {
namespace {

bool same(const PixelPoint& a, const PixelPoint& b) { return a.x == b.x && a.y == b.y; }

TEST(LineThinning, KeepsEachColumnsFirstLowestHighestAndLastInOrder) {
  // Column 0: six points, the lowest third and the highest fourth; column 1: one point.
  const std::vector<PixelPoint> run{{0.1, 5}, {0.2, 7}, {0.3, 1}, {0.4, 9}, {0.5, 6}, {0.6, 4}, {1.5, 2}};
  const std::vector<PixelPoint> kept = thin_to_columns(run, {});
  const std::vector<PixelPoint> want{{0.1, 5}, {0.3, 1}, {0.4, 9}, {0.6, 4}, {1.5, 2}};
  ASSERT_EQ(kept.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(same(kept[i], want[i])) << i;
  // The first is the highest, the last the lowest: each kept once.
  const std::vector<PixelPoint> falling{{0.1, 9}, {0.2, 7}, {0.3, 8}, {0.4, 5}, {0.5, 3}, {0.6, 1}};
  const std::vector<PixelPoint> ends = thin_to_columns(falling, {});
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_TRUE(same(ends[0], falling.front()));
  EXPECT_TRUE(same(ends[1], falling.back()));
  // Four points or fewer come back whole, whatever their columns.
  const std::vector<PixelPoint> few{{0.1, 1}, {0.2, 2}, {0.3, 3}, {0.4, 4}};
  EXPECT_EQ(thin_to_columns(few, {}).size(), 4u);
  // Columns half a unit wide (a PNG at twice the resolution) split the first column in two.
  EXPECT_EQ(thin_to_columns(run, {0.5, 0}).size(), 6u);
  // Columns that start at 0.35 split it between 0.3 and 0.4.
  EXPECT_EQ(thin_to_columns(run, {1, 0.35}).size(), 6u);
}

TEST(LineThinning, ALongRunKeepsAtMostFourPointsAColumnAndEveryColumnsSpan) {
  std::vector<PixelPoint> run;
  for (int i = 0; i < 100000; ++i) run.push_back({i * 0.009, 300 + 200 * std::sin(i * 0.37) * std::cos(i * 0.0011)});
  const std::vector<PixelPoint> kept = thin_to_columns(run, {});
  EXPECT_LE(kept.size(), 4u * 900);
  EXPECT_TRUE(same(kept.front(), run.front()));
  EXPECT_TRUE(same(kept.back(), run.back()));
  auto spans = [](const std::vector<PixelPoint>& points) {
    std::map<int, std::pair<double, double>> by_column;
    for (const PixelPoint& p : points) {
      auto [it, fresh] = by_column.try_emplace(static_cast<int>(std::floor(p.x)), p.y, p.y);
      it->second = {std::min(it->second.first, p.y), std::max(it->second.second, p.y)};
    }
    return by_column;
  };
  EXPECT_EQ(spans(kept), spans(run));
  for (size_t i = 1; i < kept.size(); ++i) EXPECT_LT(kept[i - 1].x, kept[i].x) << i;  // the run's order
}

// A solid line is thinned on an image surface, to its device pixels; SVG and PDF (any surface
// but an image) keep every point.
TEST(LineThinning, OnlyARasterThinsItsLines) {
  cairo_surface_t* img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 10, 10);
  cairo_t* cr = cairo_create(img);
  std::optional<PixelColumns> c = raster_columns(cr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->width, 1);
  EXPECT_EQ(c->origin, 0);
  cairo_translate(cr, 0.5, 0);
  cairo_scale(cr, 2, 2);  // a PNG at 192 dpi, moved half a pixel
  c = raster_columns(cr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->width, 0.5);
  EXPECT_EQ(c->origin, -0.25);
  cairo_matrix_t shear;
  cairo_matrix_init(&shear, 1, 0, 0.3, 1, 0, 0);
  cairo_set_matrix(cr, &shear);
  EXPECT_FALSE(raster_columns(cr));  // columns slanted on the device
  cairo_destroy(cr);
  cairo_surface_destroy(img);
  cairo_surface_t* rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, nullptr);
  cairo_t* vector = cairo_create(rec);
  EXPECT_FALSE(raster_columns(vector));
  cairo_destroy(vector);
  cairo_surface_destroy(rec);
}

// A figure's pixels: drawn on an image surface (a raster: thinned), or recorded with every point
// and then played onto one.
std::vector<uint32_t> pixels(const Figure& f, int w, int h, bool every_point) {
  cairo_surface_t* img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  cairo_t* cr = cairo_create(img);
  if (every_point) {
    cairo_surface_t* rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, nullptr);
    cairo_t* rcr = cairo_create(rec);
    draw_figure(rcr, f, w, h);
    cairo_destroy(rcr);
    cairo_set_source_surface(cr, rec, 0, 0);
    cairo_paint(cr);
    cairo_surface_destroy(rec);
  } else {
    draw_figure(cr, f, w, h);
  }
  cairo_destroy(cr);
  cairo_surface_flush(img);
  std::vector<uint32_t> out;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      out.push_back(*reinterpret_cast<const uint32_t*>(cairo_image_surface_get_data(img) +
                                                       y * cairo_image_surface_get_stride(img) + 4 * x));
  cairo_surface_destroy(img);
  return out;
}

// Bug: a training run's loss over 100,000 steps (five models) took cairo seconds to stroke at
// 900 x 560, on the UI thread at each zoom. Thinned, the raster shows the same line.
TEST(LineThinning, ARasterOfALongLineLooksAsEveryPointDrawsIt) {
  Figure f;
  f.title = "loss";
  f.y.log = true;
  for (int m = 0; m < 2; ++m) {
    Series s{"model " + std::to_string(m), SeriesKind::Line, {}, {}, {0.2 + 0.5 * m, 0.3, 0.7, 1}};
    for (int i = 0; i < 20000; ++i) {
      s.x.push_back(i);
      s.y.push_back(std::exp(-i * 2e-4 * (m + 1)) * (1 + 0.5 * std::sin(i * 0.37)) + 1e-4);
    }
    f.series.push_back(s);
  }
  const int w = 600, h = 400;
  const std::vector<uint32_t> thinned = pixels(f, w, h, false), every = pixels(f, w, h, true);
  // Every channel of every pixel within 40 of 255: the edges' antialiasing differs a little
  // (17 at most here), a point or a spike left out would differ by the line's whole colour.
  int worst = 0;
  for (size_t i = 0; i < thinned.size(); ++i)
    for (int shift : {0, 8, 16})
      worst = std::max(worst, std::abs(int((thinned[i] >> shift) & 0xff) - int((every[i] >> shift) & 0xff)));
  EXPECT_LE(worst, 40);
}

}  // namespace
}  // namespace pl::figure
