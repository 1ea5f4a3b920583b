#include "app/ui/panels/checkpoint_panel.h"
#include "app/ui/widgets/flow_layout.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/ui/shell/layout_audit.h"
#include "app/ui/shell/theme.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/experiment/scan/checkpoint_scan.h"
#include "core/experiment/scan/scan_spec.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/export/export_dir.h"
#include "core/export/result_folder.h"
#include "core/export/scan_export.h"
#include "core/figure/scan_figures.h"
#include "core/io/safetensors.h"
#include "core/util/number_text.h"
#include "core/util/paths.h"
#include "core/util/printable.h"

namespace pl::ui {
namespace {

using namespace experiment;

// A budget to start from: 6 bits per parameter (between fp8 and fp4), within what the plans span.
// (In doubles: clamped in floats, a budget could fall a float's rounding below the cheapest plan,
// which would then refuse it.)
double starting_budget(const std::vector<PlanPoint>& frontier) {
  constexpr double kStart = 6.0;
  if (frontier.empty()) return kStart;
  return std::clamp(kStart, frontier.front().bits_per_param, frontier.back().bits_per_param);
}

// A stored dtype by the name the rest of the window uses ("bfloat16", not the file's "BF16").
std::string stored_name(const std::string& code) {
  const io::StoredDtype* d = io::safetensors_dtype(code);
  return d ? std::string(name(d->dtype)) : code;
}

constexpr int kFixedColumns = 8;  // tensor, layer, role, params, stored, amax/rms, kurtosis, spread

std::string short_candidate(const std::string& c) {
  auto parsed = parse_candidate(c);
  return parsed ? parsed->short_text() : c;
}

}  // namespace

CheckpointPanel::CheckpointPanel(RunLog& log) : log_(log) {
  std::snprintf(candidates_field_, sizeof candidates_field_, "%s", std::string(kDefaultCandidates).c_str());
  figure_view_.set_log(&log, "checkpoint");
}

CheckpointPanel::~CheckpointPanel() { worker_.cancel(); }

void CheckpointPanel::open(const std::string& path, const std::string& activations, const std::string& candidates) {
  std::snprintf(path_field_, sizeof path_field_, "%s", path.c_str());
  if (!candidates.empty()) std::snprintf(candidates_field_, sizeof candidates_field_, "%s", candidates.c_str());
  // (Inputs typed for another checkpoint would not fit this one: the fields hold what is asked now.)
  std::snprintf(activations_field_, sizeof activations_field_, "%s", activations.c_str());
  activation_format_field_[0] = '\0';
  rounding_ = Rounding::NearestEven;  // (as `scan` rounds unless told otherwise)
  seed_ = 0;
  start_scan();
}

void CheckpointPanel::start_scan() {
  scan_asked_ = true;
  try_start();
}

bool CheckpointPanel::try_start() {
  ScanSpec spec;
  spec.checkpoint = path_field_;
  spec.candidates = candidates_field_;
  spec.activations = activations_field_;
  spec.activation_format = activation_format_field_;
  spec.cast.rounding = rounding_;
  spec.cast.seed = seed_;
  std::string refused = spec.checkpoint.empty() ? "name a .safetensors file, a checkpoint's index or its folder" : "";
  if (auto c = parse_candidates(spec.candidates); !c && refused.empty()) refused = c.error();
  if (!spec.activation_format.empty() && refused.empty()) {
    if (auto f = parse_candidate(spec.activation_format); !f) refused = "the inputs' format: " + f.error();
    else if (spec.activations.empty()) refused = "a format for the inputs needs an activations file";
  }
  if (!refused.empty()) {
    error_ = refused;
    error_environment_ = false;
    scan_asked_ = false;
    return true;
  }
  auto progress = std::make_shared<Progress>();
  // The files are opened and checked on the worker (prepare_scan reads the inputs through).
  const bool started = worker_.start_when_idle([spec, progress](const std::function<void(double)>& fraction,
                                                                const std::atomic<bool>* cancel) -> Expected<Opened> {
    auto prepared = prepare_scan(
        spec,
        [&](size_t checked, size_t total) {
          progress->inputs_checked = checked, progress->inputs_total = total;
          fraction(0);
        },
        cancel);
    if (!prepared) return Error{prepared.error()};
    auto scanned = scan_checkpoint(
        prepared->checkpoint, prepared->options,
        [&](const ScanProgress& p) {
          progress->tensors_done = p.tensors_done, progress->tensors_total = p.tensors_total;
          progress->bytes_done = p.bytes_done, progress->bytes_total = p.bytes_total;
          fraction(p.bytes_total ? double(p.bytes_done) / double(p.bytes_total) : 0);
        },
        cancel);
    if (!scanned) return Error{scanned.error(), /*environment=*/true};
    // The first plan with the scan, so that the table's first frame has it (and its order).
    Opened out;
    out.result = std::make_shared<const Scanned>(std::move(scanned).value());
    out.first_plan = plan_for(out.result, {}, std::nullopt);
    return out;
  });
  const std::string path = spec.checkpoint;
  if (!started) return false;  // the scan in flight was asked to stop; this one starts on a later frame
  scan_asked_ = false;
  error_.clear();
  path_ = path;
  result_stale_ = true;
  progress_ = progress;
  started_ = std::chrono::steady_clock::now();
  log_.add("checkpoint", "scanning " + path_);
  return true;
}

std::optional<Error> CheckpointPanel::failure() const {
  if (error_.empty()) return std::nullopt;
  return Error{error_, error_environment_};
}

void CheckpointPanel::collect() {
  auto done = worker_.take();
  if (!done) return;
  if (!*done) {
    error_ = done->error();
    error_environment_ = done->environment_failure();
    log_.add("checkpoint", "scan of " + path_ + ": " + error_);
    return;
  }
  Opened opened = std::move(*done).value();
  result_ = opened.result;
  const ScanResult& r = *result_;
  log_.add("checkpoint", "scanned " + std::to_string(r.tensors.size()) + " tensors of " + r.checkpoint);
  pins_.assign(r.tensors.size(), std::nullopt);
  order_.resize(r.tensors.size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  budget_ = opened.first_plan.budget;
  replan_asked_ = false;  // (a plan asked for the scan before is not this one's)
  use_plan(std::move(opened.first_plan));
}

std::string CheckpointPanel::plan_line() const {
  if (!result_ || !plan_) return {};
  // "highlighted" ties the line to the table's marked cells: below 1920 px the plan column is off
  // the edge.
  char bits[64];
  std::snprintf(bits, sizeof bits, "%.3f", plan_->plan.point.bits_per_param);
  return std::string("plan (highlighted): ")
      .append(bits)
      .append(" bits/param, ")
      .append(by_output(*result_) ? "output SQNR " : "SQNR ")
      .append(sqnr_db_text(total_sqnr_db(*result_, plan_->plan.point.error)))
      .append(plan_->plan.optimal ? "" : " (" + experiment::plan_optimality_text(plan_->plan) + ")");
}

void CheckpointPanel::replan() {
  replan_asked_ = true;
  try_replan();
}

void CheckpointPanel::try_replan() {
  if (!result_) return;
  const ScanResult& r = *result_;
  std::vector<std::string> pins;
  for (size_t i = 0; i < pins_.size(); ++i)
    if (pins_[i]) pins.push_back(r.tensors[i].name + "=" + r.candidates[*pins_[i]]);
  const bool started =
      planner_.start_when_idle([from = result_, pins = std::move(pins), budget = budget_](
                                   const std::function<void(double)>&, const std::atomic<bool>*) -> Expected<Planned> {
        return plan_for(from, pins, budget);
      });
  if (started) replan_asked_ = false;
}

CheckpointPanel::Planned CheckpointPanel::plan_for(std::shared_ptr<const Scanned> from,
                                                   const std::vector<std::string>& pins, std::optional<double> budget) {
  Planned out;
  out.from = std::move(from);
  auto items = plan_items(*out.from, pins);
  if (items) out.frontier = plan_frontier(*items);
  else out.error = items.error();
  out.budget = budget.value_or(starting_budget(out.frontier));
  if (items) {
    if (auto p = plan_report(*out.from, out.budget, pins)) out.plan = *p;
    else out.error = p.error();
  }
  // (Without a plan, a scan's figures still show it: its heat map, an empty frontier.)
  out.figures = figure::scan_figures(*out.from, out.frontier, out.plan);
  return out;
}

void CheckpointPanel::collect_plan() {
  auto done = planner_.take();
  if (!done || !*done) return;  // (a plan has no cancel point: only a failure to allocate ends one early)
  use_plan(std::move(*done).value());
}

void CheckpointPanel::use_plan(Planned p) {
  if (p.from != result_) return;  // worked out for a scan since replaced
  frontier_ = std::move(p.frontier);
  plan_ = std::move(p.plan);
  plan_error_ = std::move(p.error);
  figures_ = std::move(p.figures);
  ++version_;
  resort_ = true;
}

std::string CheckpointPanel::export_plan(const std::string& root) {
  if (export_.running()) return export_status_ = "an export is still being written";
  if (!result_) return export_status_ = "nothing to export yet";
  auto folder = exporting::new_export_dir("checkpoint", root);
  if (!folder) return export_status_ = "export failed: " + folder.error();
  export_.start([r = result_, frontier = frontier_, plan = plan_, dir = *folder, &log = log_] {
    auto saved = exporting::fill_export_dir(
        dir, [&](const std::string& tmp) { return exporting::save_scan(*r, frontier, plan, tmp); });
    const std::string what = saved ? "exported to " + dir +
                                         (plan ? " (result.json, plan.csv; " : " (result.json, no plan; ") +
                                         "scan --merge reads it)"
                                   : "export failed: " + saved.error();
    log.add("checkpoint", what);
    return what;
  });
  return export_status_ = "exporting to " + *folder + "...";
}

// The folder scan --out writes, of the scan and the plan on screen (Ctrl+E).
constexpr const char* kExportLabel = "Export plan (Ctrl+E)";

void CheckpointPanel::draw_controls() {
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float export_width =
      result_ ? ImGui::CalcTextSize(kExportLabel).x + ImGui::GetStyle().FramePadding.x * 2 + spacing : 0;
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("  Scan  ").x - spacing * 2 - export_width);
  const bool entered =
      ImGui::InputTextWithHint("##path", "a .safetensors file, model.safetensors.index.json or a folder", path_field_,
                               sizeof path_field_, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (worker_.running()) {
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
      worker_.request_cancel();
    if (entered) start_scan();  // the one in flight stops first
  } else if (ImGui::Button("Scan") || entered) {
    start_scan();
  }
  if (result_) {
    ImGui::SameLine();
    ImGui::BeginDisabled(export_.running());
    const bool ctrl_e = ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed('E', false);
    if (ImGui::Button(kExportLabel) || (ctrl_e && !export_.running())) export_plan();
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip(
          "result.json, tensors.csv, frontier.csv, plan.csv (when the budget gives a plan) and the figures, as "
          "scan --out writes them, in a new folder under precision-lab-export/");
    if (!export_status_.empty()) wrapped_text_disabled(export_status_);
  }
  // In presentation mode the candidates' line gives the table's rows its room in large type, once
  // there is a table: before a scan the page explains the candidates and has no line to set them.
  if (presentation_mode() && result_) return;
  const float width = ImGui::GetContentRegionAvail().x;
  const float format_width = ImGui::GetFontSize() * 7, inputs_width = width * 0.22f;
  const float rounding_width = ImGui::GetFontSize() * (rounding_ == Rounding::Stochastic ? 11 : 5);
  const float rounding_text = ImGui::CalcTextSize("rounding").x + spacing;
  std::string candidates = candidates_field_;
  const float label = ImGui::CalcTextSize("candidates").x + spacing;
  label_before("candidates");
  if (candidate_editor_.draw(
          "##candidates", candidates,
          width - inputs_width - format_width - rounding_width - rounding_text - 4 * spacing - label) &&
      candidates.size() < sizeof candidates_field_)  // (a longer list would be cut mid-candidate: kept out)
    std::snprintf(candidates_field_, sizeof candidates_field_, "%s", candidates.c_str());
  ImGui::SameLine();
  ImGui::SetNextItemWidth(inputs_width);
  ImGui::InputTextWithHint("##activations", "activations (optional)", activations_field_, sizeof activations_field_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "a safetensors file of the layers' inputs (NAME.input for NAME.weight, as scripts/capture_activations.py "
        "writes): each weight is then scored by its layer's output error ||X q(W)^T - X W^T||, and only the weights "
        "with inputs are scanned; Scan again to apply");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(format_width);
  ImGui::InputTextWithHint("##activation-format", "inputs as", activation_format_field_,
                           sizeof activation_format_field_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "with activations: the inputs in this candidate too, for W8A8-style pairs (int8:per-channel is a scale per "
        "row: per token); empty: the inputs as captured");
  // The elements' rounding, as `scan --rounding` (stochastic with its seed); Scan again to apply.
  ImGui::SameLine();
  label_before("rounding");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
  if (ImGui::BeginCombo("##rounding", rounding_name(rounding_))) {
    for (Rounding r : {Rounding::NearestEven, Rounding::NearestAway, Rounding::TowardZero, Rounding::Up, Rounding::Down,
                       Rounding::Stochastic})
      // (Short, as `scan --rounding` spells it, in the field; what it means in the list.)
      if (ImGui::Selectable((std::string(rounding_name(r)) + ": " + rounding_label(r)).c_str(), r == rounding_))
        rounding_ = r;
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "the float candidates' rounding: %s (integer candidates: to nearest, ties to even); Scan "
        "again to apply",
        rounding_label(rounding_));
  if (rounding_ == Rounding::Stochastic) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6 - spacing);
    ImGui::InputScalar("##seed", ImGuiDataType_U64, &seed_);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "the stochastic stream's seed: element i of each tensor draws draw i, as the cast experiment does");
  }
}

void CheckpointPanel::draw_progress() {
  const Progress& p = *progress_;
  const double done = p.bytes_total ? double(p.bytes_done) / double(p.bytes_total) : 0;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  char text[160];
  if (p.tensors_total == 0 && p.inputs_total > 0) {  // reading the layers' inputs through, before the scan
    std::snprintf(text, sizeof text, "checking the layers' inputs: %zu of %zu", p.inputs_checked.load(),
                  p.inputs_total.load());
    ImGui::ProgressBar(float(p.inputs_checked) / float(p.inputs_total), {-1, 0}, text);
    return;
  }
  std::snprintf(
      text, sizeof text, "%zu of %zu tensors, %.2f of %.2f GB%s", p.tensors_done.load(), p.tensors_total.load(),
      double(p.bytes_done) / 1e9, double(p.bytes_total) / 1e9,
      done > 0.01 && seconds > 1 ? (", " + std::to_string(int(seconds * (1 - done) / done)) + " s left").c_str() : "");
  ImGui::ProgressBar(static_cast<float>(done), {-1, 0}, text);
}

void CheckpointPanel::sort_rows() {
  const ScanResult& r = *result_;
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
      specs && (specs->SpecsDirty || resort_) && specs->SpecsCount > 0) {
    const int column = specs->Specs[0].ColumnIndex;
    const bool up = specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending;
    auto key = [&](size_t i) -> double {
      const TensorScan& t = r.tensors[i];
      switch (column) {
        case 1: return t.place.layer ? double(*t.place.layer) : -1;
        case 3: return double(t.params);
        case 5: return t.stats.amax_over_rms;
        case 6: return t.stats.kurtosis;
        case 7: return t.stats.channel_spread;
        default:
          if (column >= kFixedColumns && column < kFixedColumns + int(r.candidates.size()))
            return scored_sqnr_db(r, t.scores[size_t(column - kFixedColumns)]);
          if (plan_ && column == kFixedColumns + int(r.candidates.size())) return double(plan_->plan.choice[i]);
          return 0;
      }
    };
    auto text = [&](size_t i) -> std::string {
      const TensorScan& t = r.tensors[i];
      return column == 2 ? t.place.role : column == 4 ? stored_name(t.stored) : t.name;
    };
    const bool textual = column == 0 || column == 2 || column == 4;
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      if (textual) return up ? text(a) < text(b) : text(b) < text(a);
      return up ? key(a) < key(b) : key(b) < key(a);
    });
    specs->SpecsDirty = false;
    resort_ = false;
  }
}

void CheckpointPanel::draw_table() {
  const ScanResult& r = *result_;
  const int columns = kFixedColumns + int(r.candidates.size()) + 1;
  const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Hideable;
  // As tall as its rows (the figures get the rest), scrolling when the pane is shorter; the pane
  // takes up to its share of the height for them.
  const float rows = float(r.tensors.size() + 1), row = table_row_height();
  split_.reserve(rows * row + ImGui::GetStyle().ScrollbarSize);
  if (!ImGui::BeginTable("tensors", columns, flags, {-1, table_height(rows, row)})) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  // The candidates' columns hold SQNRs, said in the first header: their own hold the candidates'
  // names, and the tensors' names make this column wide enough for it.
  ImGui::TableSetupColumn(by_output(r) ? "tensor (candidates: output SQNR dB)" : "tensor (candidates: SQNR dB)",
                          ImGuiTableColumnFlags_DefaultSort);
  for (const char* c : {"layer", "role", "params", "stored", "amax/rms", "kurtosis", "ch. spread"})
    ImGui::TableSetupColumn(c);
  std::vector<std::string> shorts;  // the candidates' short names, for the headers and the plan column
  for (const std::string& c : r.candidates) shorts.push_back(short_candidate(c));
  for (const std::string& c : shorts) ImGui::TableSetupColumn(c.c_str());
  ImGui::TableSetupColumn("plan");
  // Presentation mode's large type hides what the tensor's name already says (layer, role) and
  // its statistics, so that the candidates' SQNRs are on the screen at 1280 px; leaving it shows
  // them again. A right-click on a header shows or hides any column.
  // (A table with another number of columns, a scan with other candidates, starts afresh.)
  const bool presenting = presentation_mode();
  if (presenting != columns_for_presentation_ || columns != columns_set_) {
    for (int c : {1, 2, 5, 6, 7}) ImGui::TableSetColumnEnabled(c, !presenting);
    columns_for_presentation_ = presenting;
    columns_set_ = columns;
  }
  table_headers([&](int c) -> std::string {
    if (c >= kFixedColumns && c < columns - 1)
      return printf_text(
          "%s in dB of %s: %s, higher is better; click a cell to open that cast in the Experiment panel, "
          "right-click to pin it in the plan",
          by_output(r) ? "the layer's output SQNR" : "SQNR", r.candidates[size_t(c - kFixedColumns)].c_str(),
          by_output(r) ? "20 log10(||X W^T|| / ||Y_q - X W^T||) on the captured inputs X"
                       : "20 log10(||x|| / ||q(x) - x||)");
    if (c == 5) return "the largest |x| over the root mean square: how far the largest stands out";
    if (c == 6) return "m4 / m2^2 about the mean (3 for a normal distribution)";
    if (c == 7) return "the largest row (output channel) amax over the median row amax";
    if (c == columns - 1) return "the candidate the plan chose (a pinned one is marked * in its SQNR cell)";
    return "right-click a header to show or hide columns";
  });
  sort_rows();
  // Only the rows in view are drawn: a large model's thousands of tensors times its candidates
  // are tens of thousands of cells, each a formatted number, every frame.
  ImGuiListClipper clipper;
  clipper.Begin(int(order_.size()));
  bool first = true;
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      draw_row(order_[size_t(i)], shorts);
      if (first)
        layout_audit::note_rows_in_view("the Checkpoint panel's tensor table",
                                        float(std::min<size_t>(2, r.tensors.size())), row);
      first = false;
    }
  mark_more_right();  // (the plan's column, last, is off the edge below 1920 px)
  // Rows below the table's edge: in presentation mode at 1600x1000 its last row would otherwise be
  // cut through with nothing to say so.
  mark_more_below();
  ImGui::EndTable();
}

void CheckpointPanel::draw_row(size_t i, const std::vector<std::string>& shorts) {
  const ScanResult& r = *result_;
  const TensorScan& t = r.tensors[i];
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(t.name.c_str());
  ImGui::TableNextColumn();
  if (t.place.layer) ImGui::Text("%ld", *t.place.layer);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(t.place.role.c_str());
  ImGui::TableNextColumn();
  ImGui::Text("%zu", t.params);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(stored_name(t.stored).c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("stored in the file as %s", t.stored.c_str());
  for (double v : {t.stats.amax_over_rms, t.stats.kurtosis, t.stats.channel_spread}) {
    ImGui::TableNextColumn();
    if (has_finite_elements(t)) ImGui::Text("%.3g", v);
    else ImGui::TextUnformatted("-");  // (no finite element: no statistics)
  }
  for (size_t c = 0; c < t.scores.size(); ++c) {
    ImGui::TableNextColumn();
    ImGui::PushID(int(i * t.scores.size() + c));
    const bool chosen = plan_ && plan_->plan.choice[i] == c;
    const std::string label = (has_finite_elements(t) ? sqnr_text(scored_sqnr_db(r, t.scores[c])) : "-") +
                              (pins_[i] == c ? " *" : "");
    if (ImGui::Selectable(label.c_str(), chosen) && open_cast_) {
      RoundtripSpec spec;
      auto parsed = parse_candidate(r.candidates[c]);
      if (parsed) {
        spec.config.dtype = parsed->dtype;
        spec.config.scaling = parsed->scaling;
        spec.input_file = t.file + ":" + t.name;
        open_cast_(to_json(spec));
        log_.add("checkpoint", "opened " + t.name + " in " + r.candidates[c] + " in the Experiment panel");
      }
    }
    if (ImGui::BeginPopupContextItem("pin")) {
      if (ImGui::MenuItem(pins_[i] == c ? "Unpin" : "Pin in the plan")) {
        pins_[i] = pins_[i] == c ? std::nullopt : std::optional<size_t>(c);
        replan();
      }
      ImGui::EndPopup();
    }
    ImGui::PopID();
  }
  ImGui::TableNextColumn();
  if (plan_) ImGui::TextUnformatted(shorts[plan_->plan.choice[i]].c_str());
}

void CheckpointPanel::draw_guide() {
  wrapped_text(
      "Open a model's safetensors (type the path of its .safetensors file, its index or its folder above, or drop "
      "one of them on this panel) to see every weight under every candidate format, and a mixed-precision plan "
      "within a bit budget. A scan shows:");
  for (const char* line :
       {"a table: each weight's statistics and its SQNR in dB under each candidate, sortable by any column; click a "
        "cell to open that cast in the Experiment panel, right-click it to pin it in the plan",
        "a heat map of the SQNR, layers by candidates",
        "the plan: one candidate per tensor within the budget the slider sets, and the frontier of error against bits "
        "per parameter"}) {
    ImGui::Bullet();
    wrapped_text(line);
  }
  wrapped_text(
      "A candidate is DTYPE[:RECIPE[:BLOCK]] (int8:per-channel, float8_e4m3fn:mx, int8:group:32). An activations "
      "file of the layers' inputs (scripts/capture_activations.py writes one from a PyTorch model) scores each layer "
      "by its output error instead. From the command line: precision-lab scan PATH --budget 4.5 --out DIR.");
  // Something to look at before one has a model at hand: scenario 29's checkpoint.
  const std::string sample =
      assets_dir().empty() ? "" : assets_dir() + "/scenarios/checkpoints/outlier-channels.safetensors";
  if (!sample.empty() && std::filesystem::exists(sample) &&
      ImGui::Button("Scan a sample: a small synthetic model with outlier channels"))
    open(sample, "", "");
}

void CheckpointPanel::drop_stale_result() {
  // (A plan asked for the old result is not this one's to make.)
  if (result_stale_) result_.reset(), result_stale_ = false, replan_asked_ = false;
}

void CheckpointPanel::keep_up() {
  drop_stale_result();
  collect();
  if (scan_asked_) try_start();
  collect_plan();
  if (replan_asked_) try_replan();
  if (auto said = export_.take()) export_status_ = *said;  // (the panel's line: "exported to ...")
  drop_stale_result();
}

void CheckpointPanel::draw_content() {
  keep_up();
  if (!result_) {
    // Before a scan, no split: the controls and a guide to what a scan shows take the pane (a bar
    // over an empty lower half would read as something missing).
    ImGui::BeginChild("checkpoint-start");
    draw_controls();
    if (worker_.running()) draw_progress();
    if (!error_.empty()) wrapped_text(error_);
    if (!worker_.running() && error_.empty()) draw_guide();
    mark_more_below();
    ImGui::EndChild();
    return;
  }
  // The controls and a few of the table's rows at any size. In presentation mode the controls'
  // large type would take all of 9 lines, leaving the table one row at 1280x800: the top keeps 10
  // there, and the figure 13.
  const bool presenting = presentation_mode();
  split_.begin_top("checkpoint", presenting ? 10 : 9, presenting ? 13 : 14);
  draw_controls();
  if (worker_.running()) draw_progress();
  if (!error_.empty()) wrapped_text(error_);
  const ScanResult& r = *result_;
  const std::string left_out = r.skipped.empty() ? "none left out" : skipped_summary(r.skipped) + " left out";
  ImGui::Text("%zu tensor%s scanned (%s), %s%s%s", r.tensors.size(), r.tensors.size() == 1 ? "" : "s",
              bytes_text(r.bytes).c_str(), left_out.c_str(), r.rounding == "rne" ? "" : "; rounded ",
              r.rounding == "rne" ? "" : r.rounding.c_str());
  if (const std::string nonfinite = nonfinite_text(r); !nonfinite.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1));
    wrapped_text(nonfinite);
    ImGui::PopStyleColor();
  }
  if (by_output(r)) {
    ImGui::SameLine();
    ImGui::TextDisabled("scored by the layers' outputs%s", r.activation_format.empty() ? "" : ", inputs quantised");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("inputs from %s%s", r.activations.c_str(),
                        r.activation_format.empty() ? "" : (", in " + r.activation_format).c_str());
  }
  if (!frontier_.empty()) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    const double lo = frontier_.front().bits_per_param, hi = frontier_.back().bits_per_param;
    if (ImGui::SliderScalar("budget (bits per parameter)", ImGuiDataType_Double, &budget_, &lo, &hi, "%.2f")) replan();
    ImGui::SameLine();
    if (plan_) {
      ImGui::TextUnformatted(plan_line().c_str());
      if (const std::string dominant = dominant_energy_text(r); !dominant.empty()) {
        // Named: "(pooled: mostly one tensor's)" would leave the reader to find which.
        const std::string pooled = "(SQNR pooled: " + dominant + ")";
        same_line_if_fits(ImGui::CalcTextSize(pooled.c_str()).x);  // (else below, as at 1280x800 in presentation mode)
        ImGui::TextColored({1.0f, 0.75f, 0.3f, 1}, "%s", pooled.c_str());
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s: the plan's SQNR is its total error energy against the scanned tensors' total "
                            "energy, so it is mostly that tensor's. Each tensor's own SQNR is in the table.",
                            dominant.c_str());
      }
      // The pooled SQNR can hide the tensors the plan leaves worst (the synthetic checkpoint's
      // 6-bit plan pools to 54.7 dB with half its sixteen tensors at 20.5 dB or less).
      if (const std::string spread = plan_tensors_text(r, plan_->plan.choice); !spread.empty()) {
        const std::string by = "(by tensor: " + spread + ")";
        same_line_if_fits(ImGui::CalcTextSize(by.c_str()).x);
        ImGui::TextDisabled("%s", by.c_str());
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip(
              "each tensor's SQNR in the candidate the plan gives it: the plan's SQNR pools them, "
              "its total error energy against the total energy");
      }
      // (Not in presentation mode: its line would leave the table one row at 1280x800, and the
      // figure no room to give.)
      if (const auto& w = plan_->by_weights_alone; w && !presentation_mode()) {
        const std::string alone = "(by the weights alone: " + sqnr_db_text(total_sqnr_db(r, w->error)) + ")";
        same_line_if_fits(ImGui::CalcTextSize(alone.c_str()).x);
        ImGui::TextDisabled("%s", alone.c_str());
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("the output SQNR of the plan the weights' own errors would choose within the same budget");
      }
    } else {
      ImGui::TextUnformatted(plan_error_.c_str());
    }
  } else if (!plan_error_.empty()) {
    ImGui::TextDisabled("%s", plan_error_.c_str());  // (no frontier: no slider to put it beside)
  }
  draw_table();
  split_.begin_bottom();
  figure_view_.draw("checkpoint figures", figures_, std::to_string(version_));
  split_.end();
}

}  // namespace pl::ui
