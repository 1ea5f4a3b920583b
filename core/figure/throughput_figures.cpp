#include "core/figure/throughput_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace pl::figure {
namespace {

// A bar's category: the dtype's name, and its short name where the names would be cut (the two
// lists kept in step here).
void add_dtype_category(Figure& f, DType t) {
  f.x.categories.emplace_back(name(t));
  f.x.short_categories.emplace_back(short_name(t));
}

// On the CPU every dtype narrower than float32 is emulated; on a GPU only those the device
// cannot compute in (its methods say which), so the subtitle names them.
std::string subtitle(const ThroughputContext& c) {
  const std::string what = std::to_string(c.n) + "^3 products on " + c.device;
  if (!c.gpu)
    // (int8's integer sums run in dgemm, exact, not in float32 arithmetic; "the library" would read
    // as Precision Lab.)
    return what +
           "; float64/float32 are OpenBLAS's dgemm/sgemm, narrower dtypes are emulated on this CPU "
           "(floats in float32 arithmetic, int8 as exact sums in dgemm wrapped to int32), not hardware speed";
  if (c.emulated.empty() && c.on_cpu.empty()) return what + ", CUDA events; every dtype in the GPU's own arithmetic";
  auto listed = [](const std::vector<DType>& ts) {
    std::string list;
    for (DType t : ts) list += (list.empty() ? "" : ", ") + std::string(name(t));
    return list;
  };
  // (A dtype the device could not run was timed on the CPU by the clock, not by CUDA events.)
  std::string out = what + ", CUDA events";
  if (!c.emulated.empty()) out += "; emulated (values in a wider type), not hardware speed: " + listed(c.emulated);
  if (!c.on_cpu.empty()) out += "; timed on the CPU by the clock (the GPU could not run them): " + listed(c.on_cpu);
  return out;
}

// Where the history let a dtype's earliest samples go, the figures say whose they show.
std::string kept_note(const experiment::ThroughputHistory& h) {
  return h.trimmed() ? "; each dtype's last " + std::to_string(h.kept()) + " samples" : "";
}

std::vector<double> scaled(std::vector<double> v, double by) {
  for (double& x : v) x *= by;
  return v;
}

}  // namespace

Figure throughput_over_time(const experiment::ThroughputHistory& h, const ThroughputContext& c) {
  Figure f;
  f.name = "throughput-over-time";
  // (Drawn live in the window and once from `bench --op throughput --save`'s samples.)
  f.title = "Matrix-product throughput over time";
  f.subtitle = subtitle(c) + kept_note(h);
  f.x.label = "seconds since sampling started";
  const experiment::RateUnit unit = experiment::rate_unit(c.gpu);
  const auto dtypes = h.dtypes();
  f.y.label = experiment::rate_axis_name(unit, dtypes);
  f.y.min = 0;
  for (size_t i = 0; i < dtypes.size(); ++i) {
    const auto samples = h.of(dtypes[i]);
    Series points{"", SeriesKind::Points, {}, {}, palette(i)};
    points.color.a = 0.45;
    for (const auto& s : samples) points.x.push_back(s.at), points.y.push_back(s.gflops * unit.scale);
    // The first points have fewer samples behind them than the window holds.
    Series line{
        std::string(name(dtypes[i])) + " (running median of up to " + std::to_string(c.median_window) + " samples)",
        SeriesKind::Line, points.x, scaled(h.sliding_median(dtypes[i], c.median_window), unit.scale), palette(i)};
    f.series.push_back(std::move(points));
    f.series.push_back(std::move(line));
  }
  // The dots say what they are once, in grey (their own series have no legend entry).
  if (!dtypes.empty())
    f.series.push_back({"each dot: one sample", SeriesKind::Points, {}, {}, {0.45, 0.45, 0.45, 0.6}});
  return f;
}

Figure throughput_bars(const experiment::ThroughputHistory& h, const ThroughputContext& c) {
  Figure f;
  f.name = "throughput-by-dtype";
  f.title = "Matrix-product throughput by dtype (median of each dtype's samples)";
  f.subtitle = subtitle(c) + kept_note(h) + "; whiskers: the middle half of the samples";
  const experiment::RateUnit unit = experiment::rate_unit(c.gpu);
  const auto dtypes = h.dtypes();
  f.y.label = experiment::rate_axis_name(unit, dtypes);
  category_axis(f, dtypes.size());
  // The quartiles of each dtype's samples, one vertical stroke over its bar (NaN between
  // strokes: no line joins two bars).
  Series whiskers{"middle half of the samples (quartiles)", SeriesKind::Line, {}, {}, {0.1, 0.1, 0.1, 1}};
  whiskers.width = 2.5;
  const double nan = std::nan("");
  for (size_t i = 0; i < dtypes.size(); ++i) {
    add_dtype_category(f, dtypes[i]);
    const Quartiles q = h.quartiles_gflops(dtypes[i]);
    const double g = h.median_gflops(dtypes[i]) * unit.scale;
    const size_t samples = h.of(dtypes[i]).size();
    // No more digits than the spread supports ("57 (50-63)", experiment/throughput.h).
    const std::string label = std::string(name(dtypes[i])) + "  " + experiment::spread_text(q, unit.scale) + " " +
                              experiment::rate_unit_name(unit, dtypes[i]) + " (" + std::to_string(samples) + (samples == 1 ? " sample)" : " samples)");
    f.series.push_back(category_bar(i, label, g));
    const double x = double(i) + 0.5;
    whiskers.x.insert(whiskers.x.end(), {x, x, nan});
    whiskers.y.insert(whiskers.y.end(), {q.q1 * unit.scale, q.q3 * unit.scale, nan});
  }
  if (!dtypes.empty()) f.series.push_back(std::move(whiskers));
  return f;
}

namespace {

// A row's sampled rates, GFLOP/s, as quartiles: how far its median can be trusted.
Quartiles row_rates(const experiment::ThroughputResult& r, const experiment::ThroughputRow& row) {
  std::vector<double> g;
  for (double s : row.seconds) g.push_back(experiment::product_gflops(r.config.n, s));
  return quartiles(std::move(g));
}

// Whether a row's samples cannot tell it from the baseline's: their quartile ranges overlap.
bool overlaps_baseline(const experiment::ThroughputResult& r, const experiment::ThroughputRow& row) {
  const experiment::ThroughputRow* base = r.row(r.config.baseline);
  return base && &row != base && experiment::spreads_overlap(row_rates(r, row), row_rates(r, *base));
}

Figure measured_rate(const experiment::ThroughputResult& r) {
  Figure f;
  f.name = "measured-rate";
  f.title = "Matrix-product rate by dtype, measured here";
  f.subtitle = std::to_string(r.config.n) + "^3 products on " + r.device + "; bars: median of " +
               std::to_string(r.config.repetitions) + " interleaved runs, dots: each run; Nx: speed-up over " +
               std::string(name(r.config.baseline));
  const experiment::RateUnit unit = experiment::rate_unit(r.gpu);
  std::vector<DType> timed;
  for (const auto& row : r.rows) timed.push_back(row.dtype);
  f.y.label = experiment::rate_axis_name(unit, timed);
  category_axis(f, r.rows.size());
  bool any_overlap = false;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    const double rate = row.gflops * unit.scale;
    add_dtype_category(f, row.dtype);
    // The median with its quartiles, as the Throughput table writes it, and the speed-up marked
    // where the spreads overlap the baseline's: a bare ratio from a few noisy runs can land
    // anywhere in a wide range (0.25x to 1.00x for float64 against float32 on a busy CPU).
    const bool overlaps = overlaps_baseline(r, row);
    any_overlap |= overlaps;
    char speedup[32];
    std::snprintf(speedup, sizeof speedup, "%.2fx%s", row.speedup, overlaps ? "*" : "");
    const std::string label =
        std::string(name(row.dtype)) + "  " + experiment::spread_text(row_rates(r, row), unit.scale) + " " +
        experiment::rate_unit_name(unit, row.dtype) + ", " + speedup + (row.emulated ? " (emulated)" : "");
    f.series.push_back(category_bar(i, label, rate));
    // Every timed run as a dot over its bar: the spread says how far to trust the median.
    Series runs{"", SeriesKind::Points, {}, {}, {0.15, 0.15, 0.15, 0.8}};
    for (size_t k = 0; k < row.seconds.size(); ++k) {
      runs.x.push_back(i + 0.3 + 0.4 * (double(k) + 0.5) / double(row.seconds.size()));
      runs.y.push_back(experiment::product_gflops(r.config.n, row.seconds[k]) * unit.scale);
    }
    f.series.push_back(std::move(runs));
  }
  if (any_overlap)
    f.subtitle += "; *: its runs' quartile range overlaps " + std::string(name(r.config.baseline)) +
                  "'s, so they do not tell the two apart";
  return f;
}

}  // namespace

Figure speedup_vs_datasheet(const experiment::ThroughputResult& r) {
  const std::string base(name(r.config.baseline));
  Figure f;
  f.name = "speedup-vs-datasheet";
  f.title = "Speed-up over " + base + ": measured here and on the datasheet";
  f.subtitle = r.datasheet.empty() ? "measured on " + r.device
                                   : "measured on " + r.device + " | " + r.config.datasheet + " dense peaks, " +
                                         r.datasheet_architecture;  // ("(Hopper (sm_90))" nested)
  f.y.label = "speed-up over " + base + " (log scale)";
  f.y.log = true;
  f.x.min = 0;
  f.x.max = static_cast<double>(std::max<size_t>(r.rows.size(), 1));
  // One series per source, its bars side by side in each dtype's slot; the gaps between them
  // are bins of no value (NaN), which are not drawn, and which the CSV writes as "nan", not as a
  // speed-up of 0.
  Series here{"measured here", SeriesKind::Bars, {}, {}, palette(0)};
  Series sheet{r.config.datasheet + " datasheet", SeriesKind::Bars, {}, {}, palette(1)};
  here.base = sheet.base = 1;  // up for a speed-up, down for a slow-down
  // Each bar's value at its end, in words: grown from 1x, a speed-up of about 1 has no height, and
  // scenario 18's chart would show nothing for four of its five measured dtypes.
  Series here_values{"measured here (values)", SeriesKind::Points, {}, {}, palette(0)};
  Series sheet_values{r.config.datasheet + " datasheet (values)", SeriesKind::Points, {}, {}, palette(1)};
  here_values.in_legend = sheet_values.in_legend = false;
  double lo = 1, hi = 4;
  // A measured speed-up whose samples' quartile ranges overlap the baseline's is marked, as the
  // table's "spreads overlap": the samples do not tell the two apart, whatever the medians say.
  bool any_overlap = false;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    add_dtype_category(f, r.rows[i].dtype);
    const double x = double(i);
    auto bar = [&](Series& s, Series& values, double from, double to, double v, bool overlaps = false) {
      if (!s.x.empty()) s.y.push_back(std::numeric_limits<double>::quiet_NaN());  // the gap since the previous bar
      s.x.push_back(x + from);
      s.x.push_back(x + to);
      s.y.push_back(v);
      if (!(v > 0)) return;
      lo = std::min(lo, v), hi = std::max(hi, v);
      char text[32];
      // (The mark a star: "1.03x (overlap)" would push the labels of values near 1x, which crowd the
      // base line, beside other dtypes' bars at 1280x800.)
      std::snprintf(text, sizeof text, v < 10 ? "%.2fx%s" : "%.1fx%s", v, overlaps ? "*" : "");
      values.x.push_back(x + (from + to) / 2);
      values.y.push_back(v);
      values.point_labels.emplace_back(text);
    };
    const bool overlaps = overlaps_baseline(r, r.rows[i]);
    any_overlap |= overlaps;
    bar(here, here_values, 0.1, 0.5, r.rows[i].speedup, overlaps);
    if (i < r.datasheet.size())
      bar(sheet, sheet_values, 0.5, 0.9,
          r.datasheet[i].supported ? r.datasheet[i].speedup : std::numeric_limits<double>::quiet_NaN());
  }
  if (any_overlap)
    f.subtitle += "; *: its samples' quartile range overlaps " + base + "'s, so they do not tell the two apart";
  // A bar measured in emulation is the speed of the emulation (float32 arithmetic, or exact sums
  // in dgemm), not of the dtype: beside a datasheet's it would read as the part's own speed-up.
  std::string emulated, unsupported;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    if (r.rows[i].emulated) emulated += (emulated.empty() ? "" : ", ") + std::string(name(r.rows[i].dtype));
    if (i < r.datasheet.size() && !r.datasheet[i].supported)
      unsupported += (unsupported.empty() ? "" : ", ") + std::string(name(r.rows[i].dtype));
  }
  if (!emulated.empty()) f.subtitle += "; measured in emulation, not hardware speed: " + emulated;
  if (!unsupported.empty())
    f.subtitle += "; no datasheet bar where the " + r.config.datasheet + " lacks the dtype: " + unsupported;
  f.series.push_back(std::move(here));
  if (!r.datasheet.empty()) f.series.push_back(std::move(sheet));
  f.series.push_back(std::move(here_values));
  if (!r.datasheet.empty()) f.series.push_back(std::move(sheet_values));
  // Whole decades around the bars, with room above for the legend.
  f.y.min = std::pow(10.0, std::floor(std::log10(lo)) - (lo < 1 ? 0 : 1));
  f.y.max = std::pow(10.0, std::ceil(std::log10(hi)) + 1);
  f.annotations.push_back({AnnotationKind::HorizontalLine, 1, base + " (1x)", {0.4, 0.4, 0.4, 1}, false});
  // The rule "half precision is 2x faster, int8 4x" compares neighbours on tensor cores (tf32,
  // 16-bit, 8-bit); drawn against this figure's base it is the rule as people misread it, and the
  // key says so (scenario 18's datasheet bars stand far above both lines).
  f.annotations.push_back({AnnotationKind::HorizontalLine, 2, "\"2x faster\" read against " + base, palette(4), true});
  f.annotations.push_back({AnnotationKind::HorizontalLine, 4, "\"4x faster\" read against " + base, palette(5), true});
  return f;
}

std::vector<Figure> throughput_run_figures(const experiment::ThroughputResult& r) {
  return {measured_rate(r), speedup_vs_datasheet(r)};
}

}  // namespace pl::figure
