#include "core/figure/experiment_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/accumulate/accumulate.h"
#include "core/figure/scan_figures.h"
#include "core/figure/throughput_figures.h"
#include "core/figure/train_figures.h"
#include "core/util/number_text.h"

namespace pl::figure {
namespace {

using experiment::ErrorComponent;
using experiment::Histogram;
using experiment::MatmulResult;

Series bars(const std::string& label, const Histogram& h, Color c) {
  Series s;
  s.label = label;
  s.kind = SeriesKind::Bars;
  s.x = h.edges;
  s.y.assign(h.counts.begin(), h.counts.end());
  s.color = c;
  return s;
}

Annotation vline(double v, const std::string& label, Color c) {
  Annotation a;
  a.value = v;
  a.label = label;
  a.color = c;
  return a;
}

// An operand's recipe without the scaling it does not have: "float16 -> float32" for
// "float16 -> float32, none"; a scaled one keeps it: "float8_e4m3fn, per-tensor (amax 4.1)".
std::string operand_text(const std::string& recipe) {
  constexpr std::string_view kUnscaled = ", none";
  return recipe.size() >= kUnscaled.size() &&
                 recipe.compare(recipe.size() - kUnscaled.size(), kUnscaled.size(), kUnscaled) == 0
             ? recipe.substr(0, recipe.size() - kUnscaled.size())
             : recipe;
}

// "linear m=128 k=512 n=128: inputs float16 -> float32, weights float32; f32 OpenBLAS sgemm; output
// float32" -- a line that reads, not the settings one after another.
std::string setup_line(const MatmulResult& r) {
  const auto& c = r.config;
  return experiment::matmul_shape_text(c) + ": inputs " + operand_text(r.input_report.recipe) + ", weights " +
         operand_text(r.weight_report.recipe) + "; " + r.product_method.substr(0, r.product_method.find(" (")) +
         "; output " + std::string(name(c.output));
}

// "to nearest, ties to even", "toward zero (truncate)", "stochastically (seeded)": after "rounded".
std::string rounded_how(Rounding r) {
  if (r == Rounding::Stochastic) return "stochastically (seeded)";
  const std::string label = rounding_label(r);
  return label.rfind("nearest", 0) == 0 ? "to " + label : label;
}

std::string count_note(const Histogram& h) {
  std::string s;
  if (h.zeros) s += std::to_string(h.zeros) + " exact";
  if (h.nonfinite) s += (s.empty() ? "" : ", ") + std::to_string(h.nonfinite) + " non-finite";
  return s;
}

}  // namespace

namespace {

// Where the error comes from: each component's relative error as an outline, with the unit
// roundoffs of the float dtypes the values were rounded into, each under its rounding (2^-p to
// nearest, 2^(1-p) directed or stochastic), and of the accumulator the model adds in (an int32
// sum has none: it is exact, then converted to float32).
Figure attribution_figure(const MatmulResult& r, const std::string& setup) {
  const auto& c = r.config;
  const experiment::Accumulation& a = c.accumulate;
  const ErrorComponent* parts[] = {&r.total, &r.input, &r.arithmetic, &r.output};
  Figure attr;
  attr.name = "error-attribution";
  attr.title = "Where the error comes from: relative error per element";
  attr.subtitle = setup;
  // The floor by its value (the output dtype's smallest normal unless set): the word alone would
  // leave the reader to guess it.
  attr.x.label = "|e| / max(|reference|, " + legend_value(r.total.stats.rel_floor) + ")";
  attr.x.log = true;
  attr.y.label = "number of elements";
  attr.y.log = false;
  for (size_t i = 0; i < 4; ++i) {
    std::string label = parts[i]->name;
    if (auto note = count_note(parts[i]->relative); !note.empty()) label += " (" + note + ")";
    attr.series.push_back(bars(label, parts[i]->relative, palette(i)));
    // Outlines, not translucent fills that would mix into mud where the parts overlap; the total
    // wide and first, so that a part drawn exactly over it shows inside it.
    attr.series.back().kind = SeriesKind::Steps;
    attr.series.back().width = i == 0 ? 5 : 1.8;
  }
  // An operand stored in another dtype first (a fix's x.to(w.dtype) of float16 data, autocast's
  // cast) was rounded there too: that dtype's unit roundoff is where its input rounding sits.
  std::vector<DType> stored_in;
  for (const std::optional<DType>& via : {c.input_via, c.weight_via})
    if (via && *via != c.input && *via != c.weight &&
        std::find(stored_in.begin(), stored_in.end(), *via) == stored_in.end())
      stored_in.push_back(*via);
  // Each line once: a dtype and u already drawn (float32 inputs into a float32 sum) is not drawn
  // again under another name. Each in its role's colour, or the next the lines have not taken
  // (the bars have the first four).
  std::vector<std::pair<DType, double>> drawn;
  std::vector<int> taken;
  auto line = [&](DType t, double u, const std::string& role, int colour) {
    if (std::find(drawn.begin(), drawn.end(), std::pair{t, u}) != drawn.end()) return;
    drawn.emplace_back(t, u);
    for (int k = 0; k < 4 && std::find(taken.begin(), taken.end(), colour) != taken.end(); ++k)
      colour = 4 + (colour - 4 + 1) % 4;
    taken.push_back(colour);
    attr.annotations.push_back(vline(u, "u " + short_name(t) + role, palette(size_t(colour))));
  };
  // (A framework's cast to the stored dtype rounds to nearest.) Not where the input rounding
  // added no error at all: the reference then holds the stored values (scenario 01's
  // model.to(x.dtype), float32 weights widened), and a line at float32's u would mark an error
  // no bar has, decades past all of them.
  if (r.input.stats.max_abs > 0)
    for (DType t : stored_in) line(t, experiment::unit_roundoff(t, Rounding::NearestEven), " (stored in first)", 6);
  // The inputs' and the weights' (named apart where they differ: a float32 input beside float8
  // weights showed float32's u alone, near the float8 rounding's bars).
  const bool apart = c.input != c.weight;
  if (is_float(c.input))
    line(c.input, experiment::unit_roundoff(c.input, c.cast.rounding), apart ? " (inputs)" : "", 4);
  if (is_float(c.weight))
    line(c.weight, experiment::unit_roundoff(c.weight, c.cast.rounding), apart ? " (weights)" : "", 4);
  switch (a.kind) {
    case experiment::AccumKind::Int32:
      line(DType::float32, experiment::unit_roundoff(DType::float32, Rounding::NearestEven),
           " (the int32 sums' conversion)", 5);
      break;
    case experiment::AccumKind::Chunked:
      line(a.format, experiment::accumulation_unit(a), " (accumulator, within chunks)", 5);
      line(a.outer, experiment::unit_roundoff(a.outer, a.rounding), " (the chunks' sums)", 6);
      break;
    default: line(experiment::result_dtype(a), experiment::accumulation_unit(a), " (accumulator)", 5); break;
  }
  line(c.output, experiment::unit_roundoff(c.output, c.cast.rounding), " (output)", 7);
  return attr;
}

// The arithmetic error scaled by |A||B|, against the model's deterministic bound and its
// probabilistic estimate.
// The probabilistic estimate takes the roundings' errors as of mean zero (Higham and Mary);
// toward zero, up and down round every error one way, and theirs can grow faster than sqrt(K).
bool directed(Rounding r) { return r == Rounding::TowardZero || r == Rounding::Up || r == Rounding::Down; }
constexpr const char* kBiasedEstimate =
    "the estimate takes rounding errors of mean zero, which rounding toward zero, up or down are not "
    "(their errors can grow faster than sqrt(K), up to the bound)";

Figure bound_figure(const MatmulResult& r, const std::string& setup) {
  const auto& c = r.config;
  Figure bound;
  bound.name = "arithmetic-vs-bound";
  bound.title = "Arithmetic error against the accumulation model's bounds";
  bound.subtitle = setup + "; K = " + std::to_string(c.k);
  // (With a bias, the sum's terms are the products and the bias: bound_check.h.)
  bound.x.label = c.bias ? "|Cacc - Rq| / ((|A||B|) + |bias|)" : "|Cacc - Rq| / (|A||B|)";
  bound.x.log = true;
  bound.y.label = "number of elements";
  bound.y.log = false;
  std::string label = r.arithmetic.name;  // (the part it plots, by the name the part choice knows)
  if (auto note = count_note(r.scaled_arithmetic); !note.empty()) label += " (" + note + ")";
  bound.series.push_back(bars(label, r.scaled_arithmetic, palette(2)));
  // gamma_K and sqrt(K) u by name only where they are the model's bound and estimate, with the
  // length they are taken at (matmul_bound_names: gamma_{K+1} after a scale), and their values
  // as the run's table and report write them (a bound rounded up, "3.058e-05", not "3.057...").
  const experiment::MatmulBoundNames named = experiment::matmul_bound_names(r);
  const bool gamma = experiment::rounds_at_each_addition(c.accumulate.kind);
  if (!std::isfinite(r.bounds.deterministic)) bound.subtitle += "; no deterministic bound (" + named.none_when + ")";
  // (A device library's adder is not the model's: the figure says so where the table does, or a
  // bar past the line would read as a broken bound.)
  if (!r.bound_note.empty()) bound.subtitle += "; " + r.bound_note;
  const std::string at = " at K = " + std::to_string(c.k) + ": ";
  // A Kahan sum's estimate is its bound: one line, named for both (two lines at one x would hide
  // the first under the second).
  const bool one_line = experiment::estimate_is_the_bound(r.bounds);
  if (std::isfinite(r.bounds.deterministic))
    bound.annotations.push_back(vline(r.bounds.deterministic,
                                      (gamma ? "deterministic " + named.worst : "the model's worst-case bound") +
                                          (one_line ? ", also its estimate," : "") + at +
                                          experiment::bound_value_text(r.bounds.deterministic),
                                      palette(1)));
  if (std::isfinite(r.bounds.probabilistic) && !one_line && directed(c.accumulate.rounding))
    bound.subtitle += std::string("; ") + kBiasedEstimate;
  if (std::isfinite(r.bounds.probabilistic) && !one_line)
    bound.annotations.push_back(vline(r.bounds.probabilistic,
                                      (gamma ? "estimate " + named.probable : "the model's probabilistic estimate") +
                                          at + experiment::bound_value_text(r.bounds.probabilistic),
                                      palette(0)));
  return bound;
}

Figure signed_figure(const MatmulResult& r, const std::string& setup) {
  Figure sign;
  sign.name = "signed-error";
  sign.title = "Total error C - R";
  sign.subtitle = setup;
  sign.x.label = "C - R";
  sign.x.log = false;
  sign.y.label = "number of elements";
  sign.y.log = false;
  sign.series.push_back(bars("total", r.total.signed_error, palette(0)));
  return sign;
}

// The total and the output rounding in ulps of the output dtype, against half an ulp.
Figure ulp_figure(const MatmulResult& r, const std::string& setup) {
  Figure ulp;
  ulp.name = "ulp-error";
  ulp.title = "Error in ulps of " + std::string(name(r.config.output));
  ulp.subtitle = setup;
  ulp.x.label = "|e| / ulp(reference)";
  ulp.x.log = true;
  ulp.y.label = "number of elements";
  ulp.y.log = false;
  for (const auto& [part, color] : {std::pair{&r.total, palette(0)}, std::pair{&r.output, palette(3)}}) {
    std::string label = part->name;
    if (auto note = count_note(part->ulps); !note.empty()) label += " (" + note + ")";
    ulp.series.push_back(bars(label, part->ulps, color));
    ulp.series.back().kind = SeriesKind::Steps;  // outlines: the total wide, the part inside it
    ulp.series.back().width = part == &r.total ? 5 : 1.8;
  }
  // A correct rounding to nearest is off by half an ulp at most; a directed or stochastic one by
  // up to a whole ulp.
  if (to_nearest(r.config.cast.rounding))
    ulp.annotations.push_back(vline(0.5, "half an ulp (correct rounding)", palette(1)));
  else ulp.annotations.push_back(vline(1.0, "one ulp (the most a directed or stochastic rounding is off)", palette(1)));
  return ulp;
}

// The total error over the output matrix (pooled where the run made the arrays: matmul.h's
// error_map).
Figure heatmap_figure(const MatmulResult& r, const std::string& setup) {
  const auto& c = r.config;
  Figure heat;
  heat.name = "error-heatmap";
  heat.title = "Total error over the output matrix";
  heat.subtitle = setup + (c.m > 512 || c.n > 512 ? " (blocks show their largest error)" : "");
  heat.x.label = "column j (" + std::to_string(c.n) + ")";
  heat.x.log = false;
  heat.y.label = "row i (" + std::to_string(c.m) + ")";
  heat.y.log = false;
  Heatmap h;
  h.rows = r.error_map.rows, h.cols = r.error_map.cols, h.values = r.error_map.values;
  h.block_rows = r.error_map.block_rows, h.block_cols = r.error_map.block_cols;
  h.matrix_rows = c.m, h.matrix_cols = c.n;
  double m = 0;
  for (double v : h.values)
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  h.vmin = -(m > 0 ? m : 1);
  h.vmax = m > 0 ? m : 1;
  h.map = Colormap::Diverging;
  h.colorbar_label = "C - R";
  heat.heatmap = std::move(h);
  return heat;
}

}  // namespace

std::vector<Figure> matmul_figures(const MatmulResult& r) {
  std::string setup = setup_line(r), heat_setup = setup;
  // Outputs that came out NaN or Inf are not in any histogram, and are grey in the heat map: an
  // exported figure says so.
  if (const size_t left = r.total.stats.nan + r.total.stats.inf; left > 0) {
    setup += "; " + std::to_string(left) + " outputs NaN or Inf, left out";
    heat_setup += "; " + std::to_string(left) + " outputs NaN or Inf, grey";
  }
  return {attribution_figure(r, setup), bound_figure(r, setup), signed_figure(r, setup), ulp_figure(r, setup),
          heatmap_figure(r, heat_setup)};
}

Figure dot_sweep_figure(const std::vector<experiment::DotSweepRow>& rows, const experiment::DotSweepConfig& c) {
  Figure f;
  f.name = "error-vs-k";
  f.title = c.sum ? "Sum error versus length" : "Dot-product error versus length";
  f.subtitle = (c.sum ? "sums of " + std::string(name(c.a_dtype))
                      : std::string(name(c.a_dtype)) + " x " + std::string(name(c.b_dtype))) +
               ", N(0,1) inputs, " + std::to_string(c.trials) + " trials per point, seed " + std::to_string(c.seed);
  f.x.label = "K";
  f.x.log = true;
  // A sum's terms are a_k alone (every b_k is 1), so its normaliser is sum |a_k|.
  f.y.label = c.sum ? "max |e| / sum |a_k|" : "max |e| / sum |a_k b_k|";
  f.y.log = true;
  std::map<std::string, size_t> index;
  std::vector<experiment::AccumKind> kinds;  // each model's, in index order
  bool zero = false, overflowed = false;
  std::vector<std::string> biased;         // the models rounding one way whose estimate is drawn
  std::vector<std::string> same_as_bound;  // compensated sums: their bound is their estimate too
  for (const auto& r : rows) {
    const std::string model = experiment::describe(r.model);
    if (experiment::estimate_is_the_bound(r.bounds) &&
        std::find(same_as_bound.begin(), same_as_bound.end(), model) == same_as_bound.end())
      same_as_bound.push_back(model);
    if (directed(r.model.rounding) && std::isfinite(r.bounds.probabilistic) &&
        !experiment::estimate_is_the_bound(r.bounds) && std::find(biased.begin(), biased.end(), model) == biased.end())
      biased.push_back(model);
    if (!index.count(model)) {
      const size_t i = index.size();
      index[model] = i;
      kinds.push_back(r.model.kind);
      // Markers on the measurements too: a model whose neighbours are 0 or infinite (off a
      // log axis) still shows its point.
      Series measured{model, SeriesKind::Line, {}, {}, palette(i), false};
      Series points{"", SeriesKind::Points, {}, {}, palette(i), false};
      // The bound gamma_K dashed and the probabilistic estimate (sqrt(K) u for a sequential
      // sum, Higham and Mary: a rounding-error model's typical size, far below the worst case)
      // dotted, in the model's colour. The legend names the colours and, once, the two patterns
      // (four models' three lines each would make a legend taller than the plot); the bounds keep
      // their names for the CSV and the window's show/hide list.
      Series bound{model + " bound", SeriesKind::Line, {}, {}, palette(i), true};
      bound.in_legend = false;
      Series estimate{model + " estimate", SeriesKind::Line, {}, {}, palette(i), false};
      estimate.dotted = true;
      estimate.in_legend = false;
      f.series.push_back(measured);
      f.series.push_back(points);
      f.series.push_back(bound);
      f.series.push_back(estimate);
    }
    const size_t i = index[model];
    // A length where every sum was NaN or Inf has no error to draw (NaN: a gap in the line).
    const bool compared = r.stats.count > 0;
    for (size_t s : {4 * i, 4 * i + 1}) {
      f.series[s].x.push_back(static_cast<double>(r.length));
      f.series[s].y.push_back(compared ? r.max_scaled : std::numeric_limits<double>::quiet_NaN());
    }
    f.series[4 * i + 2].x.push_back(static_cast<double>(r.length));
    f.series[4 * i + 2].y.push_back(r.bounds.deterministic);
    f.series[4 * i + 3].x.push_back(static_cast<double>(r.length));
    f.series[4 * i + 3].y.push_back(r.bounds.probabilistic);
    zero |= compared && r.max_scaled == 0;
    overflowed |= r.stats.nan + r.stats.inf > 0;
  }
  // gamma_K exists only while K u < 1: a bound at some lengths only says where it ends, one at a
  // single length is a marker (a one-point line draws nothing), and one at none says so.
  bool any_bound = false, any_estimate = false, per_term = true, bound_dot = false, gamma_k = true;
  bool estimate_cross = false;  // an estimate at one length: a cross (figure_export.cpp's marker)
  // Where each model's bound ends, grouped so one clause names every model that ends alike:
  // "gamma_K exists while K u < 1, so it is drawn at none of these K for bf16; only at K = 256 for
  // e6m9 and e7m8; up to K = 1024 for f16" (one clause a model would overrun two lines at 1280 px;
  // the clauses apart by semicolons, as the models within one are by commas). Of the K sampled: "at
  // no K" would read as if bfloat16 had no bound at any length, where it has one below K = 256.
  std::vector<std::pair<std::string, std::vector<std::string>>> ends;
  bool ends_gamma_k = true;  // every model whose bound ends is one whose bound is gamma_K
  auto note_end = [&ends](std::string where, const std::string& model) {
    for (auto& [w, models] : ends)
      if (w == where) return models.push_back(model);
    ends.push_back({std::move(where), {model}});
  };
  for (const auto& [model, i] : index) {
    // An estimate equal to the bound (compensated sums) or zero (exact integer sums) adds no line.
    Series& e = f.series[4 * i + 3];
    if (e.y == f.series[4 * i + 2].y || std::none_of(e.y.begin(), e.y.end(), [](double y) { return y > 0; })) {
      e.label.clear();
      e.x.clear();
      e.y.clear();
    }
    if (!e.y.empty()) any_estimate = true, per_term &= experiment::rounds_at_each_addition(kinds[i]);
    estimate_cross |= e.y.size() == 1;
    Series& b = f.series[4 * i + 2];
    std::vector<double> at;
    for (size_t k = 0; k < b.x.size(); ++k)
      if (std::isfinite(b.y[k]) && b.y[k] > 0) at.push_back(b.x[k]);
    any_bound |= !at.empty();
    // (the models whose bound is gamma_K itself)
    gamma_k &= at.empty() || experiment::rounds_at_each_addition(kinds[i]);
    if (at.size() == b.x.size()) {
      bound_dot |= at.size() == 1;  // a sweep of one length: the bound is a lone ring
      continue;
    }
    ends_gamma_k &= experiment::rounds_at_each_addition(kinds[i]);
    auto k_text = [](double k) { return std::to_string(static_cast<long long>(k)); };
    if (at.empty()) {
      b.label.clear();  // nothing to show or hide
      note_end("at none of these K", model);
    } else if (at.size() == 1) {
      b.kind = SeriesKind::Points;
      bound_dot = true;
      note_end("only at K = " + k_text(at.front()), model);
    } else {
      note_end("up to K = " + k_text(at.back()), model);
    }
  }
  if (!ends.empty()) {
    // (A pairwise, chunked or multi-term sum's bound ends where its own rounding steps' m u reach
    // one: f16 chunked(4096) at K = 8192 by its chunk, not by K.)
    f.subtitle += ends_gamma_k ? "; the worst-case bound gamma_K exists while K u < 1, so it is drawn"
                               : "; a worst-case bound exists while its m u < 1 (m = K for a sequential sum), so it "
                                 "is drawn";
    for (size_t e = 0; e < ends.size(); ++e) {
      const auto& [where, models] = ends[e];
      f.subtitle += (e ? "; " : " ") + where + " for ";
      for (size_t m = 0; m < models.size(); ++m)
        f.subtitle += (m == 0 ? "" : m + 1 == models.size() ? " and " : ", ") + models[m];
    }
  }
  const Color key{0.35, 0.35, 0.35, 1};
  // The key names the lone dot too: a legend saying "dashed" would leave it unexplained.
  // Pairwise, chunked, compensated and multi-term sums have bounds of their own, not gamma_K.
  // Where the subtitle calls gamma_K the worst-case bound, a ring's key says only "gamma_K": in
  // full it would be cut in scenario 22's legend at 1280x800 in presentation mode.
  const bool short_key = gamma_k && bound_dot && ends_gamma_k;
  const std::string bound_name = short_key ? "gamma_K" : gamma_k ? "worst-case bound gamma_K" : "worst-case bound";
  if (any_bound)
    f.series.push_back({bound_name + (!bound_dot ? " (dashed)"
                                      : short_key ? " (dashed; ring: one K)"
                                                  : " (dashed; ring: one K only)"),
                        SeriesKind::Line,
                        {},
                        {},
                        key,
                        true});
  if (any_estimate) {
    const std::string pattern = estimate_cross ? " (dotted; cross: one K)" : " (dotted)";
    f.series.push_back({(per_term ? "estimate sqrt(K) u" : "estimate: each m u of the bound as sqrt(m) u") + pattern,
                        SeriesKind::Line,
                        {},
                        {},
                        key,
                        false});
    f.series.back().dotted = true;
  }
  if (!same_as_bound.empty()) {
    // (Its estimate is not drawn: the same line twice. Without a word the key's "estimate
    // (dotted)" would read as if the model had none.)
    f.subtitle += "; the bound of ";
    for (size_t m = 0; m < same_as_bound.size(); ++m) f.subtitle += (m ? ", " : "") + same_as_bound[m];
    f.subtitle += " is also its estimate (a compensated sum's bound is a fixed number of roundings, not K of them)";
  }
  if (!biased.empty()) {
    f.subtitle += std::string("; ") + kBiasedEstimate + ": ";
    for (size_t m = 0; m < biased.size(); ++m) f.subtitle += (m ? ", " : "") + biased[m];
  }
  if (zero) f.subtitle += "; an error of exactly 0 has no place on the log axis";
  if (overflowed) f.subtitle += "; NaN or Inf sums are left out (the table counts them)";
  return f;
}

namespace {

// The recipe's scales over the tensor, log2 of each block's dequantisation factor (scale_map.h).
Figure scale_map_figure(const experiment::RoundtripResult& r, const std::string& setup) {
  const experiment::ScaleMap& m = r.scales;
  const bool per_row = m.per_row;
  Figure f;
  f.name = "scale-map";
  f.title =
      per_row ? "The scale of each row" : "The scale of each block of " + std::to_string(m.block) + " along a row";
  f.subtitle = setup;
  Heatmap h;
  h.rows = m.rows, h.cols = m.cols, h.values = m.log2_factor;
  h.map = Colormap::Viridis;
  h.colorbar_label = "log2 of the scale";
  double lo = INFINITY, hi = -INFINITY;
  bool zero_blocks = false;
  for (double v : h.values)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    else zero_blocks = true;
  if (!(lo <= hi)) lo = 0, hi = 1;
  draw_at_bottom(
      h, [](double v) { return !std::isfinite(v); }, lo, "nan: a block of zeros, which has no scale");
  h.vmin = std::floor(lo), h.vmax = std::ceil(hi) > std::floor(lo) ? std::ceil(hi) : std::floor(lo) + 1;
  f.heatmap = std::move(h);
  if (m.row_step > 1 || m.col_step > 1)
    f.subtitle += "; each cell the mean over " + std::to_string(m.row_step) + " x " + std::to_string(m.col_step) +
                  (per_row ? " rows" : " rows x blocks");
  if (zero_blocks) f.subtitle += "; all-zero blocks take the bottom colour";
  f.x.label = per_row ? "one scale per row" : "block along the row (" + std::to_string(m.blocks_per_row) + ")";
  f.y.label = "row (" + std::to_string(m.tensor_rows) + ")";
  return f;
}

// How a round trip's elements were rounded: an integer dtype's always to nearest, ties to even
// (scaling.cpp's round_integers), whatever rounding the config names for float dtypes.
std::string rounding_text(const experiment::RoundtripConfig& c) {
  if (is_float(c.dtype)) return rounded_how(c.cast.rounding);
  return rounded_how(Rounding::NearestEven) +
         (c.cast.rounding == Rounding::NearestEven ? "" : " (as integers always are here)");
}

}  // namespace

std::vector<Figure> roundtrip_figures(const experiment::RoundtripResult& r) {
  const auto& c = r.config;
  const FloatFormat* f = is_float(c.dtype) ? &info(c.dtype).format : nullptr;
  // A sentence, not a list of settings: "64 x 256 values of normal(scale 1e-07) into float16,
  // unscaled, rounded to nearest, ties to even: 0 out of range (to Inf), 3923 rounded to zero".
  const std::string scaling = experiment::scaling_spec(c.scaling);
  const std::string setup = std::to_string(c.rows) + " x " + std::to_string(c.cols) + " values of " +
                            (r.input_file.empty() ? experiment::describe(c.data) : r.input_file) + " into " +
                            std::string(name(c.dtype)) + ", " + (scaling == "none" ? "unscaled" : scaling + " scaled") +
                            ", rounded " + rounding_text(c) + ": " + std::to_string(r.saturated) + " out of range (" +
                            r.out_of_range + "), " + std::to_string(r.flushed) + " rounded to zero";
  Figure err;
  err.name = "roundtrip-error";
  err.title = "Round trip through " + std::string(name(c.dtype)) + ": relative error per value";
  err.subtitle = setup;
  err.x.label = "|e| / max(|x|, " + legend_value(r.stats.rel_floor) + ")";
  err.x.log = true;
  err.y.label = "number of values";
  err.y.log = false;
  std::string label = "round trip";
  if (auto note = count_note(r.relative); !note.empty()) label += " (" + note + ")";
  err.series.push_back(bars(label, r.relative, palette(0)));
  if (f) {  // (2^-p to nearest; a directed or stochastic rounding's u is 2^(1-p))
    const double u = experiment::unit_roundoff(c.dtype, c.cast.rounding);
    err.annotations.push_back(vline(u, "unit roundoff u = " + legend_value(u), palette(1)));
  }
  // Where a recipe scales symmetrically the bars are the magnitudes the format rounds, each value
  // over its scale (the scale map's factor: q = round(x / scale) * scale), so that the format's limits apply to them
  // (drawn against the unscaled data, scenario 13's fp4 per-tensor run, 64,968 of 65,536 values rounded to zero, would
  // sit right of the smallest subnormal). An asymmetric recipe's zero point shifts the values the integer range applies
  // to: its bars are |x|, and no limit is drawn.
  const bool asymmetric = !r.magnitudes_scaled && scaling != "none";
  Figure range;
  range.name = "roundtrip-range";
  range.title = asymmetric ? "The data's magnitudes"
                           : "The data's magnitudes against the range of " + std::string(name(c.dtype));
  range.subtitle = setup + (r.magnitudes_scaled ? " (each value over its scale, as the format rounds it)"
                            : asymmetric        ? " (before scaling: the recipe maps each row's or group's [min, max] "
                                                  "onto the integer range)"
                                                : "");
  range.x.label = r.magnitudes_scaled ? "|x| / its scale" : "|x|";
  range.x.log = true;
  range.y.label = "number of values";
  range.y.log = false;
  range.series.push_back(bars(r.magnitudes_scaled ? "|x| / its scale" : "|x|", r.magnitudes, palette(2)));
  if (f) {
    // (float8_e8m0fnu has none: its smallest value is its smallest normal.)
    if (f->has_subnormals()) range.annotations.push_back(vline(min_subnormal(*f), "smallest subnormal", palette(4)));
    range.annotations.push_back(vline(min_normal(*f), "smallest normal", palette(5)));
    range.annotations.push_back(vline(max_finite(*f), "largest", palette(1)));
  } else if (!asymmetric) {
    // An integer: below one half rounds to 0; past the largest, clamped.
    range.annotations.push_back(vline(0.5, "0.5: below it, 0", palette(4)));
    range.annotations.push_back(vline(static_cast<double>(int_max(c.dtype)), "largest", palette(1)));
  }
  if (r.scales.empty()) return {err, range};
  return {err, range, scale_map_figure(r, setup)};
}

Figure mlp_figure(const experiment::MlpResult& r) {
  const auto& c = r.config;
  Figure f;
  f.name = "error-vs-layer";
  f.title = "Error through the layers of an MLP";
  f.subtitle = std::to_string(c.layers) + " layers of width " + std::to_string(c.layer.k) + ", batch " +
               std::to_string(c.layer.m) + ", " + std::string(experiment::activation_name(c.activation)) + "; inputs " +
               std::string(name(c.layer.input)) + ", weights " + std::string(name(c.layer.weight)) + "; " +
               experiment::describe(c.layer.accumulate) + "; output " + std::string(name(c.layer.output));
  f.x.label = "layer";
  f.x.log = false;
  f.y.label = "normwise relative error ||e||_F / ||ref||_F";
  f.y.log = true;
  Series net{"network vs float64 network", SeriesKind::Line, {}, {}, palette(0), false};
  Series own{"the layer's own error", SeriesKind::Line, {}, {}, palette(1), true};
  Series arith{"the layer's arithmetic error", SeriesKind::Line, {}, {}, palette(2), true};
  // A layer whose every output was NaN or Inf has no error to draw (NaN: a gap in the line).
  auto error = [](const experiment::ErrorStats& s) {
    return s.count > 0 ? s.normwise_rel : std::numeric_limits<double>::quiet_NaN();
  };
  bool overflowed = false;
  for (const auto& l : r.layers) {
    const double x = l.layer;
    net.x.push_back(x), net.y.push_back(error(l.network));
    own.x.push_back(x), own.y.push_back(error(l.own));
    arith.x.push_back(x), arith.y.push_back(error(l.own_arithmetic));
    overflowed |= l.network.nan + l.network.inf > 0;
  }
  if (overflowed) f.subtitle += "; NaN or Inf outputs are left out (the table counts them)";
  f.series = {net, own, arith};
  for (size_t i = 0; i < 3; ++i) {  // markers on each line, unlabelled
    Series pts = f.series[i];
    pts.kind = SeriesKind::Points;
    pts.label.clear();
    f.series.push_back(std::move(pts));
  }
  separate_coincident_lines(f);  // a float32 output adds no rounding: own error = arithmetic error
  f.x.min = 0.5;
  f.x.max = c.layers + 0.5;
  return f;
}

Figure mlp_rms_figure(const experiment::MlpResult& r) {
  const auto& c = r.config;
  Figure f;
  f.name = "rms-vs-layer";
  f.title = "How large the activations are through the layers";
  f.subtitle = "the float64 network's outputs of each layer; " + std::to_string(c.layers) + " layers of width " +
               std::to_string(c.layer.k) + ", " + std::string(experiment::activation_name(c.activation));
  f.x.label = "layer";
  f.x.log = false;
  f.y.label = "RMS of the layer's outputs (float64 network)";
  f.y.log = true;
  Series rms{"reference RMS", SeriesKind::Line, {}, {}, palette(3), false};
  for (const auto& l : r.layers) rms.x.push_back(l.layer), rms.y.push_back(l.reference_rms);
  Series pts = rms;
  pts.kind = SeriesKind::Points;
  pts.label.clear();
  f.series = {rms, pts};
  f.x.min = 0.5;
  f.x.max = c.layers + 0.5;
  return f;
}

std::vector<Figure> mlp_figures(const experiment::MlpResult& r) { return {mlp_figure(r), mlp_rms_figure(r)}; }

}  // namespace pl::figure

namespace pl::figure {

Figure framework_fixes_figure(const experiment::FrameworkRun& f) {
  Figure fig;
  fig.name = "framework-fixes";
  fig.title = "The fixes for " + f.call;
  // The reference each fix ran against: double-double (exact to about 106 bits) where a float64
  // dtype is in play, else float64. "The float64 reference" under a float64 fix that agrees to
  // 51 of 53 bits would read as float64 scored against itself (scenarios 01 and 03 say "exactly").
  fig.subtitle = f.engine + " raises " + f.as_written.error_type + "; each fix against " +
                 experiment::fixes_reference_text(f) + ", higher bars agree with more bits";
  fig.y.label = "mean bits of agreement";
  category_axis(fig, f.fixes.size());
  for (size_t i = 0; i < f.fixes.size(); ++i) {
    const auto& x = f.fixes[i];
    fig.x.categories.push_back(x.code);
    if (!x.result) continue;
    const double bits = x.result->total.stats.mean_bits;
    char label[160];
    std::snprintf(label, sizeof label, "%s: %s, %.1f bits", x.code.c_str(),
                  std::string(name(*x.outcome.result)).c_str(), bits);
    fig.series.push_back(category_bar(i, label, bits));
  }
  return fig;
}

std::vector<Figure> experiment_figures(const experiment::ExperimentRun& run) {
  if (run.mlp) return mlp_figures(*run.mlp);
  if (run.dot_config) return {dot_sweep_figure(run.dot_rows, *run.dot_config)};
  if (run.roundtrip) return roundtrip_figures(*run.roundtrip);
  if (run.throughput) return throughput_run_figures(*run.throughput);
  if (run.train) return train_figures(*run.train);
  if (run.scan) return scan_figures(run.scan->result, run.scan->plans.frontier, run.scan->plans.plan);
  if (!run.matmul) return {};
  if (run.matmul->result) return matmul_figures(*run.matmul->result);
  std::vector<Figure> out{framework_fixes_figure(*run.matmul->framework)};
  const auto& fixes = run.matmul->framework->fixes;
  for (size_t i = 0; i < fixes.size(); ++i) {
    if (!fixes[i].result) continue;
    Figure attribution = matmul_figures(*fixes[i].result).front();
    attribution.name = "fix-" + std::to_string(i + 1) + "-" + attribution.name;
    attribution.title = fixes[i].code + ": " + attribution.title;
    out.push_back(std::move(attribution));
  }
  return out;
}

}  // namespace pl::figure
