// The Checkpoint panel: a model's safetensors (a file, a sharded checkpoint's index or its
// folder) scanned on a worker thread with progress (tensors, bytes, time left) and cancel --
// every weight under every candidate (core/experiment/scan) -- then a table sortable by any
// column, the layers x candidates SQNR heat map and the plan frontier, and a budget slider that
// re-plans as it moves. Given an activations file (the layers' inputs), every figure weighs the
// layers' output errors instead. Clicking a tensor's candidate opens that cast in the Experiment
// panel; right-clicking pins it in the plan.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/ui/panels/panel.h"
#include "app/ui/shell/run_log.h"
#include "app/ui/tasks/background_task.h"
#include "app/ui/tasks/cancellable_run.h"
#include "app/ui/views/figure_view.h"
#include "app/ui/widgets/candidate_editor.h"
#include "app/ui/widgets/split_view.h"
#include "core/experiment/scan/scan_json.h"
#include "core/export/export_dir.h"
#include "core/io/checkpoint.h"

namespace pl::ui {

class CheckpointPanel final : public Panel {
 public:
  explicit CheckpointPanel(RunLog& log);
  ~CheckpointPanel() override;
  const char* name() const override { return "Checkpoint"; }
  void draw_content() override;
  bool busy() const override {
    // (An outcome not yet taken counts: it is work still to show.)
    return scan_asked_ || worker_.pending() || replan_asked_ || planner_.pending() || export_.running();
  }
  // A scan asked for while another tab shows (`--checkpoint` with another `--panel`) is taken
  // when it ends: left for the panel's own frames, its outcome would wait for the tab, and a
  // screenshot would wait its full minute for it (and miss a bad path's error).
  void hidden() override { keep_up(); }
  void stop_work() override {
    worker_.request_cancel();
    planner_.request_cancel();
  }
  // Opens and scans PATH (a file dropped on the window, --checkpoint, a scenario's link), scored
  // by the layers' outputs on the inputs in `activations` when one is named (--activations), under
  // `candidates` when given (else the field's).
  void open(const std::string& path, const std::string& activations = {}, const std::string& candidates = {});
  std::string path_field() const { return path_field_; }  // what Scan opens
  // Why the last scan asked for did not give a table (nothing while one did or none was asked
  // for): `environment` where the checkpoint read and checked could not then be scanned, as the
  // scan command tells exit 1 from exit 2.
  std::optional<Error> failure() const;
  // "plan (highlighted): 4.500 bits/param, SQNR 31.2 dB" for the plan under the budget; empty
  // before one.
  std::string plan_line() const;
  // Writes the scan and the plan on screen into a new folder under `root`, as scan --out does, off
  // the UI thread (Export plan, Ctrl+E); says what it started. exporting() while it writes.
  std::string export_plan(const std::string& root = exporting::kExportRoot);
  bool exporting() const { return export_.running(); }
  std::string export_status() const { return export_status_; }  // the last export's line
  // A tensor's cast under a candidate, as an experiment file, for the Experiment panel.
  void on_open_cast(std::function<void(const nlohmann::json& setup)> f) { open_cast_ = std::move(f); }

 private:
  using Scanned = experiment::ScanResult;
  // The mode and the number of columns the table's shown columns were set for.
  bool columns_for_presentation_ = false;
  int columns_set_ = 0;
  struct Progress {  // written by the worker
    std::atomic<size_t> tensors_done{0}, tensors_total{0};
    std::atomic<uint64_t> bytes_done{0}, bytes_total{0};
    std::atomic<size_t> inputs_checked{0}, inputs_total{0};  // before the scan: the layers' inputs read through
  };
  void start_scan();  // asks for a scan of the path field; it starts once no scan is in flight
  bool try_start();   // starts the scan asked for, or asks the one in flight to stop (false)
  void collect();
  // The plan and figures for the budget and pins, worked out off the UI thread (a search over a
  // thousand tensors can take a few hundred milliseconds): the last one asked for starts once no
  // plan is in flight, and the table and figures show the plan before it meanwhile.
  void replan();
  void try_replan();
  void collect_plan();
  void draw_controls();
  void draw_guide();  // before a scan: what one shows, and a sample to scan
  void draw_progress();
  void draw_table();
  void draw_row(size_t tensor, const std::vector<std::string>& short_candidates);  // one of the table's rows
  void sort_rows();  // order_ by the table's sort column, when it or the rows changed

  RunLog& log_;
  char path_field_[1024] = "";
  char candidates_field_[4096] = "";
  CandidateEditor candidate_editor_;           // edits candidates_field_
  Rounding rounding_ = Rounding::NearestEven;  // the elements' rounding (scan --rounding)
  uint64_t seed_ = 0;                          // its stream's seed, when stochastic
  char activations_field_[1024] = "";
  char activation_format_field_[64] = "";
  std::string path_;  // what the last scan opened
  struct Planned {    // a plan, for the result it was worked out from
    std::shared_ptr<const Scanned> from;
    std::vector<experiment::PlanPoint> frontier;
    std::optional<experiment::PlanReport> plan;
    std::string error;
    std::vector<figure::Figure> figures;
    double budget = 0;  // the plan's budget
  };
  // The plan within `budget`, or, without one, within the budget a new scan starts from.
  static Planned plan_for(std::shared_ptr<const Scanned> from, const std::vector<std::string>& pins,
                          std::optional<double> budget);
  void use_plan(Planned p);
  struct Opened {  // a scan, with its first plan
    std::shared_ptr<const Scanned> result;
    Planned first_plan;
  };
  CancellableRun<Opened> worker_;
  std::shared_ptr<Progress> progress_ = std::make_shared<Progress>();
  std::chrono::steady_clock::time_point started_{};
  // Shared with the plan in flight, which reads it on its thread.
  std::shared_ptr<const Scanned> result_;
  // A new scan started: the last one's result goes at the start of the next frame, not while
  // this frame still draws it (the Scan button and the path field start a scan mid-frame, with
  // the table still to draw from the result).
  bool result_stale_ = false;
  void drop_stale_result();  // before anything of the panel draws (a frame's top, or hidden())
  void keep_up();            // starts what was asked and takes what finished, shown or not
  std::string error_;
  bool error_environment_ = false;  // error_ is the scan's own, after the files were checked
  CancellableRun<Planned> planner_;
  bool replan_asked_ = false;
  BackgroundTask export_;      // the plan's folder, written off the UI thread
  std::string export_status_;  // what the last export said
  std::vector<experiment::PlanPoint> frontier_;
  std::optional<experiment::PlanReport> plan_;
  std::vector<std::optional<size_t>> pins_;  // per tensor
  double budget_ = 0;
  bool scan_asked_ = false;
  bool resort_ = false;  // the rows' order follows the sort column again (a new scan or plan)
  std::string plan_error_;
  std::vector<size_t> order_;  // the table's rows, sorted
  std::vector<figure::Figure> figures_;
  int version_ = 0;
  SplitView split_{0.5f};
  FigureView figure_view_;
  std::function<void(const nlohmann::json&)> open_cast_;
};

}  // namespace pl::ui
