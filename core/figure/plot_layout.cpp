#include "core/figure/plot_layout.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "core/figure/text_width.h"
#include "core/util/number_text.h"

namespace pl::figure {
namespace {

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v, bool log) {
    if (!std::isfinite(v) || (log && v <= 0)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return !(lo <= hi); }
};

// Data ranges, widened to whole decades on log axes and padded a little on linear ones.
// `marks`: the values drawn as markers or line ends (not bars). A log axis whose whole decade
// ends at one or within 2.5% of its span of one (a bound of 1.0 on the top frame; scenario 08's
// 1.5e-9 on a 1e-9 to 1e-1 axis) gets 3% of its span more on that side, so that the dot is
// drawn whole instead of cut in half by the frame.
void finish(Range& r, const Axis& a, bool from_zero, const Range& marks) {
  if (a.min && (!a.log || *a.min > 0)) r.lo = *a.min;
  if (a.max && (!a.log || *a.max > 0)) r.hi = *a.max;
  if (r.empty()) r = {a.log ? 1e-1 : 0, a.log ? 1e1 : 1};
  if (a.log) {
    if (!a.min) r.lo = std::pow(10, std::floor(std::log10(r.lo)));
    if (!a.max) r.hi = std::pow(10, std::ceil(std::log10(r.hi)));
    if (r.hi <= r.lo) r.hi = r.lo * 10;
    const double pad = std::pow(r.hi / r.lo, 0.03), near = std::pow(r.hi / r.lo, 0.025);
    const bool lo_on_mark = !marks.empty() && marks.lo <= r.lo * near;
    const bool hi_on_mark = !marks.empty() && marks.hi >= r.hi / near;
    if (!a.min && lo_on_mark) r.lo /= pad;
    if (!a.max && hi_on_mark) r.hi *= pad;
    return;
  }
  if (from_zero && !a.min) r.lo = std::min(r.lo, 0.0);
  if (r.hi <= r.lo) {
    const double pad = r.lo == 0 ? 1 : std::fabs(r.lo) * 0.1;
    r.lo -= pad;
    r.hi += pad;
  }
  if (!a.max) r.hi += (r.hi - r.lo) * 0.05;
  if (!a.min && !(from_zero && r.lo == 0)) r.lo -= (r.hi - r.lo) * 0.05;
}

// The legend's four candidate corners (left, top), top ones first.
std::array<std::pair<double, double>, 4> corners(const PlotLayout& l, double w, double h, double fs) {
  const double right = l.x1 - w - 4 * fs, left = l.x0 + 8 * fs, top = l.y0 + 4 * fs, bottom = l.y1 - h - 4 * fs;
  return {{{right, top}, {left, top}, {right, bottom}, {left, bottom}}};
}

// The legend's labels in its order: the labelled series, then the reference lines.
std::vector<std::string> legend_labels(const Figure& f) {
  std::vector<std::string> out;
  for (const Series& s : f.series)
    if (s.in_legend && !s.label.empty()) out.push_back(s.label);
  for (const Annotation& a : f.annotations)
    if (!a.label.empty()) out.push_back(a.label);
  return out;
}

// A legend entry's width in pixels for a label `label_width` wide at 10 px: the swatch and its
// gap, and the label with 3% to spare (for the drawn text's rounding).
double legend_entry_width(double label_width, double fs) { return (34.0 + 1.03 * label_width) * fs; }

// A legend over the data in every corner of the plot, under the x axis's title instead (scenario
// 9's six entries at 1280x800 in presentation mode, too tall to be given room above the data,
// would hide a histogram's peak): across the figure's width less its margins, in as many columns
// as fit, at least two (each as wide as its widest label, the entries row by row). Its box, at the
// figure's foot; none where no two columns fit. Labels too long for two columns on one line each
// are broken between words, in the number of columns that makes the box least tall.
std::optional<LegendBox> legend_below(const std::vector<std::string>& labels, double W, double H, double fs) {
  const double room = W - 2 * kHeaderMargin * fs, gap = kLegendColumnGap * fs;
  std::vector<double> natural;  // each entry's width, one line
  for (const std::string& label : labels) natural.push_back(legend_entry_width(text_width(label, 10), fs));
  for (size_t cols = labels.size(); cols >= 2; --cols) {
    std::vector<double> widths(cols, 0.0);
    for (size_t k = 0; k < labels.size(); ++k) widths[k % cols] = std::max(widths[k % cols], natural[k]);
    double total = gap * static_cast<double>(cols - 1);
    for (const double w : widths) total += w;
    if (total > room) continue;
    const size_t rows = (labels.size() + cols - 1) / cols;
    const double height = kLegendEntry * fs * static_cast<double>(rows) + 8 * fs;
    return LegendBox{(W - total) / 2, H - height, total, height, labels.size(), {}, widths};
  }
  std::optional<LegendBox> best;
  for (size_t cols = labels.size(); cols >= 2; --cols) {
    const double column = (room - gap * static_cast<double>(cols - 1)) / static_cast<double>(cols);
    const double label_room = column / fs - 34;  // at 10 px
    if (label_room <= 0) continue;
    LegendBox box{0, 0, 0, 8 * fs, labels.size(), {}, std::vector<double>(cols, 0.0)};
    std::vector<size_t> row_lines((labels.size() + cols - 1) / cols, 1);
    bool fits = true;
    for (size_t k = 0; k < labels.size() && fits; ++k) {
      box.lines.push_back(balanced_label(labels[k], label_room / 1.03, 10));
      double widest = 0;
      for (const std::string& line : box.lines.back()) widest = std::max(widest, text_width(line, 10));
      const double entry = legend_entry_width(widest, fs);
      fits = entry <= column;  // (a word longer than the column is not broken)
      box.columns[k % cols] = std::max(box.columns[k % cols], entry);
      row_lines[k / cols] = std::max(row_lines[k / cols], box.lines.back().size());
    }
    if (!fits) continue;
    box.width = gap * static_cast<double>(cols - 1);
    for (const double w : box.columns) box.width += w;
    for (const size_t n : row_lines) box.height += legend_entry_height(n, fs);
    if (!best || box.height < best->height) best = box;
  }
  if (best) best->left = (W - best->width) / 2, best->top = H - best->height;
  return best;
}

// Whether every category name fits its slot of a plot `plot_width` wide as category_labels draws
// them: the names at 75% of the size or more, or their short forms whole; each on one line or
// broken at one space.
bool categories_fit(const Figure& f, double plot_width, double fs) {
  const size_t n = f.x.categories.size();
  if (n == 0) return true;
  const double slot = plot_width / static_cast<double>(n) - 6 * fs;
  auto need = [](const std::string& name) {  // at 10 px
    double w = text_width(name, 10);
    for (size_t at = name.find(' '); at != std::string::npos; at = name.find(' ', at + 1))
      w = std::min(w, std::max(text_width(name.substr(0, at), 10), text_width(name.substr(at + 1), 10)));
    return w;
  };
  auto all_fit = [&](const std::vector<std::string>& names, double scale) {
    return std::all_of(names.begin(), names.end(),
                       [&](const std::string& name) { return 1.03 * need(name) * scale * fs <= slot; });
  };
  return all_fit(f.x.categories, 0.75) || (f.x.short_categories.size() == n && all_fit(f.x.short_categories, 1));
}

// The plot shortened for a legend under the figure.
void set_legend_below(PlotLayout& l, const LegendBox& box) {
  l.y1 -= box.height;
  l.y.p0 = l.y1;
  l.legend = box;
}

void place_legend(const Figure& f, PlotLayout& l, double W, double H, double fs, double data_top) {
  const std::vector<std::string> labels = legend_labels(f);
  const size_t entries = labels.size();
  double longest = 0;  // the widest label's width at 10 px
  for (const std::string& label : labels) longest = std::max(longest, text_width(label, 10));
  if (entries == 0) return;
  // As wide as the widest entry (legend_entry_width), at most 60% of the plot (where the label is
  // drawn smaller to fit): no wider than its text, so that a legend of short names beside the
  // plot leaves the plot the width.
  const double natural = legend_entry_width(longest, fs), w = std::min(natural, 0.6 * (l.x1 - l.x0));
  const double h = kLegendEntry * fs * static_cast<double>(entries) + 8 * fs;  // a line each
  // The labels broken between words into lines of `label_room` (pixels at 10 px), in a box as
  // high as its lines and as wide as the widest.
  auto broken = [&](double label_room) {
    LegendBox box{0, 0, 0, h, entries, {}, {}};
    double widest = 0, extra = 0;
    for (const std::string& label : labels) {
      box.lines.push_back(balanced_label(label, label_room / 1.03, 10));
      for (const std::string& line : box.lines.back()) widest = std::max(widest, text_width(line, 10));
      extra += static_cast<double>(box.lines.back().size() - 1);
    }
    box.width = legend_entry_width(widest, fs);
    box.height = h + kLegendLine * fs * extra;
    return box;
  };
  // In the plot, a label longer than the box allows is broken between words: drawn smaller and
  // cut, two labels that differ in their last words read the same (scenario 21's
  // "f32 multi-term(16 + sum, 2 extra bi..." twice, beside its story at 1280x800). Unless the
  // lines make it too tall to be given room above the data (below): a small figure's legend then
  // keeps a line an entry, cut, over no bar rather than whole over one.
  LegendBox inside{0, 0, w, h, entries, {}, {}};
  // (Narrower than its labels only where the plot caps it: w / fs - 34 against 1.03 * longest
  // can differ in the last bit, which would break scenario 14's one label, "round trip", in two.)
  if (const double label_room = w / fs - 34; w < natural && label_room > 0) {
    if (LegendBox lines = broken(label_room); lines.height + 8 * fs <= 0.6 * (l.y1 - l.y0)) {
      lines.width = w;
      inside = lines;
    }
  }
  size_t hidden = 0;  // of the corner chosen
  // A corner is tried with its box widened by the widest stroke's half-width: a step whose drop
  // lies 2 px left of the box would run its 4 px line under it (the error attribution at 1280x800).
  double stroke = 2;
  for (const Series& s : f.series) stroke = std::max(stroke, s.width);
  const double m = stroke * fs / 2;
  // The data's pixels under the axes as they are (computed again where the band moves the y axis):
  // each corner's count reads them (otherwise, for a training run's 100,000 steps, five models,
  // a log axis's log10 of every point again for each corner would make a visible pause).
  DataPixels pixels(f, l);
  auto best_corner = [&] {
    LegendBox box = inside;
    hidden = SIZE_MAX;
    for (const auto& [left, top] : corners(l, inside.width, inside.height, fs))
      if (const size_t n = data_under(pixels, f, l, left - m, top - m, inside.width + 2 * m, inside.height + 2 * m);
          n < hidden)
        box.left = left, box.top = top, hidden = n;
    return box;
  };
  // The labels whole within `room` pixels: a line each where they fit, else broken between words.
  auto whole_within = [&](double room) {
    if (natural <= room) return LegendBox{0, 0, natural, h, entries, {}, {}};
    LegendBox whole = broken(room / fs - 34);
    whole.width = std::min(whole.width, room);
    return whole;
  };
  // Where the plot's 60% cuts the labels, the legend `share` of the plot's width less the
  // corners' margins, its labels whole, where those lines take no more than 60% of the plot's
  // height; else none.
  const bool cut = inside.lines.empty() && w < natural;
  auto whole_labels = [&](double share) -> std::optional<LegendBox> {
    const double room = share * (l.x1 - l.x0 - 12 * fs);
    if (!cut || room <= w) return std::nullopt;
    const LegendBox whole = whole_within(room);
    if (whole.height + 8 * fs > 0.6 * (l.y1 - l.y0)) return std::nullopt;
    return whole;
  };
  l.legend = best_corner();
  // In a corner over no data, the widest such box that hides none either: held to 60% of the
  // width, scenario 28's "float32 (on float64: within 1% at every point)" would be drawn
  // smaller and cut in the middle where a wider box leaves the lines clear.
  if (hidden == 0) {
    for (const double share : {1.0, 0.9, 0.8, 0.7})
      if (const std::optional<LegendBox> box = whole_labels(share)) {
        inside = *box;
        if (const LegendBox wide = best_corner(); hidden == 0) {
          l.legend = wide;
          return;
        }
      }
    return;  // (the first corner's box, in l.legend)
  }
  // Every corner covers data. Where the figure is wide (a window's pane, a slide), the legend
  // goes beside the plot, which keeps at least 35% of the width: over the lines it would hide
  // them, and making room above them would squeeze a log axis's data into its lower part. (At
  // exactly half, scenario 21's legend at 1280x800 would miss by a pixel and cover its lines; at
  // 45% or 40%, scenario 22's figure alone on a 1280x800 presentation pane would push its log
  // axis up to 1e4.)
  // Beside the plot the legend may run on into the margin below it, down to where the tick labels
  // end (nothing else is drawn right of the plot there): scenario 28's six entries in presentation
  // mode at 1280x800 are 3 px taller than the plot and would otherwise cover two of its lines.
  // Long labels are broken between words so that the plot keeps most of the width (below) where
  // the lines fit the height: a legend beside the plot in one line a label would leave scenario 08's
  // plot a third of its Figure-only pane, with the space under the legend blank.
  const double plot = l.y1 - l.y0, width = l.x1 - l.x0;
  // A legend beside the plot that runs on below it passes the x axis's last label, centred on the
  // plot's right edge on a log axis: it starts clear of that label.
  double overhang = 0;
  if (!f.x.categories.empty()) {
    const double n = static_cast<double>(f.x.categories.size());
    overhang = 1.03 * text_width(f.x.categories.back(), 10) * fs / 2 - width / n / 2;
  } else if (const std::vector<double> ticks = f.x.ticks ? axis_ticks(l.x) : std::vector<double>{}; !ticks.empty()) {
    overhang = l.x.to_pixel(ticks.back()) + 1.03 * text_width(tick_labels(ticks, l.x.log).back(), 10) * fs / 2 - l.x1;
  }
  const double clear = std::max(0.0, overhang - 4 * fs);  // past the legend's 8 px gap, less 4 to spare
  // How far below the plot it may run: to where the tick labels end, or to where the x axis's
  // title ends when that title, centred under the plot, stays within its width (else scenario
  // 22's legend at 1280x800 in presentation mode would miss by a pixel, stay on one line a label
  // and leave the plot 48% of the width).
  const double title = 1.03 * text_width(f.x.label, 12) * fs;
  auto below = [&](double legend_width) {
    if (f.x.label.empty()) return (kBottomWithoutTitle - 8) * fs;
    return title <= width - legend_width - clear - 12 * fs ? (kBottomWithTitle - 14) * fs : 24 * fs;
  };
  LegendBox wrapped = l.legend;  // beside the plot: a line each, unless broken below
  wrapped.lines.clear();
  wrapped.width = w;
  wrapped.height = h;
  // A short plot (a scenario's figure under its story) has room for fewer lines: the labels then
  // take the narrowest of 38%, 45% or 52% of the width whose lines fit its height.
  for (const double share : {0.38, 0.45, 0.52}) {
    const double label_room = (share * width - 12 * fs) / fs - 34;  // at 10 px
    if (1.03 * longest <= label_room || label_room <= 0) break;     // one line each fits
    const LegendBox box = broken(label_room);
    if (box.height <= plot + below(box.width)) {
      wrapped = box;
      break;
    }
  }
  const double extra = wrapped.height > plot ? clear : 0;
  const double beside = wrapped.width + 12 * fs + extra;
  // A band made above the data (below) costs the plot the band's share of its height, a legend
  // beside it its share of the width: the cheaper wins. Beside a scenario's bar chart at 1600x1000
  // in presentation mode, three labels broken into eleven lines would take 40% of the width and
  // cut the bars' names ("model.to(x.dt..."), where a band takes 19% of the height.
  const bool beside_fits = wrapped.height <= plot + below(wrapped.width) && width - beside >= 0.35 * width &&
                           width - beside >= 320;
  auto set_beside = [&] {
    l.legend = wrapped;
    l.x1 -= beside;
    l.x.p1 = l.x1;
    l.legend.left = l.x1 + 8 * fs + extra;
    l.legend.top = l.y0;
  };
  // Beside a bar chart the legend takes the bars' slots from their names: scenario 18's six dtypes
  // beside its story at 1280x800 in presentation mode would shrink to 60% ("e4m3fn"), and the
  // labels of the bars' values would crowd them. Under the figure instead, in columns, where the
  // names then fit and it takes less than `most` pixels of height.
  const bool beside_shrinks_names = !categories_fit(f, width - beside, fs) && categories_fit(f, width, fs);
  auto foot_for_names = [&](double most) -> std::optional<LegendBox> {
    if (!beside_shrinks_names) return std::nullopt;
    const std::optional<LegendBox> foot = legend_below(labels, W, H, fs);
    return foot && foot->height < most ? foot : std::nullopt;
  };
  // A band needs a y axis free to grow (a zoom fixes it: the legend then stays over the data).
  if (f.y.max || !std::isfinite(data_top) || (l.y.log && !(data_top > 0))) {
    if (!beside_fits) return;
    if (const std::optional<LegendBox> foot = foot_for_names(0.4 * plot)) return set_legend_below(l, *foot);
    return set_beside();
  }
  // Over a band made for it above the data the legend hides nothing: it takes its labels whole,
  // across the plot (held to 60% of the width, scenario 21's labels would be drawn smaller and cut
  // in the middle, "f32 multi-term(16 + ... extra bits) rtz", over a band with room beside them).
  // (Whole across the plot, and so in as few lines as the width allows: a corner's box held to
  // 60% of it would break scenario 21's labels into lines that make a band dearer than a column.)
  if (const LegendBox whole = whole_within(l.x1 - l.x0 - 12 * fs); whole.height <= inside.height) inside = whole;
  const double room = inside.height + 8 * fs;
  // Beside where that costs less than the band, unless it shrinks the names: then under the
  // figure where that costs less than the band too, else the band.
  if (beside_fits && beside / width <= room / plot) {
    if (!beside_shrinks_names) return set_beside();
    if (const std::optional<LegendBox> foot = foot_for_names(std::min(room, 0.4 * plot)))
      return set_legend_below(l, *foot);
  }
  // Under the figure instead where room above the data would take more than a third of the plot
  // (scenario 15's histograms would fill the lower half of their axis), two columns fit across the
  // figure, and they take less height than that room and 40% of the plot (so less of it than a
  // column beside the plot, dearer than the room, would of the width). Their labels whole, broken
  // between words where need be: over a band, scenario 21's two longest would be cut in the middle
  // beside its story at 1280x800 in presentation mode. Over the data where none is possible and
  // room above them would take more than 60% of the plot.
  if (room > plot / 3)
    if (const std::optional<LegendBox> foot = legend_below(labels, W, H, fs);
        foot && foot->height < std::min(room, 0.4 * plot))
      return set_legend_below(l, *foot);
  if (room > plot * 0.6) {
    if (beside_fits) set_beside();
    return;
  }
  const double share = plot / (plot - room);  // the data's span grows by this factor
  const AxisMap y = l.y;
  if (l.y.log) l.y.hi = std::pow(10, std::log10(l.y.lo) + (std::log10(data_top) - std::log10(l.y.lo)) * share);
  else l.y.hi = l.y.lo + (data_top - l.y.lo) * share;
  pixels = DataPixels(f, l);
  l.legend = best_corner();
  // A vertical line runs through any band (scenario 6's "largest" at 1600x1000 in presentation
  // mode would go under the legend): beside the plot instead, where it fits.
  if (hidden > 0 && beside_fits) {
    l.y = y;
    set_beside();
  }
}

}  // namespace

std::vector<std::string> wrap_label(const std::string& label, double width, double font_px) {
  std::vector<std::string> lines;
  std::vector<std::string> line;  // the current line's words
  auto joined = [](const std::vector<std::string>& words, size_t from, size_t to) {
    std::string s;
    for (size_t i = from; i < to; ++i) s += (i > from ? " " : "") + words[i];
    return s;
  };
  size_t at = 0;
  while (at < label.size()) {
    const size_t space = label.find(' ', at);
    const std::string word = label.substr(at, space == std::string::npos ? std::string::npos : space - at);
    at = space == std::string::npos ? label.size() : space + 1;
    if (word.empty()) continue;  // (two spaces in a row)
    line.push_back(word);
    if (line.size() == 1 || text_width(joined(line, 0, line.size()), font_px) <= width) continue;
    line.pop_back();
    // Break after the line's last clause (a word ending in ',' or ';', else ':') when that keeps
    // at least half the width and what follows it still fits with this word: "x.to(w.dtype):
    // float32, 22.0 / bits" reads as one figure split in two; "float32, / 22.0 bits" does not.
    // (A line that already ends a clause breaks where it is.)
    size_t cut = line.size();
    const auto ends_in = [](const std::string& w, std::string_view ends) {
      return ends.find(w.back()) != std::string_view::npos;
    };
    for (const char* ends : {",;", ":"}) {
      if (ends_in(line.back(), ",;:") || cut < line.size()) break;
      for (size_t i = line.size() - 1; i-- > 0;)
        if (ends_in(line[i], ends)) {
          std::vector<std::string> rest(line.begin() + static_cast<long>(i) + 1, line.end());
          rest.push_back(word);
          if (text_width(joined(line, 0, i + 1), font_px) >= width / 2 &&
              text_width(joined(rest, 0, rest.size()), font_px) <= width)
            cut = i + 1;
          break;
        }
    }
    lines.push_back(joined(line, 0, cut));
    line.erase(line.begin(), line.begin() + static_cast<long>(cut));
    line.push_back(word);
  }
  lines.push_back(joined(line, 0, line.size()));
  return lines;
}

std::vector<std::string> balanced_label(const std::string& label, double width, double font_px) {
  const size_t n = wrap_label(label, width, font_px).size();
  if (n < 2) return wrap_label(label, width, font_px);
  double lo = 0, hi = width;  // wrap_label(hi) takes at most n lines
  for (int i = 0; i < 24 && hi - lo > 0.25; ++i) {
    const double mid = (lo + hi) / 2;
    (wrap_label(label, mid, font_px).size() <= n ? hi : lo) = mid;
  }
  return wrap_label(label, hi, font_px);
}

double AxisMap::to_pixel(double v) const {
  const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
  return p0 + t * (p1 - p0);
}

std::vector<double> AxisMap::to_pixels(const std::vector<double>& v) const {
  std::vector<double> out(v.size());
  const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;  // to_pixel's terms, once
  for (size_t i = 0; i < v.size(); ++i) out[i] = p0 + ((log ? std::log10(v[i]) : v[i]) - a) / (b - a) * (p1 - p0);
  return out;
}

double AxisMap::to_value(double pixel) const {
  const double t = (pixel - p0) / (p1 - p0);
  return log ? std::pow(10, std::log10(lo) + t * (std::log10(hi) - std::log10(lo))) : lo + t * (hi - lo);
}

PlotLayout layout_figure(const Figure& f, double W, double H, double fs) {
  PlotLayout l;
  // Named heat-map rows (a scan's layers and roles) take a wider margin for their names: as
  // wide as the widest, so that rows "0" to "3" leave no blank band beside the title, up to 140
  // px or a fifth of a wider figure. (Held to 140 px, an exported 1200 px map would shrink
  // "embeddings.position_embeddings" to six pixels.)
  // Short names ("0" to "3") take no more than they need beside the axis's title: the 78 px
  // kept for numbered ticks would leave scenario 29's six candidates narrow columns whose names
  // are drawn at 60%.
  double names = 0;
  if (f.heatmap)
    for (const std::string& name : f.y.categories) names = std::max(names, 34 + 1.03 * text_width(name, 10));
  const bool named_rows = f.heatmap && !f.y.categories.empty() && f.y.categories.size() == f.heatmap->rows;
  l.x0 = std::clamp(names, named_rows ? 48.0 : 78.0, std::max(140.0, W / fs / 5)) * fs;
  l.x1 = W - 24 * fs;  // (a heat map's: its colour bar's room, below)
  // The header in line with the plot where the title (in one line) and the subtitle (in two,
  // the fewest lines greedy wrapping needs) fit beside it at kHeaderSmallest of their sizes, with
  // 3% to spare as the legend's widths; else from the margin: a scenario's figure
  // beside its story in presentation mode (690 px at 1280x800) would cut the title or subtitle of
  // 13 of the 18 there. From the margin, a title too wide for a line takes two, and a subtitle too
  // long for two lines three or four (in two, scenario 1's would end "... higher bars...").
  const auto title_fits = [&](double width) {
    return 1.03 * text_width(f.title, kTitlePx * kHeaderSmallest, true) <= width;
  };
  const auto subtitle_lines = [&](double width) {
    return wrap_label(f.subtitle, width, kSubtitlePx * kHeaderSmallest).size();
  };
  const double beside = (W - l.x0) / fs - kHeaderMargin, from_margin = W / fs - 2 * kHeaderMargin;
  const bool in_line = title_fits(beside) && subtitle_lines(beside / 1.03) <= 2;
  l.header_left = in_line ? l.x0 : kHeaderMargin * fs;
  l.title_lines = !in_line && !title_fits(from_margin) && f.title.find(' ') != std::string::npos ? 2 : 1;
  // (With 1% to spare: the text is drawn at the font's own widths, as measured here.)
  l.subtitle_lines = in_line ? 2 : static_cast<int>(std::clamp<size_t>(subtitle_lines(from_margin / 1.01), 2, 4));
  l.y0 = (kTitleY + kTitleStep * (l.title_lines - 1) + kSubtitleBelow + kSubtitleStep * (l.subtitle_lines - 2) +
          kPlotBelow) *
         fs;
  // Below the plot: the tick labels (or category names, in up to two lines), then the x axis's
  // title. Without a title the tick labels alone: a bar chart over categories would otherwise keep
  // a blank band of 24 px under its names (scenario 18's speed-up chart).
  l.y1 = H - (f.x.label.empty() && !f.heatmap ? kBottomWithoutTitle : kBottomWithTitle) * fs;
  if (f.heatmap) {
    l.x1 = W - colour_bar(*f.heatmap, l.y0, l.y1).room * fs;
    l.x = {0, static_cast<double>(std::max<size_t>(f.heatmap->cols, 1)), false, l.x0, l.x1};
    // Row 0 is drawn at the top: value rows at pixel y0, value 0 at pixel y0.
    l.y = {0, static_cast<double>(std::max<size_t>(f.heatmap->rows, 1)), false, l.y0, l.y1};
    return l;
  }
  Range rx, ry, marks_x, marks_y;
  bool bars = false;
  for (const Series& s : f.series) {
    if (s.kind == SeriesKind::Bars || s.kind == SeriesKind::Steps) {
      bars = true;
      for (size_t i = 0; i + 1 < s.x.size() && i < s.y.size(); ++i)
        if (s.y[i] > 0) rx.add(s.x[i], f.x.log), rx.add(s.x[i + 1], f.x.log);
    } else {
      for (double v : s.x) rx.add(v, f.x.log), marks_x.add(v, f.x.log);
      for (double v : s.y) marks_y.add(v, f.y.log);
    }
    for (double v : s.y) ry.add(v, f.y.log);
  }
  for (const Annotation& a : f.annotations) {
    const bool vertical = a.kind == AnnotationKind::VerticalLine;
    (vertical ? rx : ry).add(a.value, vertical ? f.x.log : f.y.log);
  }
  const double data_top = ry.hi;
  finish(rx, f.x, false, marks_x);
  finish(ry, f.y, bars && !f.y.log, marks_y);
  l.x = {rx.lo, rx.hi, f.x.log, l.x0, l.x1};
  l.y = {ry.lo, ry.hi, f.y.log, l.y1, l.y0};
  place_legend(f, l, W, H, fs, data_top);
  return l;
}

DataPixels::DataPixels(const Figure& f, const PlotLayout& l) {
  for (const Series& s : f.series) {
    x.push_back(l.x.to_pixels(s.x));
    y.push_back(l.y.to_pixels(s.y));
  }
}

size_t data_under(const Figure& f, const PlotLayout& l, double left, double top, double width, double height) {
  return data_under(DataPixels(f, l), f, l, left, top, width, height);
}

size_t data_under(const DataPixels& pixels, const Figure& f, const PlotLayout& l, double left, double top,
                  double width, double height) {
  size_t n = 0;
  const auto inside = [&](double px, double py) {
    return px >= left && px <= left + width && py >= top && py <= top + height;
  };
  // A line between two points can cross the box with both points outside it (scenario 21's
  // dashed bounds would run under a legend no point of theirs touches): sixteen steps along each
  // segment count too.
  const auto drawable = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && !(f.x.log && x <= 0) && !(f.y.log && y <= 0);
  };
  for (size_t k = 0; k < f.series.size(); ++k) {
    const Series& s = f.series[k];
    const std::vector<double>&px = pixels.x[k], &py = pixels.y[k];
    if (s.kind != SeriesKind::Line) continue;
    for (size_t i = 0; i + 1 < s.x.size() && i + 1 < s.y.size(); ++i) {
      if (!drawable(s.x[i], s.y[i]) || !drawable(s.x[i + 1], s.y[i + 1])) continue;
      const double x0 = px[i], y0 = py[i], x1 = px[i + 1], y1 = py[i + 1];
      // (A segment wholly to one side of the box, the most of a long line's, cannot cross it.)
      if ((x0 < left && x1 < left) || (x0 > left + width && x1 > left + width) || (y0 < top && y1 < top) ||
          (y0 > top + height && y1 > top + height))
        continue;
      for (int step = 1; step < 16; ++step) {
        const double t = step / 16.0;
        if (inside(x0 + t * (x1 - x0), y0 + t * (y1 - y0))) {
          ++n;
          break;
        }
      }
    }
  }
  for (size_t k = 0; k < f.series.size(); ++k) {
    const Series& s = f.series[k];
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      // A bar spans [x[i], x[i + 1]]: one whose left edge lies left of the box can run under it.
      const bool is_bar = (s.kind == SeriesKind::Bars || s.kind == SeriesKind::Steps) && i + 1 < s.x.size();
      const double xl = s.x[i], xr = is_bar ? s.x[i + 1] : s.x[i];
      if (!(std::isfinite(xl) && std::isfinite(xr) && std::isfinite(s.y[i])) || (f.x.log && xl <= 0) ||
          (f.y.log && s.y[i] <= 0))
        continue;
      if (is_bar && s.y[i] <= 0) continue;
      const double pa = pixels.x[k][i], pb = pixels.x[k][is_bar ? i + 1 : i];
      const double pl = std::min(pa, pb), pr = std::max(pa, pb), py = pixels.y[k][i];
      // A bar runs from its value to its base (the plot's bottom, or a value it grows from).
      const double pbase = is_bar && std::isfinite(s.base) ? l.y.to_pixel(s.base) : l.y1;
      const bool covered = is_bar ? std::min(py, pbase) <= top + height && std::max(py, pbase) >= top
                                  : py >= top && py <= top + height;
      if (pr >= left && pl <= left + width && covered) ++n;
    }
  }
  for (const Annotation& a : f.annotations) {  // a reference line (a bound, a unit roundoff) crossing the box
    if (!std::isfinite(a.value) || ((a.kind == AnnotationKind::VerticalLine ? f.x.log : f.y.log) && a.value <= 0))
      continue;
    if (a.kind == AnnotationKind::VerticalLine) {
      const double px = l.x.to_pixel(a.value);
      n += px >= left && px <= left + width;
    } else {
      const double py = l.y.to_pixel(a.value);
      n += py >= top && py <= top + height;
    }
  }
  return n;
}

std::vector<double> axis_ticks(const AxisMap& r) {
  std::vector<double> t;
  if (r.log) {
    const int d0 = static_cast<int>(std::ceil(std::log10(r.lo) - 1e-9));
    const int d1 = static_cast<int>(std::floor(std::log10(r.hi) + 1e-9));
    const int step = std::max(1, (d1 - d0) / 8 + 1);
    const bool fine = std::log10(r.hi) - std::log10(r.lo) < 2;  // a decade or two: 1, 2, 5 in each
    for (int d = d0 - 1; d <= d1; ++d) {
      if (!fine && (d < d0 || (d - d0) % step != 0)) continue;
      for (double m : {1.0, 2.0, 5.0}) {
        if (!fine && m != 1) continue;
        const double v = m * std::pow(10, d);
        if (v >= r.lo * (1 - 1e-9) && v <= r.hi * (1 + 1e-9)) t.push_back(v);
      }
    }
    return t;
  }
  // About one tick per 60 pixels (2 to 6 steps): a short axis (a figure drawn small, or in
  // presentation mode's large type) would otherwise crowd ten labels into 200 pixels.
  const double steps = std::clamp(std::fabs(r.p1 - r.p0) / 60.0, 2.0, 6.0);
  const double raw = (r.hi - r.lo) / steps;
  if (!(raw > 0) || !std::isfinite(raw)) return t;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
  // i * step, not a running sum: adding the step to -0.06 three times gives 6.9e-18, not 0.
  for (double i = std::ceil(r.lo / step); i * step <= r.hi + step * 1e-9; ++i) t.push_back(i * step);
  return t;
}

namespace {

// "2e-5", "1e6": the mantissa's shortest digits and the exponent without "+" or leading zeros.
std::string scientific(double v) {
  if (v == 0) return "0";
  int e = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  double m = v / std::pow(10, e);
  if (std::fabs(m) >= 10 - 1e-7) m /= 10, ++e;  // a mantissa of 9.9999999 is the next power
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", m);
  return std::string(buf) + "e" + std::to_string(e);
}

}  // namespace

std::vector<std::string> tick_labels(const std::vector<double>& ticks, bool log) {
  std::vector<std::string> out;
  if (ticks.empty()) return out;
  double largest = 0;
  for (double t : ticks) largest = std::max(largest, std::fabs(t));
  if (log) {
    const bool plain = ticks.front() >= 0.01 * (1 - 1e-9) && ticks.back() <= 1000 * (1 + 1e-9);
    for (double t : ticks) out.push_back(plain ? shortest_double(std::stod(scientific(t))) : scientific(t));
    return out;
  }
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : largest;
  if (largest >= 1e6 || (largest > 0 && largest < 1e-3)) {
    for (double t : ticks) out.push_back(std::fabs(t) < step * 1e-6 ? "0" : scientific(t));
    return out;
  }
  const int decimals = step > 0 ? std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9))) : 0;
  for (double t : ticks) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(t) < step * 1e-6 ? 0.0 : t);
    out.push_back(buf);
  }
  return out;
}

ColourBar colour_bar(const Heatmap& h, double y0, double y1) {
  ColourBar c;
  const AxisMap bar{h.vmin, h.vmax, false, y1, y0};
  c.ticks = h.vmax > h.vmin ? axis_ticks(bar) : std::vector<double>{h.vmin};
  c.labels = tick_labels(c.ticks, false);
  for (double v : h.values) c.exact = c.exact || (h.inf_is_exact && std::isinf(v) && v > 0);
  double widest = c.exact ? text_width("exact", 10) : 0;
  for (const std::string& label : c.labels) widest = std::max(widest, text_width(label, 10));
  // The title (11 px, turned on its side: 11 px across) 8 px past the widest text, with 3% to
  // spare on the widths as the legend's; 10 px of margin after it.
  c.title = c.texts + 1.03 * widest + 8 + 5.5;
  c.room = c.title + 5.5 + 10;
  return c;
}

}  // namespace pl::figure
