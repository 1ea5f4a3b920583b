// The Error view, the results side of the Experiment panel: for a matrix run, the framework's
// verdict (and when the call raises, its fixes in a table to choose from), the statistics of
// the error split by where it came from, which part of it the figures draw, and the figures
// (drawn from core's descriptions, answering the mouse); for an MLP or a dot sweep, its table and
// figures. It shows the runs the panel hands it and owns only how they are shown.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/ui/shell/run_log.h"
#include "app/ui/views/experiment_kinds.h"
#include "app/ui/views/figure_view.h"
#include "app/ui/widgets/split_view.h"
#include "core/experiment/framework_check.h"
#include "core/experiment/spec/experiment_file.h"
#include "core/figure/figure.h"

namespace pl::ui {

class ErrorView {
 public:
  explicit ErrorView(RunLog& log);
  void show(std::shared_ptr<const experiment::SpecRun> run);        // a finished matrix run
  void show(std::shared_ptr<const experiment::ExperimentRun> run);  // a finished MLP or dot sweep
  // The results for the op the setup asks for; `computing`: a run is under way.
  void draw(ExperimentMode mode, bool computing);
  const std::shared_ptr<const experiment::SpecRun>& matrix_run() const { return run_; }
  const std::shared_ptr<const experiment::ExperimentRun>& other_run() const { return other_run_; }

 private:
  void draw_framework();
  void draw_stats(const experiment::MatmulResult& r);
  // Which part of the error the figures show: every part, or one of total / input rounding /
  // arithmetic / output rounding (the other parts' series hidden in every figure).
  void draw_attribution_toggle(const experiment::MatmulResult& r);
  const experiment::MatmulResult* shown() const;  // the run's result, or the chosen fix's
  void show_result();                             // figures for the result on screen

  RunLog& log_;
  std::shared_ptr<const experiment::SpecRun> run_;  // shared with an export in progress
  std::shared_ptr<const experiment::ExperimentRun> other_run_;
  int fix_ = 0;                                // the fix on screen when the call raises
  int attribution_ = 0;                        // 0: every part; 1..4: total, input, arithmetic, output
  std::vector<figure::Figure> figures_;        // the matrix result's (or the chosen fix's)
  std::vector<figure::Figure> other_figures_;  // the MLP's or the dot sweep's
  int run_id_ = 0;
  FigureView figure_view_;
  SplitView split_{0.55f};  // the verdict, fixes and statistics above, the figures below
};

}  // namespace pl::ui
