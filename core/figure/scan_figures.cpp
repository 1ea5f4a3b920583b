#include "core/figure/scan_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string_view>

namespace pl::figure {
namespace {

using experiment::ScanResult;

using experiment::sqnr_db;

// The checkpoint as its folder and file ("all-minilm/model.safetensors"): a full path is long
// and says where one machine kept it.
std::string checkpoint_name(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string folder = p.parent_path().filename().string();
  return folder.empty() ? p.filename().string() : folder + "/" + p.filename().string();
}

std::string bits_text(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.4g", v);
  return s;
}

// "; outputs on acts.safetensors, inputs in int8 channel" when the scan weighed the outputs.
std::string inputs_text(const ScanResult& r) {
  if (!experiment::by_output(r)) return "";
  std::string s = "; outputs on " + std::filesystem::path(r.activations).filename().string();
  if (auto format = experiment::parse_candidate(r.activation_format); !r.activation_format.empty() && format)
    s += ", inputs in " + format->short_text();
  return s;
}

// Whether a module outside the layers is an input embedding, by its last name as the common
// model families spell it: Llama's embed_tokens, GPT-NeoX's embed_in, BART's embed_positions,
// BERT's word_ / position_ / token_type_embeddings, GPT-2's wte and wpe, T5's shared. GPT-NeoX's
// embed_out is its output head.
bool is_input_embedding(std::string_view role) {
  const std::string_view last = role.substr(role.rfind('.') == std::string_view::npos ? 0 : role.rfind('.') + 1);
  static constexpr std::string_view kNames[] = {"embed_tokens", "embed_in", "embed_positions", "embeddings",
                                                "wte",          "wpe",      "tok_embeddings",  "shared"};
  return std::find(std::begin(kNames), std::end(kNames), last) != std::end(kNames) || last.ends_with("_embeddings");
}

}  // namespace

Figure scan_heatmap_figure(const ScanResult& r) {
  // Rows in the order a model runs them: the input embeddings (is_input_embedding), the layers in
  // order -- of each stack, when there are several (an encoder's and a decoder's layer 3 are two
  // rows) -- then each other tensor outside them under its role (the head, a final norm), in
  // checkpoint order.
  std::map<std::pair<std::string, long>, size_t> layer_row;
  std::vector<std::string> before, after;
  for (const auto& t : r.tensors) {
    if (t.place.layer) {
      layer_row.emplace(std::pair{t.place.stack, *t.place.layer}, 0);
      continue;
    }
    auto& side = is_input_embedding(t.place.role) ? before : after;
    if (std::find(side.begin(), side.end(), t.place.role) == side.end()) side.push_back(t.place.role);
  }
  const bool stacks = !layer_row.empty() && layer_row.begin()->first.first != layer_row.rbegin()->first.first;
  Figure f;
  f.name = "sqnr-heatmap";
  f.tab = "SQNR by layer";
  f.title = experiment::by_output(r) ? "SQNR of each layer's output in each candidate"
                                     : "SQNR of each layer in each candidate";
  std::vector<std::string> rows;
  std::map<std::string, size_t> role_row;
  auto add_roles = [&](const std::vector<std::string>& roles) {
    for (const std::string& role : roles) {  // "model.embed_tokens" as "embed_tokens"; "pooler.dense" whole
      role_row[role] = rows.size();
      rows.push_back(role.rfind("model.", 0) == 0 ? role.substr(6) : role);
    }
  };
  add_roles(before);
  for (auto& [key, row] : layer_row) {
    row = rows.size();
    rows.push_back((stacks ? key.first + " " : std::string()) + std::to_string(key.second));
  }
  add_roles(after);
  const size_t cols = r.candidates.size();
  std::vector<double> energy(rows.size(), 0), error(rows.size() * cols, 0);
  std::vector<char> scored(rows.size(), 0);  // a tensor with a finite element in the row
  for (const auto& t : r.tensors) {
    const size_t row = t.place.layer ? layer_row[{t.place.stack, *t.place.layer}] : role_row[t.place.role];
    scored[row] |= experiment::has_finite_elements(t);
    energy[row] += experiment::scored_energy(r, t);
    for (size_t c = 0; c < cols; ++c) error[row * cols + c] += experiment::scored_error(r, t.scores[c]);
  }
  Heatmap h;
  h.rows = rows.size(), h.cols = cols;
  h.map = Colormap::Viridis;
  h.colorbar_label = experiment::by_output(r) ? "output SQNR (dB)" : "SQNR (dB)";
  h.inf_is_exact = true;
  double lo = INFINITY, hi = -INFINITY;
  bool exact = false, unscored = false;
  for (size_t row = 0; row < rows.size(); ++row)
    for (size_t c = 0; c < cols; ++c) {
      // (A row of tensors without a finite element has no figure: grey, not "exact".)
      unscored = unscored || !scored[row];
      const double v = scored[row] ? sqnr_db(energy[row], error[row * cols + c]) : NAN;
      h.values.push_back(v);
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
      exact = exact || (std::isinf(v) && v > 0);
    }
  // Each cell's SQNR in words as well (viridis draws 31 dB and 33 dB alike), "exact" for an
  // exact cell; none for a grey one.
  for (double v : h.values) h.cell_labels.push_back(std::isnan(v) ? "" : experiment::sqnr_text(v));
  if (!(lo <= hi)) lo = 0, hi = 1;
  // Exact cells stay +inf, which the drawers colour white, outside the colour map: at the top of
  // the scale they could not be told from the best lossy candidate (43 dB would look exact). Ruined
  // ones (no finite SQNR left) go to the bottom.
  // (Said in the subtitle too: where the cells are too small for their numbers, a ruined cell
  // would read as the lowest SQNR.)
  const bool ruined = std::any_of(h.values.begin(), h.values.end(), [](double v) { return std::isinf(v) && v < 0; });
  draw_at_bottom(
      h, [](double v) { return std::isinf(v) && v < 0; }, lo,
      "-inf: the candidate's copy holds Inf or NaN, or errs where the tensors hold only zeros (drawn at the bottom)");
  h.vmin = std::floor(lo), h.vmax = std::ceil(hi) > std::floor(lo) ? std::ceil(hi) : std::floor(lo) + 1;
  f.heatmap = std::move(h);
  // The rows are layers (and the tensors outside them): each cell is its row's tensors together,
  // which "28 tensors" above 4 rows would not say.
  f.subtitle =
      std::to_string(r.tensors.size()) + (r.tensors.size() == 1 ? " tensor of " : " tensors of ") +
      checkpoint_name(r.checkpoint) + inputs_text(r) +
      (rows.size() < r.tensors.size()
           ? " in " + std::to_string(rows.size()) + " rows: one per layer (or module), its tensors pooled"
           : "") +
      (exact ? "; white cells: exact, without any error" : "") +
      (unscored ? "; grey cells: no finite element to score (all Inf or NaN)" : "") +
      (ruined ? "; -inf cells (no finite SQNR: a copy that holds Inf or NaN, or errs where the tensors hold only "
                "zeros) drawn in the bottom colour"
              : "");
  f.x.label = "candidate";
  for (const std::string& c : r.candidates) {
    auto parsed = experiment::parse_candidate(c);
    f.x.categories.push_back(parsed ? parsed->short_text() : c);
  }
  f.y.label = layer_row.empty() ? "tensor" : "layer";
  f.y.categories = std::move(rows);
  return f;
}

Figure frontier_figure(const ScanResult& r, const std::vector<experiment::PlanPoint>& frontier,
                       const std::optional<experiment::PlanReport>& plan) {
  Figure f;
  f.name = "plan-frontier";
  f.tab = "plan frontier";
  f.title = "Mixed-precision plans: error against size";
  f.subtitle = (experiment::by_output(r) ? "SQNR of the outputs of the " : "SQNR over the ") +
               std::to_string(r.tensors.size()) + " scanned tensors" + inputs_text(r) + " (higher is better); " +
               std::to_string(frontier.size()) + " plans on the frontier";
  if (const std::string dominant = experiment::dominant_energy_text(r); !dominant.empty())
    f.subtitle += "; pooled, so mostly one tensor's: " + dominant;
  f.x.label = "bits per parameter (average, scales included)";
  f.y.label = experiment::by_output(r) ? "output SQNR (dB)" : "SQNR (dB)";
  double energy = 0, params = 0;
  for (const auto& t : r.tensors) energy += experiment::scored_energy(r, t), params += double(t.params);
  Series line;
  line.label = "frontier: least error for its bits";
  line.kind = SeriesKind::Line;
  line.color = palette(0);
  for (const auto& p : frontier)
    if (std::isfinite(sqnr_db(energy, p.error))) {
      line.x.push_back(p.bits_per_param);
      line.y.push_back(sqnr_db(energy, p.error));
    }
  f.series.push_back(std::move(line));
  // Each candidate for every tensor: one marker each, named beside it.
  Series uniform;
  uniform.label = "one candidate for every tensor";
  uniform.kind = SeriesKind::Points;
  uniform.color = palette(1);
  for (size_t c = 0; c < r.candidates.size(); ++c) {
    double bits = 0, error = 0;
    for (const auto& t : r.tensors)
      bits += t.scores[c].bits_per_param * double(t.params), error += experiment::scored_error(r, t.scores[c]);
    if (!std::isfinite(sqnr_db(energy, error)) || params <= 0) continue;
    auto parsed = experiment::parse_candidate(r.candidates[c]);
    uniform.x.push_back(bits / params);
    uniform.y.push_back(sqnr_db(energy, error));
    uniform.point_labels.push_back(parsed ? parsed->short_text() : r.candidates[c]);
  }
  f.series.push_back(std::move(uniform));
  if (plan) {
    Series chosen;
    // Its SQNR as the panel's plan line and scan's output write it (else the key would say
    // 54.59 dB where the plan line above says 54.6).
    const double db = sqnr_db(energy, plan->plan.point.error);
    chosen.label = "the plan: " + bits_text(plan->plan.point.bits_per_param) + " bits, " +
                   experiment::sqnr_db_text(db);
    chosen.kind = SeriesKind::Points;
    chosen.color = palette(4);
    if (std::isfinite(sqnr_db(energy, plan->plan.point.error))) {
      chosen.x.push_back(plan->plan.point.bits_per_param);
      chosen.y.push_back(sqnr_db(energy, plan->plan.point.error));
    }
    f.series.push_back(std::move(chosen));
    if (const auto& w = plan->by_weights_alone; w && std::isfinite(sqnr_db(energy, w->error))) {
      Series alone;
      alone.label = "the plan by the weights' errors alone: " + bits_text(w->bits_per_param) + " bits, " +
                    experiment::sqnr_db_text(sqnr_db(energy, w->error));
      alone.kind = SeriesKind::Points;
      alone.color = palette(2);
      alone.x.push_back(w->bits_per_param);
      alone.y.push_back(sqnr_db(energy, w->error));
      f.series.push_back(std::move(alone));
    }
    f.annotations.push_back(
        {AnnotationKind::VerticalLine, plan->budget, "budget " + bits_text(plan->budget) + " bits", palette(4), true});
  }
  return f;
}

std::vector<Figure> scan_figures(const ScanResult& r, const std::vector<experiment::PlanPoint>& frontier,
                                 const std::optional<experiment::PlanReport>& plan) {
  return {scan_heatmap_figure(r), frontier_figure(r, frontier, plan)};
}

}  // namespace pl::figure
