// Printing and saving a matrix experiment's results, shared by `matmul` and `run`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/experiment/framework_check.h"
#include "core/experiment/matmul.h"
#include "core/experiment/spec/matmul_json.h"
#include "core/export/experiment_export.h"
#include "core/figure/figure.h"
#include "core/util/expected.h"

namespace pl::cli {

// A progress bar on stderr while it lives, when stderr is a terminal and not quiet; erased
// when it goes.
class ProgressBar {
 public:
  explicit ProgressBar(bool quiet);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  std::function<void(double)> callback() const;  // empty when not shown

 private:
  bool shown_;
};

// Runs a setup (loading its files; with its framework, if it names one: framework_check.h's
// run_spec) with a progress line on a terminal (stderr).
Expected<experiment::SpecRun> run_spec_with_progress(const experiment::MatmulSpec& spec, bool quiet);

void print_report(const experiment::MatmulResult& r);

// The framework's answer and, when it raises, each fix's experiment in one line (or JSON).
void print_framework_report(const experiment::FrameworkRun& f, bool json);

// Saving lives in core/export/experiment_export.h (the window saves the same way).
using exporting::save_figures;
using exporting::save_json;
using exporting::save_results;

}  // namespace pl::cli
