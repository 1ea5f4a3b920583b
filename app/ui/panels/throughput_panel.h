// The Throughput panel: a live chart of each dtype's matrix-product rate on this machine
// on the chosen backend (sampled on a worker thread, round-robin, half duty; a GPU's products
// timed by CUDA events and shown against its published peak), a sliding median, a bar chart of the
// dtypes measured in the same run, and a table with each rate against float32 -- saying
// plainly that on the CPU a low-precision rate measures emulation, not hardware speed -- beside
// what a chosen GPU's datasheet says the same ratios are (core/backend/peak_rates), drawn as
// speed-ups with the 2x and 4x rules of thumb.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/ui/panels/panel.h"
#include "app/ui/shell/run_log.h"
#include "app/ui/tasks/background_task.h"
#include "app/ui/tasks/cancellable_run.h"
#include "app/ui/views/figure_view.h"
#include "app/ui/views/probe_view.h"
#include "app/ui/widgets/backend_picker.h"
#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/split_view.h"
#include "core/experiment/throughput.h"
#include "core/experiment/throughput_run.h"

namespace pl::ui {

class ThroughputPanel final : public Panel {
 public:
  explicit ThroughputPanel(RunLog& log);
  ~ThroughputPanel() override;
  const char* name() const override { return "Throughput"; }
  void draw_content() override;
  void hidden() override;
  void stop_work() override { request_stop(); }
  // Sampling until every chosen dtype has a few samples (a screenshot waits for that).
  bool busy() const override;
  // The probe's "Use in the Experiment panel" (ProbeView::on_use_model).
  void on_use_model(std::function<void(const std::string& spec, DType input)> f) { probe_.on_use_model(std::move(f)); }

 private:
  struct Choice {
    DType dtype;
    bool on;
  };
  // Starts sampling; with the sampler still running, asks it to stop and starts when it has
  // (collect). Nothing here waits on a frame: a product under way -- seconds at n = 4096 on a
  // CPU, and a product has no cancel check -- finishes first.
  void start(bool fresh);  // fresh: a new chart; else the samples go on after the last
  void request_stop();     // the sampler stops after the product under way
  void take_outcome();     // a stopped sampler's outcome: its status, error and medians
  void collect();          // take_outcome(), then the start asked for meanwhile
  void log_summary();      // the medians so far, in the log
  void draw_method_note() const;  // what the rates measure here (emulation on a CPU)
  void draw_controls();
  void draw_table(const experiment::ThroughputHistory& h);
  std::string datasheet() const;  // the chosen part's name; "" for none
  std::string export_figures();

  RunLog& log_;
  std::vector<Choice> choices_;
  int size_index_ = 2;       // into kSizes
  bool live_ = true;         // sample while the panel is shown
  int datasheet_index_ = 1;  // 0: none, else 1 + index into peak::parts()
  static constexpr const char* kLookingForDevice = "looking for the device...";
  std::string device_ = kLookingForDevice;  // the sampled device, as its sampler found it
  BackendChoice sampled_backend_ = BackendChoice::Cpu;  // the backend device_ belongs to
  bool gpu_ = false;       // device_ is a GPU: rates in TFLOP/s
  ProbeView probe_;        // how the chosen device adds
  BackendPicker backend_;  // where the products are timed (a GPU: its own clock, % of its peak)
  std::string peak_part_;  // the sampled device's entry in the peak table; "" for none

  // The device a sampler found (set by its worker), taken into device_, gpu_ and peak_part_ by
  // the UI thread.
  struct FoundDevice {
    std::string name;
    bool gpu = false;
    std::string peak_part;
  };
  std::optional<FoundDevice> found_;
  void adopt_found_device();
  void adopt_found_device_locked();  // with mutex_ held
  mutable std::mutex mutex_;               // guards history_, status_, error_, found_
  experiment::ThroughputHistory history_{experiment::ThroughputHistory::kWindowKept};  // written by the worker
  std::string status_, error_;
  std::map<DType, std::pair<std::string, bool>> methods_;  // per dtype: what ran it, emulated
  std::set<DType> cpu_timed_;                              // on a GPU, the dtypes it could not run, timed on the CPU
  std::atomic<int> version_{0};                            // bumped on every sample

  experiment::ThroughputHistory shown_history_;  // the copy the table and figures show
  experiment::ThroughputResult shown_summary_;   // its medians beside the datasheet
  int drawn_version_ = -1;
  std::chrono::steady_clock::time_point drawn_at_{};
  std::vector<figure::Figure> figures_;
  FigureView figure_view_;
  SplitView split_{0.5f};  // the table and the probe above, the figures below
  std::string export_status_;
  // The sampler, after what it writes: joined before those go. A start asked for while it stops:
  // whether fresh.
  CancellableRun<bool> sampler_;
  std::optional<bool> pending_start_;
  bool stopping_ = false;      // asked to stop; its product under way still running
  bool resume_fresh_ = false;  // a fresh chart asked for while hidden or paused: the next start's
  BackgroundTask export_;  // declared last: joined first, while the log it writes to lives
};

}  // namespace pl::ui
