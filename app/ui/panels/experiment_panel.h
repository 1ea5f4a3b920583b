// The Experiment panel: the Setup view (setup_view.h: op, sizes, dtypes, accumulation,
// rounding, recipes, data or tensor files, seed, framework, backend) beside the Error view
// (error_view.h: the framework's verdict and fixes, the error split by where it came from, the
// figures). The panel itself runs the setup on a worker thread with progress and cancel -- any
// change re-runs it after a short pause -- hands finished runs to the Error view, and exports
// the setup, results and every figure into a folder (Ctrl+E), off the UI thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "app/ui/panels/panel.h"
#include "app/ui/shell/run_log.h"
#include "app/ui/tasks/background_task.h"
#include "app/ui/tasks/cancellable_run.h"
#include "app/ui/tasks/shared_text.h"
#include "app/ui/views/error_view.h"
#include "app/ui/views/setup_view.h"
#include "core/experiment/framework_check.h"
#include "core/experiment/spec/experiment_file.h"

namespace pl::ui {

class ExperimentPanel final : public Panel {
 public:
  explicit ExperimentPanel(RunLog& log);
  ~ExperimentPanel() override;
  const char* name() const override { return "Experiment"; }
  void draw_content() override;
  bool busy() const override;
  void stop_work() override { worker_.request_cancel(), other_worker_.request_cancel(); }
  // Start state from an experiment file (precision-lab --setup FILE.json).
  Status load_setup(const std::string& path);
  // Start state from an experiment file's contents (a tensor's cast chosen in the Checkpoint
  // panel), run at once.
  Status use_setup(const nlohmann::json& setup);
  // The setup as an experiment file (what the window remembers for next time).
  nlohmann::json setup_json() const;
  // A .npy or .safetensors file dropped on the window: it becomes the tensor field under the
  // mouse, else the input when that is empty, else the weight.
  void drop_tensor(const std::string& path);
  // Input and weight dtypes and the framework chosen elsewhere (the Promotion grid); a matrix op
  // ("matmul", "mm", "bmm", "@") runs as matmul, anything else as linear.
  void use_pair(DType input, DType weight, const std::string& framework, const std::string& op);
  // The accumulation probe's model, with the input dtype it probed (SetupView::use_model).
  void use_model(const std::string& spec, DType input);
  const std::string& status() const { return status_; }  // the line under Run: "computed in ...", an error

 private:
  void draw_setup();     // the Setup view, then run / cancel / export and the status line
  void mark_changed();   // a re-run is due after the debounce pause
  void mark_asked();     // a run the user asked for is due now
  void draw_progress();  // the progress bar, Cancel when `with_cancel`, and a sweep's work estimate
  bool start_run();      // false: a run in flight was asked to stop first (try again next frame)
  void cancel_run();     // stops the run in flight and waits for it: the destructor only
  void collect();
  std::string export_all();

  RunLog& log_;
  SetupView setup_;
  ErrorView results_;  // the Error view: statistics, attribution and figures of the latest runs
  bool dirty_ = true;
  bool asked_ = false;  // the pending run was asked for (Run, a pair or model chosen elsewhere), not an edit's re-run
  bool shown_ = false;
  std::chrono::steady_clock::time_point changed_at_{};
  CancellableRun<experiment::SpecRun> worker_;
  CancellableRun<experiment::ExperimentRun> other_worker_;                 // the MLP and the dot sweep
  std::shared_ptr<SharedText> estimate_ = std::make_shared<SharedText>();  // the sweep's work, from its worker
  std::optional<bool> setup_visible_;  // Ctrl+B; unset: hidden only in presentation mode
  std::string status_;
  BackgroundTask export_;  // declared last: joined first, while the log it writes to lives
};

}  // namespace pl::ui
