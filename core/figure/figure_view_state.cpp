#include "core/figure/figure_view_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/util/number_text.h"

namespace pl::figure {
namespace {

std::string g4(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A number under the mouse: whole numbers (counts, K) as they are, others by their first four
// significant digits, their own ("[0.0017782794100389228, 0.0031622776601683794)" read as noise,
// and to nearest a bound drawn as a line, float32's gamma_4096 = 1/4095 = 0.00024420..., read
// 0.0002442, below itself).
std::string readout_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e7) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  return leading_digits_text(v, 4);
}

bool is_histogram(const Series& s) { return s.kind == SeriesKind::Bars || s.kind == SeriesKind::Steps; }

// The axis value at `pixel`, and the range scaled by `factor` about it, in the axis's scale.
void scale_about(const AxisMap& a, double pixel, double factor, std::optional<double>& lo, std::optional<double>& hi) {
  const double c = a.to_value(pixel);
  if (a.log) {
    const double lc = std::log10(c);
    lo = std::pow(10, lc - (lc - std::log10(a.lo)) * factor);
    hi = std::pow(10, lc + (std::log10(a.hi) - lc) * factor);
  } else {
    lo = c - (c - a.lo) * factor;
    hi = c + (a.hi - c) * factor;
  }
}

void shift(const AxisMap& a, double d_pixel, std::optional<double>& lo, std::optional<double>& hi) {
  // The value under the pixel the drag started on moves to where the mouse is now.
  const double from = a.to_value(a.p0), to = a.to_value(a.p0 - d_pixel);
  if (a.log) {
    const double ratio = to / from;
    lo = a.lo * ratio;
    hi = a.hi * ratio;
  } else {
    lo = a.lo + (to - from);
    hi = a.hi + (to - from);
  }
}

std::string x_text(const Figure& f, double x) {
  if (!f.x.categories.empty()) {
    const double i = std::floor(x);
    if (i >= 0 && i < static_cast<double>(f.x.categories.size())) return f.x.categories[static_cast<size_t>(i)];
  }
  return readout_number(x);
}

// A bin's end under the mouse, to four digits shortened toward the bin's inside, or more where
// four cross over (inward_end_text): to nearest, the bin [0.0017782794..., 0.0031622776...) read
// "[0.001778, 0.003162)", which begins below the bin, in the one before it, and at four a bin
// [1.00001, 1.00002) read "[1.001, 1)".
std::string bin_end_text(double v, bool upper, double width) {
  if (!std::isfinite(v) || (v == std::floor(v) && std::fabs(v) < 1e7)) return readout_number(v);
  return inward_end_text(exact_decimal(v), v, upper, 4, width);
}

// "[a, b)", built by appending (GCC 12 warns falsely on a chain of + here).
std::string bin_text(double a, double b) {
  std::string s = "[";
  s += bin_end_text(a, false, b - a);
  s += ", ";
  s += bin_end_text(b, true, b - a);
  s += ")";
  return s;
}

std::string label_or(const std::string& label, const char* fallback) { return label.empty() ? fallback : label; }

}  // namespace

std::string series_name(const std::string& label) {
  const size_t note = label.find(" (");
  return note == std::string::npos ? label : label.substr(0, note);
}

std::vector<std::string> error_parts_plotted(const Figure& f, std::span<const std::string> parts) {
  std::vector<std::string> plotted;
  for (const std::string& part : parts)
    if (std::any_of(f.series.begin(), f.series.end(), [&](const Series& s) { return series_name(s.label) == part; }))
      plotted.push_back(part);
  return plotted;
}

bool View::hides(const std::string& label) const {
  return std::find(hidden.begin(), hidden.end(), series_name(label)) != hidden.end();
}

void View::toggle(const std::string& label) {
  const std::string name = series_name(label);
  if (auto it = std::find(hidden.begin(), hidden.end(), name); it != hidden.end()) hidden.erase(it);
  else hidden.push_back(name);
}

std::string View::key() const {
  std::string k;
  for (const auto* o : {&x_lo, &x_hi, &y_lo, &y_hi}) k += (*o ? hex_float(**o) : "-") + ",";
  for (const auto* o : {&x_log, &y_log}) k += *o ? (**o ? "L" : "l") : "-";
  if (colormap) k += colormap_name(*colormap);
  for (const std::string& h : hidden) k += "|" + h;
  return k;
}

bool colormap_fits(const Heatmap& h, Colormap m) { return sequential(m) || h.vmin < 0; }

Figure apply_view(const Figure& f, const View& v) {
  Figure out = f;
  if (f.heatmap) {
    Heatmap& h = *out.heatmap;
    if (!v.colormap || *v.colormap == h.map || !colormap_fits(h, *v.colormap)) return out;
    if (sequential(*v.colormap) && !sequential(h.map) && h.vmin < 0) {
      for (double& x : h.values) x = std::fabs(x);
      h.vmax = std::max(std::fabs(h.vmin), std::fabs(h.vmax));
      h.vmin = 0;
      h.colorbar_label = "|" + h.colorbar_label + "|";
    }
    h.map = *v.colormap;
    return out;
  }
  if (v.x_log && can_log(f, true)) out.x.log = *v.x_log;
  if (v.y_log && can_log(f, false)) out.y.log = *v.y_log;
  if (v.x_lo && can_zoom(f, true)) out.x.min = v.x_lo, out.x.max = v.x_hi;
  if (v.y_lo && can_zoom(f, false)) out.y.min = v.y_lo, out.y.max = v.y_hi;
  auto hidden_series = [&](const Series& s) { return !s.label.empty() && v.hides(s.label); };
  auto hidden_line = [&](const Annotation& a) { return !a.label.empty() && v.hides(a.label); };
  // What is hidden is named on the figure: exported from the window, a bound figure with its
  // estimate hidden would read as if the model had none.
  std::vector<std::string> left_out;
  auto leave_out = [&](const std::string& label) {
    if (std::find(left_out.begin(), left_out.end(), series_name(label)) == left_out.end())
      left_out.push_back(series_name(label));
  };
  for (const Series& s : f.series)
    if (hidden_series(s)) leave_out(s.label);
  for (const Annotation& a : f.annotations)
    if (hidden_line(a)) leave_out(a.label);
  for (size_t i = 0; i < left_out.size(); ++i) out.subtitle += (i ? ", " : "; hidden here: ") + left_out[i];
  out.series.erase(std::remove_if(out.series.begin(), out.series.end(), hidden_series), out.series.end());
  out.annotations.erase(std::remove_if(out.annotations.begin(), out.annotations.end(), hidden_line),
                        out.annotations.end());
  return out;
}

bool can_zoom(const Figure& f, bool x_axis) { return !f.heatmap && (!x_axis || f.x.categories.empty()); }

bool can_log(const Figure& f, bool x_axis) {
  if (!can_zoom(f, x_axis)) return false;
  for (const Series& s : f.series)
    for (double v : x_axis ? s.x : s.y)
      if (v > 0 && std::isfinite(v)) return true;
  return false;
}

View zoomed(const View& v, const Figure& f, const PlotLayout& l, double px, double py, double factor) {
  View out = v;
  if (!(factor > 0) || !std::isfinite(factor)) return out;
  if (can_zoom(f, true)) scale_about(l.x, px, factor, out.x_lo, out.x_hi);
  if (can_zoom(f, false)) scale_about(l.y, py, factor, out.y_lo, out.y_hi);
  return out;
}

View panned(const View& v, const Figure& f, const PlotLayout& l, double dx, double dy) {
  View out = v;
  if (can_zoom(f, true) && dx != 0) shift(l.x, dx, out.x_lo, out.x_hi);
  if (can_zoom(f, false) && dy != 0) shift(l.y, dy, out.y_lo, out.y_hi);
  return out;
}

std::optional<Readout> readout_at(const Figure& f, const PlotLayout& l, double px, double py, double radius) {
  if (!l.contains(px, py)) return std::nullopt;
  Readout r;
  if (f.heatmap) {
    const Heatmap& h = *f.heatmap;
    const double col = std::floor(l.x.to_value(px)), row = std::floor(l.y.to_value(py));
    if (row < 0 || col < 0 || row >= double(h.rows) || col >= double(h.cols)) return std::nullopt;
    const size_t i = static_cast<size_t>(row) * h.cols + static_cast<size_t>(col);
    // A cell of a pooled map is a block of the matrix's rows and columns: it names them all.
    auto span = [](const char* one, const char* many, size_t cell, size_t block, size_t matrix) {
      if (matrix == 0 || block <= 1) return std::string(one) + " " + std::to_string(cell);
      const size_t first = cell * block, last = std::min(matrix, first + block) - 1;
      return first == last ? std::string(one) + " " + std::to_string(first)
                           : std::string(many) + " " + std::to_string(first) + "-" + std::to_string(last);
    };
    r.lines = {span("row", "rows", static_cast<size_t>(row), h.block_rows, h.matrix_rows) + ", " +
                   span("column", "columns", static_cast<size_t>(col), h.block_cols, h.matrix_cols),
               label_or(h.colorbar_label, "value") + " = " + (i < h.values.size() ? readout_number(h.values[i]) : "?")};
    if (h.block_rows * h.block_cols > 1 && h.matrix_rows > 0) r.lines[1] += " (the block's largest)";
    return r;
  }
  // The nearest point of a line or marker series.
  double best = radius * radius;
  for (const Series& s : f.series) {
    if (is_histogram(s)) continue;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (l.x.log && s.x[i] <= 0) || (l.y.log && s.y[i] <= 0))
        continue;
      const double qx = l.x.to_pixel(s.x[i]), qy = l.y.to_pixel(s.y[i]);
      const double d = (qx - px) * (qx - px) + (qy - py) * (qy - py);
      if (d > best || !l.contains(qx, qy)) continue;
      best = d;
      r.lines = {label_or(s.label, "series"), f.x.label.empty() ? "x" : f.x.label, f.y.label.empty() ? "y" : f.y.label};
      r.lines[1] += " = " + x_text(f, s.x[i]);
      r.lines[2] += " = " + readout_number(s.y[i]);
      r.marker = true;
      r.mx = qx;
      r.my = qy;
    }
  }
  if (r.marker) return r;
  // Histogram bins (or category bars) under the mouse: every series' height there.
  const double xv = l.x.to_value(px);
  for (const Series& s : f.series) {
    if (!is_histogram(s)) continue;
    for (size_t i = 0; i + 1 < s.x.size() && i < s.y.size(); ++i) {
      if (!(s.x[i] <= xv && xv < s.x[i + 1]) || std::isnan(s.y[i])) continue;  // (NaN: a bin of no bar)
      if (r.lines.empty()) r.lines.push_back(f.x.categories.empty() ? bin_text(s.x[i], s.x[i + 1]) : x_text(f, xv));
      r.lines.push_back(label_or(s.label, "count") + ": " + readout_number(s.y[i]));
    }
  }
  for (const Annotation& a : f.annotations) {
    const bool vertical = a.kind == AnnotationKind::VerticalLine;
    if ((vertical ? l.x.log : l.y.log) && a.value <= 0) continue;
    const double at = vertical ? l.x.to_pixel(a.value) : l.y.to_pixel(a.value);
    if (std::fabs(at - (vertical ? px : py)) <= radius)
      r.lines.push_back(label_or(a.label, "reference") + " at " + legend_value(a.value));  // a limit: its own digits
  }
  if (!r.lines.empty()) return r;
  r.lines = {
      (f.x.label.empty() ? std::string("x") : f.x.label) + " = " + (f.x.categories.empty() ? g4(xv) : x_text(f, xv)),
      (f.y.label.empty() ? std::string("y") : f.y.label) + " = " + g4(l.y.to_value(py))};
  return r;
}

}  // namespace pl::figure
