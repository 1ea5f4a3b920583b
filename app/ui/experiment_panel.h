// The Experiment panel: set up a matrix experiment -- a matrix product, a linear layer, a small
// MLP or a K sweep of dot products -- (shape, dtypes, accumulation model,
// scaling recipes, data, seed, and the framework whose rules apply), run it on a worker thread
// with progress and cancel (any change re-runs it after a short pause), and see the error split
// by where it came from -- the statistics table and the figures core describes, drawn by the
// same cairo code as the exported files. Operands are drawn from a distribution or read from
// .npy/.safetensors files (typed, or dropped on the window). When the framework would raise on
// the dtypes, its exact
// message is shown with every fix run side by side. Export writes the setup, results and every
// figure into a folder.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/ui/background_task.h"
#include "app/ui/backend_picker.h"
#include "app/ui/cancellable_run.h"
#include "app/ui/experiment_kinds.h"
#include "app/ui/error_view.h"
#include "app/ui/panel.h"
#include "app/ui/run_log.h"
#include "core/experiment/framework_check.h"
#include "core/experiment/matmul_json.h"
#include "core/figure/figure.h"

namespace pl::ui {

class ExperimentPanel final : public Panel {
 public:
  explicit ExperimentPanel(RunLog& log);
  ~ExperimentPanel() override;
  const char* name() const override { return "Experiment"; }
  void draw_content() override;
  bool busy() const override;
  // Start state from an experiment file (precision-lab --setup FILE.json). Returns an error text.
  std::string load_setup(const std::string& path);
  // The setup as an experiment file (what the window remembers for next time).
  nlohmann::json setup_json() const;
  // A .npy or .safetensors file dropped on the window: it becomes the tensor field under the
  // mouse, else the input when that is empty, else the weight.
  void drop_tensor(const std::string& path);
  // Input and weight dtypes and the framework chosen elsewhere (the Promotion grid); a matrix op
  // ("matmul", "mm", "bmm", "@") runs as matmul, anything else as linear.
  void use_pair(DType input, DType weight, const std::string& framework, const std::string& op);

 private:
  void draw_setup();
  bool draw_shape_and_op();  // the op and the sizes it takes; true when changed
  void check_setup();        // setup_error_ and, for the MLP and K sweep, other_file_
  bool draw_files();  // the tensor file fields; true when one changed
  void start_run();
  void cancel_run();
  void collect();
  std::string export_all();

  experiment::MatmulSpec spec_;
  char accumulate_[48] = "f32:blas";
  std::string setup_error_;
  std::vector<std::string> pending_drops_;  // dropped tensors not yet placed in a field
  void place_pending_drops();  // the first free of input and weight, in order
  bool dirty_ = true;
  bool shown_ = false;
  std::chrono::steady_clock::time_point changed_at_{};

  CancellableRun<experiment::SpecRun> worker_;
  // The MLP and the K sweep run as experiment files (experiment_kinds.h).
  ExperimentMode mode_ = ExperimentMode::Matrix;
  OtherKindParams other_;
  std::vector<experiment::Accumulation> models_;  // the accumulate field's models (a list for K sweeps)
  nlohmann::json other_file_;
  CancellableRun<experiment::ExperimentRun> other_worker_;

  RunLog& log_;
  std::optional<bool> setup_visible_;  // Ctrl+B; unset: hidden only in presentation mode
  BackendPicker backend_;
  ErrorView results_;  // the Error view: statistics, attribution and figures of the latest runs
  std::string status_;
  BackgroundTask export_;  // declared last: joined first, while the log it writes to lives
};

}  // namespace pl::ui
