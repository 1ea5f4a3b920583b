#include "core/figure/figure.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/figure/text_width.h"
#include "core/util/number_text.h"

namespace pl::figure {
namespace {

Color hex(uint32_t rgb) { return {((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0, 1}; }

Color lerp_table(const uint32_t* table, size_t n, double t) {
  t = std::clamp(std::isnan(t) ? 0.5 : t, 0.0, 1.0) * static_cast<double>(n - 1);
  const size_t i = std::min(static_cast<size_t>(t), n - 2);
  const double f = t - static_cast<double>(i);
  const Color a = hex(table[i]), b = hex(table[i + 1]);
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f, 1};
}

}  // namespace

Color palette(size_t i) {
  // Okabe-Ito: blue, vermillion, bluish green, orange, reddish purple, sky blue, grey, black.
  // Its yellow (F0E442) is replaced by a grey: as a thin line on the white plot it has 1.3:1
  // contrast and all but vanishes; the grey has 4.7:1, and having no hue, no colour-vision
  // deficiency confuses it with the others.
  static constexpr std::array<uint32_t, 8> kColors = {0x0072B2, 0xD55E00, 0x009E73, 0xE69F00,
                                                      0xCC79A7, 0x56B4E9, 0x737373, 0x000000};
  return hex(kColors[i % kColors.size()]);
}

void draw_at_bottom(Heatmap& h, bool (*has_no_place)(double), double bottom, const std::string& note) {
  if (std::none_of(h.values.begin(), h.values.end(), has_no_place)) return;
  h.csv_values = h.values;
  h.csv_note = note;
  for (double& v : h.values)
    if (has_no_place(v)) v = bottom;
}

Color heatmap_cell_colour(const Heatmap& h, double v) {
  const double span = h.vmax > h.vmin ? h.vmax - h.vmin : 1;
  if (std::isfinite(v)) return colormap(h.map, (v - h.vmin) / span);
  return h.inf_is_exact && std::isinf(v) && v > 0 ? Color{1, 1, 1, 1} : Color{0.5, 0.5, 0.5, 1};
}

std::vector<CellLabel> heatmap_cell_labels(const Heatmap& h, double w, double hgt, double font_px) {
  std::vector<CellLabel> out;
  if (h.rows == 0 || h.cols == 0 || h.cell_labels.size() != h.rows * h.cols) return out;
  const double cw = w / double(h.cols), rh = hgt / double(h.rows);
  if (rh < 1.4 * font_px) return out;
  for (size_t r = 0; r < h.rows; ++r)
    for (size_t c = 0; c < h.cols; ++c) {
      const std::string& text = h.cell_labels[r * h.cols + c];
      if (text.empty()) continue;
      if (text_width(text, font_px) + 0.6 * font_px > cw) return {};
      const Color col = heatmap_cell_colour(h, h.values[r * h.cols + c]);
      // Dark on a light cell (viridis's yellow, an exact cell's white), light on a dark one.
      const double luminance = 0.2126 * col.r + 0.7152 * col.g + 0.0722 * col.b;
      out.push_back({(double(c) + 0.5) * cw, (double(r) + 0.5) * rh, text, luminance > 0.45});
    }
  return out;
}

Color colormap(Colormap m, double t) {
  // Viridis sampled at 11 evenly spaced points (matplotlib's _viridis_data, CC0).
  static constexpr uint32_t kViridis[] = {0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c,
                                          0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725};
  // ColorBrewer RdBu (11 classes), reversed so low is blue and high is red.
  static constexpr uint32_t kRdBu[] = {0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7,
                                       0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b, 0x67001f};
  // Cividis sampled the same way (matplotlib 3.11's _cividis_data).
  static constexpr uint32_t kCividis[] = {0x00224e, 0x0c3470, 0x35456c, 0x4f576c, 0x666970, 0x7d7c78,
                                          0x948e77, 0xada272, 0xc8b866, 0xe5cf52, 0xfee838};
  switch (m) {
    case Colormap::Viridis: return lerp_table(kViridis, 11, t);
    case Colormap::Diverging: return lerp_table(kRdBu, 11, t);
    case Colormap::Cividis: return lerp_table(kCividis, 11, t);
  }
  return {};
}

const char* colormap_name(Colormap m) {
  switch (m) {
    case Colormap::Viridis: return "viridis";
    case Colormap::Diverging: return "RdBu (diverging)";
    case Colormap::Cividis: return "cividis";
  }
  return "";
}

bool sequential(Colormap m) { return m != Colormap::Diverging; }

void separate_coincident_lines(Figure& f) {
  for (size_t j = 1; j < f.series.size(); ++j) {
    Series& later = f.series[j];
    if (later.kind != SeriesKind::Line || later.label.empty() || later.x.empty()) continue;
    for (size_t i = 0; i < j; ++i) {
      Series& earlier = f.series[i];
      if (earlier.kind != SeriesKind::Line || earlier.label.empty() || earlier.x != later.x) continue;
      if (earlier.y.size() != later.y.size()) continue;
      // Equal at every point, or within 1% at every point: on the plot the later line covers the
      // earlier (float64's training loss under float32's, scenario 28). Either way the earlier is
      // drawn wide beneath it and the legend says how close they are.
      bool same = true, close = true;
      for (size_t k = 0; close && k < later.y.size(); ++k) {
        const double a = earlier.y[k], b = later.y[k];
        if (a == b || (std::isnan(a) && std::isnan(b))) continue;
        same = false;
        close = std::isfinite(a) && std::isfinite(b) && std::fabs(b - a) <= 0.01 * std::max(std::fabs(a), std::fabs(b));
      }
      if (!close) continue;
      earlier.width = 5;
      later.label += " (on " + earlier.label + (same ? ": equal at every point)" : ": within 1% at every point)");
      break;
    }
  }
}

void category_axis(Figure& f, size_t count) {
  f.y.min = 0;
  f.x.min = 0;
  f.x.max = static_cast<double>(std::max<size_t>(count, 1));
}

Series category_bar(size_t i, std::string legend, double value) {
  const double x = static_cast<double>(i);
  return {std::move(legend), SeriesKind::Bars, {x + 0.15, x + 0.85}, {value}, palette(i)};
}

std::string legend_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  if (!std::isfinite(v) || std::strtod(buf, nullptr) == v) return buf;  // 0.25 stays 0.25
  // A power of two that four digits do not hold exactly (2^-24, not 5.96e-08); any other value by
  // its own leading digits (bfloat16's gamma_4, 1/63, is 0.01587..., not the 0.01587 of %.4g,
  // which states a bound below it).
  if (std::string p = power_of_two_text(v); !p.empty()) return p;
  return leading_digits_text(v, 4);
}

}  // namespace pl::figure
