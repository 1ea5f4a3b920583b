#include "app/ui/panels/experiment_panel.h"

#include <imgui.h>

#include <cstdio>

#include "app/ui/shell/theme.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/export/experiment_export.h"
#include "core/export/export_dir.h"
#include "core/export/result_folder.h"
#include "core/figure/experiment_figures.h"

namespace pl::ui {
namespace {

using namespace experiment;

constexpr double kDebounceSeconds = 0.35;

}  // namespace

ExperimentPanel::ExperimentPanel(RunLog& log) : log_(log), setup_(log), results_(log) {}

ExperimentPanel::~ExperimentPanel() { cancel_run(); }

// Pending work counts only once the panel is on screen (a hidden panel does not run).
bool ExperimentPanel::busy() const {
  return worker_.running() || other_worker_.running() || (dirty_ && shown_) || export_.running();
}

nlohmann::json ExperimentPanel::setup_json() const { return setup_.json(); }

Status ExperimentPanel::load_setup(const std::string& path) {
  Status loaded = setup_.load(path);
  if (loaded) dirty_ = true;
  return loaded;
}

Status ExperimentPanel::use_setup(const nlohmann::json& setup) {
  Status loaded = setup_.load_json(setup, "the setup");
  if (loaded) mark_asked();
  return loaded;
}

void ExperimentPanel::drop_tensor(const std::string& path) { setup_.drop_tensor(path); }

void ExperimentPanel::use_pair(DType input, DType weight, const std::string& framework, const std::string& op) {
  setup_.use_pair(input, weight, framework, op);
  mark_asked();
}

void ExperimentPanel::use_model(const std::string& spec, DType input) {
  if (!setup_.use_model(spec, input)) return;
  mark_asked();
}

void ExperimentPanel::mark_changed() {
  dirty_ = true;
  asked_ = false;
  changed_at_ = std::chrono::steady_clock::now();
}

void ExperimentPanel::mark_asked() {
  dirty_ = true;
  asked_ = true;
  changed_at_ = {};  // at once
}

void ExperimentPanel::cancel_run() { worker_.cancel(); }

bool ExperimentPanel::start_run() {
  // A run in flight (on either worker) is asked to stop; the new one starts on a later frame,
  // once it has: the frame loop never waits for it.
  if (worker_.running() || other_worker_.running()) {
    worker_.request_cancel(), other_worker_.request_cancel();
    return false;
  }
  if (setup_.mode() != ExperimentMode::Matrix) {
    estimate_->set("");
    return other_worker_.start_when_idle(
        [file = setup_.other_file(), asked = asked_, estimate = estimate_](const std::function<void(double)>& progress,
                                                                           const std::atomic<bool>* cancel) {
          const auto start = std::chrono::steady_clock::now();
          Expected<ExperimentRun> run = run_other_kind(
              file, asked, [&](const std::string& text) { estimate->set(text); }, progress, cancel);
          const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
          if (run) run.value().seconds = took.count();
          return run;
        });
  }
  return worker_.start_when_idle(
      [spec = setup_.spec()](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
        return run_spec(spec, progress, cancel);
      });
}

namespace {

// A one-line account of a run, for the status line and the log.
std::string summary(const SpecRun& run) {
  char buf[160];
  const MatmulConfig& c = run.spec.config;
  std::string what = matmul_shape_text(c) + " " + std::string(name(c.input)) + " x " + std::string(name(c.weight)) +
                     " -> " + std::string(name(c.output));
  if (run.raised()) {
    const auto& f = *run.framework;
    size_t ran = 0;
    for (const auto& x : f.fixes) ran += x.result.has_value();
    return f.engine + ": " + f.call + " raises " + f.as_written.error_type + ": " + f.as_written.message + "; " +
           std::to_string(ran) + " of " + std::to_string(f.fixes.size()) + " fixes run";
  }
  const MatmulResult& r = *run.result;
  std::snprintf(buf, sizeof buf, ": normwise error %.3e, max rel %.3e, %.3f s", r.total.stats.normwise_rel,
                r.total.stats.max_rel, r.seconds.total());
  return (run.framework ? run.framework->engine + ": " : std::string()) + what + buf;
}

// The status line after a run, with how long it took ("computed in 0.412 s"): the same words
// for every kind of run, a matrix product as a roundtrip, a dot sweep or a training run.
std::string computed_text(double seconds) { return printf_text("computed in %.3f s", seconds); }

}  // namespace

void ExperimentPanel::collect() {
  if (auto other = other_worker_.take()) {
    if (!*other) {
      const std::string& why = other->error();
      if (why.starts_with(kNotStarted)) log_.add("experiment", status_ = why);
      else if (why != "cancelled") log_.add("experiment", status_ = "error: " + why);
    } else {
      auto run = std::make_shared<const ExperimentRun>(std::move(*other).value());
      log_.add("experiment", other_kind_summary(*run));
      status_ = computed_text(run->seconds);
      results_.show(std::move(run));
    }
  }
  auto done = worker_.take();
  if (!done) return;
  if (!*done) {
    if (done->error() != "cancelled") {
      status_ = "error: " + done->error();
      log_.add("experiment", status_);
    }
    return;
  }
  auto run = std::make_shared<const SpecRun>(std::move(*done).value());
  setup_.follow_file_shapes(run->spec);  // not a change: no re-run
  log_.add("experiment", summary(*run));
  status_ = run->raised() ? "the call raises: its fixes ran instead"
                          : computed_text(run->result->seconds.total());
  results_.show(std::move(run));
}

std::string ExperimentPanel::export_all() {
  if (export_.running()) return "an export is still being written";
  if (setup_.mode() != ExperimentMode::Matrix) {
    if (!results_.other_run()) return "nothing to export yet";
    auto folder = exporting::new_export_dir();
    if (!folder) return "export failed: " + folder.error();
    export_.start([run = results_.other_run(), dir = *folder, this] {
      auto saved = exporting::fill_export_dir(dir, [&](const std::string& tmp) {
        auto s = exporting::save_json(tmp, "setup.json", run->setup);
        if (s) s = exporting::save_json(tmp, "result.json", run->result);
        if (s) s = exporting::save_figures(figure::experiment_figures(*run), tmp);
        return s;
      });
      const std::string what = saved ? "exported to " + dir + " (setup.json re-runs with precision-lab run)"
                                     : "export failed: " + saved.error();
      log_.add("experiment", what);
      return what;
    });
    return "exporting...";
  }
  if (!results_.matrix_run()) return "nothing to export yet";
  auto folder = exporting::new_export_dir();
  if (!folder) return "export failed: " + folder.error();
  // Dozens of files: written off the UI thread, from a run the panel may replace meanwhile.
  export_.start([run = results_.matrix_run(), dir = *folder, this] {
    auto saved =
        exporting::fill_export_dir(dir, [&](const std::string& tmp) { return exporting::save_spec_run(*run, tmp); });
    const std::string what = saved ? "exported to " + dir + " (setup.json re-runs with precision-lab run)"
                                   : "export failed: " + saved.error();
    log_.add("experiment", what);
    return what;
  });
  return "exporting...";
}

void ExperimentPanel::draw_progress() {
  // (the MLP, dot sweep and cast run on the other worker)
  const double progress = worker_.running() ? worker_.progress() : other_worker_.progress();
  ImGui::ProgressBar(static_cast<float>(progress), {-1, 0}, "computing...");
  if (other_worker_.running())
    if (const std::string work = estimate_->get(); !work.empty()) wrapped_text(work);
}

void ExperimentPanel::draw_setup() {
  if (setup_.draw()) mark_changed();
  ImGui::Separator();
  if (worker_.running() || other_worker_.running()) {
    draw_progress();
    if (ImGui::Button("Cancel (Esc)") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
      worker_.request_cancel(), other_worker_.request_cancel();
  } else {
    if (ImGui::Button("Run (Ctrl+R)") || (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed('R', false))) mark_asked();
  }
  ImGui::SameLine();
  if (ImGui::Button("Export all (Ctrl+E)") || (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed('E', false)))
    status_ = export_all();
  wrapped_text(status_);
}

void ExperimentPanel::draw_content() {
  shown_ = true;
  collect();
  if (setup_.check()) mark_changed();
  if (auto done = export_.take()) status_ = *done;
  // Debounced re-run: a change waits for a short pause; a running experiment is cancelled, and
  // the change stays pending until it has stopped.
  if (dirty_ && setup_.error().empty() &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - changed_at_).count() > kDebounceSeconds &&
      start_run())
    dirty_ = false;
  if (dirty_ && !setup_.error().empty()) dirty_ = false;
  // The setup column: shown, except in presentation mode where the results get the room;
  // Ctrl+B shows or hides it either way.
  if (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed('B', false))
    setup_visible_ = !setup_visible_.value_or(!presentation_mode());
  if (setup_visible_.value_or(!presentation_mode())) {
    ImGui::BeginChild("setup", ImVec2(25 * ImGui::GetFontSize(), 0), true);
    draw_setup();
    mark_more_below();  // (a setup's error under Run, cut at the pane's edge, would read as its end)
    ImGui::EndChild();
    ImGui::SameLine();
  } else {
    // The hidden column says how it comes back: in presentation mode nothing on screen sets a dtype.
    if (ImGui::SmallButton("Setup (Ctrl+B)")) setup_visible_ = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("show the setup column: op, dtypes, rounding, data, backend");
    if (worker_.running() || other_worker_.running() || dirty_) {
      ImGui::SameLine();
      draw_progress();
    } else if (status_.starts_with(kNotStarted)) {
      ImGui::SameLine();
      wrapped_text(status_);  // the setup column, where it shows, is hidden
    }
  }
  if (setup_.place_pending_drops()) mark_changed();  // when the setup column is hidden
  ImGui::BeginChild("results", ImVec2(0, 0), false);
  results_.draw(setup_.mode(), worker_.running() || other_worker_.running());
  ImGui::EndChild();
}

}  // namespace pl::ui
