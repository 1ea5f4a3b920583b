// "How this device adds": the accumulation probes (core/experiment/accumulation_probe.h) of
// the chosen backend's library GEMM for one input dtype, run off the UI thread, shown as a
// table (question, answer, evidence on hover) with the model an experiment can use.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "app/ui/background_task.h"
#include "core/experiment/accumulation_probe.h"

namespace pl::ui {

class ProbeView {
 public:
  // `backend`: where to probe ("cpu", "cuda", "auto").
  void draw(const std::string& backend);

 private:
  int dtype_index_ = 0;
  bool fast_ = false;
  std::mutex mutex_;  // guards report_ and error_, written by the task
  std::optional<experiment::ProbeReport> report_;
  std::string error_;
  BackgroundTask task_;  // declared last: joined first
};

}  // namespace pl::ui
