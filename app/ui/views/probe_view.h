// "How this device adds": the accumulation probes (core/experiment/accumulation_probe.h) of
// the chosen backend's library GEMM for one input dtype, run off the UI thread, shown as a
// table (question, answer, evidence on hover) with the model an experiment can use.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "app/ui/shell/run_log.h"
#include "app/ui/tasks/background_task.h"
#include "core/experiment/accumulation_probe.h"

namespace pl::ui {

class ProbeView {
 public:
  explicit ProbeView(RunLog& log) : log_(log) {}
  // `backend`: where to probe ("cpu", "cuda", "auto").
  void draw(BackendChoice backend);
  // Called with the model the probes read back (its --accumulate spec) and the probed input
  // dtype when "Use in the Experiment panel" is pressed.
  void on_use_model(std::function<void(const std::string& spec, DType input)> f) { use_model_ = std::move(f); }

 private:
  RunLog& log_;  // a line for each probe run (what it found, or why it failed)
  int dtype_index_ = 0;
  bool fast_ = false;
  std::mutex mutex_;  // guards report_ and error_, written by the task
  std::optional<experiment::ProbeReport> report_;
  std::string error_;
  std::function<void(const std::string&, DType)> use_model_;
  BackgroundTask task_;  // declared last: joined first
};

}  // namespace pl::ui
