#include "app/ui/views/experiment_kinds.h"

#include <imgui.h>

#include <cctype>
#include <cstdio>
#include <sstream>

#include "app/ui/widgets/split_view.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/experiment/spec/train_json.h"
#include "core/util/join.h"
#include "core/util/number_text.h"

namespace pl::ui {

using namespace experiment;

namespace {

// Each kind beside the matrix product: its file from the panel's setup, and back.
using Params = OtherKindParams;

Expected<nlohmann::json> mlp_file(const MatmulSpec& s, const std::vector<Accumulation>&, const Params& p) {
  MlpConfig m;
  m.layer = s.config;
  m.layer.op = MatmulOp::Linear;
  m.layer.n = m.layer.k;  // a square network: width in, width out
  m.layers = p.layers;
  m.activation = p.activation;
  if (auto st = check(m); !st) return Error{st.error()};
  return to_json(m);
}

Expected<nlohmann::json> dot_file(const MatmulSpec& s, const std::vector<Accumulation>& models, const Params& p) {
  const MatmulConfig& c = s.config;
  DotSweepConfig d;
  auto lengths = experiment::parse_lengths(p.lengths);
  if (!lengths) return Error{lengths.error()};
  d.lengths = *lengths;
  d.a_dtype = c.input;
  d.b_dtype = c.weight;
  d.models = models;
  d.trials = p.trials;
  d.seed = c.seed;
  d.backend = c.backend;
  if (auto st = check(d); !st) return Error{st.error()};
  return to_json(d);
}

Expected<nlohmann::json> roundtrip_file(const MatmulSpec& s, const std::vector<Accumulation>&, const Params&) {
  const MatmulConfig& c = s.config;
  RoundtripSpec spec;
  RoundtripConfig& r = spec.config;
  r.rows = c.m;
  r.cols = c.k;
  r.dtype = c.input;
  r.scaling = c.input_scaling;
  r.cast = c.cast;
  r.data = c.input_data;
  r.seed = c.seed;
  r.backend = c.backend;
  spec.input_file = s.files.input;
  if (auto st = check(r); !st) return Error{st.error()};
  return to_json(spec);
}

Expected<nlohmann::json> train_file(const MatmulSpec& s, const std::vector<Accumulation>&, const Params& p) {
  TrainConfig t;
  auto models = parse_train_models(p.train_models);
  if (!models) return Error{"models: " + models.error()};
  t.models = std::move(models).value();
  t.features = p.features;
  t.samples = p.samples;
  t.steps = static_cast<size_t>(std::max(p.steps, 0));
  t.learning_rate = p.learning_rate;
  t.noise = p.noise;
  t.seed = s.config.seed;
  if (auto st = check(t); !st) return Error{st.error()};
  return to_json(t);
}

Status read_mlp(const nlohmann::json& j, MatmulSpec* s, std::vector<Accumulation>* models, Params* p) {
  auto m = mlp_config_from_json(j);
  if (!m) return Error{m.error()};
  s->config = m->layer;
  *models = {m->layer.accumulate};
  p->layers = m->layers;
  p->activation = m->activation;
  return {};
}

Status read_dot(const nlohmann::json& j, MatmulSpec* s, std::vector<Accumulation>* models, Params* p) {
  auto d = dot_config_from_json(j);
  if (!d) return Error{d.error()};
  MatmulConfig* c = &s->config;
  c->input = d->a_dtype;
  c->weight = d->b_dtype;
  c->seed = d->seed;
  c->backend = d->backend;
  *models = d->models;
  if (!models->empty()) c->accumulate = models->front();
  p->lengths = join(d->lengths, ",", [](size_t k) { return std::to_string(k); });
  p->trials = d->trials;
  return {};
}

Status read_roundtrip(const nlohmann::json& j, MatmulSpec* s, std::vector<Accumulation>*, Params*) {
  auto spec = roundtrip_spec_from_json(j);
  if (!spec) return Error{spec.error()};
  const RoundtripConfig& r = spec->config;
  MatmulConfig* c = &s->config;
  s->files.input = spec->input_file;
  c->m = r.rows;
  c->k = r.cols;
  c->input = r.dtype;
  c->input_scaling = r.scaling;
  c->cast = r.cast;
  c->input_data = r.data;
  c->seed = r.seed;
  c->backend = r.backend;
  return {};
}

Status read_train(const nlohmann::json& j, MatmulSpec* s, std::vector<Accumulation>*, Params* p) {
  auto t = train_config_from_json(j);
  if (!t) return Error{t.error()};
  p->train_models = join(t->models, ",", train_model_name);
  p->features = t->features;
  p->samples = t->samples;
  p->steps = static_cast<int>(t->steps);
  p->learning_rate = t->learning_rate;
  p->noise = t->noise;
  s->config.seed = t->seed;
  return {};
}

struct OtherKind {
  ExperimentMode mode;
  std::string_view file_kind;  // the experiment file's "experiment"
  Expected<nlohmann::json> (*file)(const MatmulSpec&, const std::vector<Accumulation>&, const Params&);
  Status (*read)(const nlohmann::json&, MatmulSpec*, std::vector<Accumulation>*, Params*);
};

constexpr OtherKind kOtherKinds[] = {
    {ExperimentMode::Mlp, "mlp", mlp_file, read_mlp},
    {ExperimentMode::DotSweep, "dot", dot_file, read_dot},
    {ExperimentMode::Roundtrip, "roundtrip", roundtrip_file, read_roundtrip},
    {ExperimentMode::Train, "train", train_file, read_train},
};

}  // namespace

std::span<const PanelKind> panel_kinds() {
  static constexpr PanelKind kKinds[] = {
      {"linear", ExperimentMode::Matrix, MatmulOp::Linear, "linear: y = x W^T (+ b)"},
      {"matmul", ExperimentMode::Matrix, MatmulOp::Matmul, "matmul: C = A B"},
      {"mlp", ExperimentMode::Mlp, MatmulOp::Linear, "mlp: layers of linear + activation, the error through the depth"},
      {"dot", ExperimentMode::DotSweep, MatmulOp::Linear,
       "dot: dot products of growing length K against each model's bounds (a dot sweep)"},
      {"roundtrip", ExperimentMode::Roundtrip, MatmulOp::Linear,
       "roundtrip: an array through the input dtype and its scaling recipe and back"},
      {"train", ExperimentMode::Train, MatmulOp::Linear,
       "train: a linear regression fitted by gradient descent in each format's own arithmetic"},
  };
  return kKinds;
}

std::string panel_kind_names() {
  return join(panel_kinds(), ", ", [](const PanelKind& k) { return std::string(k.name); });
}

Expected<nlohmann::json> other_kind_file(ExperimentMode mode, const MatmulSpec& s,
                                         const std::vector<Accumulation>& models, const OtherKindParams& p) {
  for (const OtherKind& k : kOtherKinds)
    if (k.mode == mode) return k.file(s, models, p);
  return Error{"the matrix product runs as its spec, not as another kind's file"};
}

Expected<ExperimentMode> read_other_kind(const nlohmann::json& j, MatmulSpec* s, std::vector<Accumulation>* models,
                                         OtherKindParams* p) {
  const std::string kind = experiment_kind(j);
  for (const OtherKind& k : kOtherKinds) {
    if (k.file_kind != kind) continue;
    if (auto st = k.read(j, s, models, p); !st) return Error{st.error()};
    return k.mode;
  }
  return Error{"the Experiment panel opens " + panel_kind_names() + " files, not '" + kind +
               "' (the Scenarios panel shows every kind; `precision-lab run FILE` runs it)"};
}

Expected<ExperimentRun> run_other_kind(const nlohmann::json& file, bool asked,
                                       const std::function<void(const std::string&)>& on_estimate,
                                       const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
  if (const auto w = estimate_file_work(file)) {
    if (on_estimate) on_estimate(work_text(*w));
    if (w->seconds > kInteractiveSeconds && !asked)
      return Error{std::string(kNotStarted) + "this sweep is " + work_text(*w) +
                   "; press Run (Ctrl+R) to start it anyway, or choose fewer trials or shorter lengths"};
  }
  return run_experiment_file(file, progress, cancel);
}

void draw_mlp_table(const MlpResult& r) {
  wrapped_text(printf_text("products: %s   on: %s", r.product_method.c_str(), r.product_backend.c_str()));
  if (!r.backend_note.empty()) ImGui::TextColored({1.0f, 0.75f, 0.3f, 1}, "%s", r.backend_note.c_str());
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_ScrollY;
  const float rows = float(std::min<size_t>(r.layers.size(), 8) + 1);
  if (!ImGui::BeginTable("layers", 7, flags, ImVec2(0, rows * ImGui::GetFrameHeightWithSpacing()))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* h :
       {"layer", "network error", "own error", "own arithmetic", "mean bits", "reference RMS", "NaN/Inf"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const auto& l : r.layers) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", l.layer);
    // Nothing compared (every output NaN or Inf): no error to show, rather than 0.
    for (const ErrorStats* s : {&l.network, &l.own, &l.own_arithmetic}) {
      ImGui::TableNextColumn();
      if (s->count == 0) ImGui::TextUnformatted("-");
      else ImGui::Text("%.3e", s->normwise_rel);
    }
    ImGui::TableNextColumn();
    if (l.network.count == 0) ImGui::TextUnformatted("-");
    else ImGui::Text("%.2f", l.network.mean_bits);
    ImGui::TableNextColumn();
    ImGui::Text("%.3e", l.reference_rms);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(not_finite_text(l.network).c_str());
  }
  ImGui::EndTable();
  wrapped_text_disabled(
      "normwise relative errors; network: against the float64 network; own: the layer against its exact product "
      "(its inputs as they came); own arithmetic: that part of it from the accumulation alone (the inputs as "
      "rounded); mean bits: bits of agreement with the float64 network; reference RMS: the size of the float64 "
      "network's activations (do they vanish or grow?)");
}

void draw_sweep_table(const std::vector<DotSweepRow>& rows) {
  // Columns as wide as their text needs, in proportion (equal shares would cut "f16 chunked(128)
  // -> f32 rne" at 1280 px while K's column stands mostly empty).
  // Up to 8 rows, as tall as they are; more scroll, in 8 rows' height. (A frame's height a row
  // would leave an empty row's band under 6 rows: a row of text is shorter than a frame.)
  const bool scrolls = rows.size() > 8;
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp |
                                (scrolls ? ImGuiTableFlags_ScrollY : 0);
  const float row = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
  if (!ImGui::BeginTable("sweep", 7, flags, ImVec2(0, scrolls ? 9 * row + 2 : 0))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  // (gamma_K and sqrt(K) u are the bound and the estimate of the sums that round at each
  // addition -- sequential, the BLAS order, float64 -- only: a pairwise sum's are its own.)
  for (const char* h :
       {"K", "accumulation", "max |e| / sum|ab|", "worst-case bound", "estimate", "mean bits", "NaN/Inf"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const auto& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%zu", r.length);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(describe(r.model).c_str());
    ImGui::TableNextColumn();
    const bool none = r.stats.count == 0;  // every sum NaN or Inf: no error to show, rather than 0
    if (none) ImGui::TextUnformatted("-");
    else ImGui::Text("%.3e", r.max_scaled);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(gamma_text(r.bounds.deterministic).c_str());
    ImGui::TableNextColumn();
    if (estimate_is_the_bound(r.bounds)) {  // (a Kahan sum's, as the dot command's table says it)
      ImGui::TextUnformatted("= bound");
      if (ImGui::IsItemHovered()) {
        std::string why(estimate_is_the_bound_text());
        why[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(why[0])));  // (a note's start)
        ImGui::SetTooltip("%s.", why.c_str());
      }
    } else {
      ImGui::TextUnformatted(bound_value_text(r.bounds.probabilistic).c_str());
    }
    ImGui::TableNextColumn();
    if (none) ImGui::TextUnformatted("-");
    else ImGui::Text("%.2f", r.stats.mean_bits);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(not_finite_text(r.stats).c_str());
  }
  if (scrolls) mark_more_below();  // (else 12 rows would show 8, ending cleanly, without a word)
  ImGui::EndTable();
  for (const std::string& note : unreferenced_notes(rows)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1));
    wrapped_text("note: " + note);
    ImGui::PopStyleColor();
  }
  for (const auto& [what, note] : where_ran(rows)) {
    wrapped_text(what);
    if (note.empty()) continue;
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1));
    wrapped_text(printf_text("note: %s", note.c_str()));
    ImGui::PopStyleColor();
  }
}

void draw_cast_table(const RoundtripResult& r) {
  const ErrorStats& s = r.stats;
  wrapped_text(printf_text("%s, %s, %s: %zu x %zu values; elements rounded on %s",
                           std::string(name(r.config.dtype)).c_str(), scaling_spec(r.config.scaling).c_str(),
                           rounding_name(r.config.cast.rounding), r.config.rows, r.config.cols, r.ran_on.c_str()));
  if (!r.backend_note.empty()) ImGui::TextColored({1.0f, 0.75f, 0.3f, 1}, "note: %s", r.backend_note.c_str());
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame;
  if (!ImGui::BeginTable("cast", 8, flags)) return;
  for (const char* h : {"max |e|", "mean |e|", "max rel", "mean rel", "normwise", "SQNR dB", "out of range", "to zero"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  ImGui::TableNextRow();
  for (double v : {s.max_abs, s.mean_abs, s.max_rel, s.mean_rel, s.normwise_rel}) {
    ImGui::TableNextColumn();
    ImGui::Text("%.3e", v);
  }
  ImGui::TableNextColumn();
  ImGui::Text("%.1f", s.sqnr_db);
  ImGui::TableNextColumn();
  // Where they went is said under the table: in the cell it would be cut mid-word at 1920x1080 in
  // presentation mode and below ("82 (to the larg").
  ImGui::Text("%zu", r.saturated);
  ImGui::TableNextColumn();
  ImGui::Text("%zu", r.flushed);
  ImGui::EndTable();
  if (s.nan || s.inf) ImGui::TextColored({1.0f, 0.45f, 0.4f, 1}, "outright: %zu NaN, %zu Inf", s.nan, s.inf);
  // (Broken between words only: ImGui's own wrapping would cut "floor 2." from "225...e-308".)
  wrapped_text_disabled(printf_text(
      "the dequantised values against the float64 originals; out of range: %s; relative errors with the floor %s",
      r.out_of_range.c_str(), leading_digits_text(s.rel_floor, 4).c_str()));
}

void draw_train_table(const TrainResult& r) {
  const TrainConfig& c = r.config;
  wrapped_text(
      printf_text("%zu samples x %zu features, %zu steps at learning rate %g, noise %g; best loss %.4g "
                  "(float64 least squares)",
                  c.samples, c.features, c.steps, c.learning_rate, c.noise, r.best_loss));
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame;
  if (!ImGui::BeginTable("train", 5, flags)) return;
  for (const char* h : {"model", "final loss", "final / best", "updates lost, last step", "learning stopped"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const TrainRow& row : r.rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(train_model_name(row.model).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(final_loss_text(row).c_str());
    ImGui::TableNextColumn();
    if (r.best_loss > 0 && std::isfinite(row.final_loss)) ImGui::Text("%.3g", row.final_loss / r.best_loss);
    else ImGui::TextUnformatted("-");
    ImGui::TableNextColumn();
    if (row.lost_updates.empty()) ImGui::TextUnformatted("-");
    else ImGui::Text("%zu of %zu", row.lost_updates.back(), c.features);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(stall_text(row, r.best_loss).c_str());
  }
  ImGui::EndTable();
  wrapped_text_disabled(
      "loss: mean squared residual of the stored weights; an update is lost when w - update rounds back to w "
      "(roughly: when it is under half the spacing of the values next to w)");
}

std::string other_kind_summary(const ExperimentRun& run) {
  char buf[200];
  if (run.roundtrip) {
    const auto& r = *run.roundtrip;
    std::snprintf(buf, sizeof buf,
                  "cast %zu x %zu through %s (%s, %s): normwise %.3e, SQNR %.1f dB, out of range %zu, rounded to zero %zu",
                  r.config.rows, r.config.cols, std::string(name(r.config.dtype)).c_str(),
                  scaling_spec(r.config.scaling).c_str(), rounding_name(r.config.cast.rounding), r.stats.normwise_rel,
                  r.stats.sqnr_db, r.saturated, r.flushed);
    return std::string(buf) + ", on " + r.ran_on + (r.backend_note.empty() ? "" : " (" + r.backend_note + ")");
  }
  if (run.mlp) {
    const auto& r = *run.mlp;
    const auto& c = r.config.layer;
    std::snprintf(buf, sizeof buf,
                  "mlp %d layers, width %zu, batch %zu, %s x %s: last layer's network error %.3e (%.3f s)",
                  r.config.layers, c.k, c.m, std::string(name(c.input)).c_str(), std::string(name(c.weight)).c_str(),
                  r.layers.empty() ? 0.0 : r.layers.back().network.normwise_rel, r.seconds);
    return buf;
  }
  if (run.dot_config && !run.dot_rows.empty()) {
    const auto& last = run.dot_rows.back();
    std::snprintf(buf, sizeof buf,
                  "dot sweep %s x %s, %zu rows: at K = %zu (%s) max |e|/sum|ab| %.3e against %s %s",
                  std::string(name(run.dot_config->a_dtype)).c_str(),
                  std::string(name(run.dot_config->b_dtype)).c_str(), run.dot_rows.size(), last.length,
                  describe(last.model).c_str(), last.max_scaled, bound_names(last.model.kind).worst.data(),
                  gamma_text(last.bounds.deterministic).c_str());
    // Where that row ran, and why not on the device asked for.
    return std::string(buf) + ", on " + last.ran_on + (last.note.empty() ? "" : " (" + last.note + ")");
  }
  if (run.train) {
    const auto& r = *run.train;
    std::string out = "train " + std::to_string(r.config.steps) + " steps:";
    for (const TrainRow& row : r.rows) {
      if (diverged_at(row)) {
        out.append(" ").append(train_model_name(row.model)).append(" ");
        out.append(stall_text(row, r.best_loss)).append(";");
        continue;
      }
      std::snprintf(buf, sizeof buf, " %s %.3g x best", train_model_name(row.model).c_str(),
                    r.best_loss > 0 ? row.final_loss / r.best_loss : 0.0);
      out += buf;
      if (row.stalled_at) out.append(", ").append(stall_text(row, r.best_loss));
      out += ";";
    }
    out.pop_back();
    return out;
  }
  return run.kind + " ran";
}

}  // namespace pl::ui
