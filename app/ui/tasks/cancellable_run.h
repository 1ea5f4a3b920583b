// One cancellable computation at a time off the UI thread, with its progress, for the panels
// that re-run work while the window keeps drawing (Experiment, Scenarios). The frame loop takes
// each run's outcome once -- a cancelled run's too, as the error "cancelled" -- and starts the
// next run with start_when_idle(), which never waits: a run stops only at its next check of the
// cancel flag, and some steps have none (an OpenBLAS dgemm: seconds at 4096^2 on two cores; a
// double-double reference, longer), so joining it on the UI thread would freeze the window that
// long.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "core/util/exception_text.h"
#include "core/util/expected.h"

namespace pl::ui {

template <typename T>
class CancellableRun {
 public:
  // The work gets a progress callback (fractions in [0, 1]) and the cancel flag to poll.
  using Work = std::function<Expected<T>(const std::function<void(double)>&, const std::atomic<bool>*)>;

  CancellableRun() = default;
  CancellableRun(const CancellableRun&) = delete;
  CancellableRun& operator=(const CancellableRun&) = delete;
  ~CancellableRun() { cancel(); }

  // Cancels the run in flight and waits for it, then starts `work`: for callers off the UI thread
  // (and tests). An outcome not yet taken belongs to the run this one replaces: dropped.
  void start(Work work) {
    cancel();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.reset();
    }
    running_ = true;
    progress_ = 0;
    thread_ = std::thread([this, work = std::move(work)] {
      std::unique_ptr<Expected<T>> outcome;
      try {
        outcome = std::make_unique<Expected<T>>(work([this](double f) { progress_ = f; }, &cancel_));
      } catch (...) {  // (std::bad_alloc): the run's error, not the window's end
        outcome = std::make_unique<Expected<T>>(Error{exception_text(std::current_exception())});
      }
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = std::move(outcome);
      running_ = false;
    });
  }
  // Starts `work` and returns true when no run is in flight; otherwise asks that run to stop and
  // returns false at once, for the frame loop to try again on a later frame.
  bool start_when_idle(Work work) {
    if (running_) {
      cancel_ = true;
      return false;
    }
    start(std::move(work));  // joins a thread that has finished: no wait
    return true;
  }
  // Stops the run in flight and waits for it (the panel's destructor; not from a frame).
  void cancel() {
    cancel_ = true;
    if (thread_.joinable()) thread_.join();
    cancel_ = false;
  }
  // Asks the run in flight to stop, without waiting (its outcome arrives as "cancelled").
  void request_cancel() { cancel_ = true; }

  bool running() const { return running_; }
  // Running, or finished with an outcome not yet taken: work the frame loop has still to show.
  bool pending() const {
    if (running_) return true;
    std::lock_guard<std::mutex> lock(mutex_);
    return done_ != nullptr;
  }
  double progress() const { return progress_; }

  // The finished run's outcome, handed out once; null while none is waiting.
  std::unique_ptr<Expected<T>> take() {
    std::unique_ptr<Expected<T>> outcome;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      outcome = std::move(done_);
    }
    if (outcome && thread_.joinable()) thread_.join();
    return outcome;
  }

 private:
  std::thread thread_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> running_{false};
  std::atomic<double> progress_{0};
  mutable std::mutex mutex_;
  std::unique_ptr<Expected<T>> done_;  // set by the worker, taken by the frame loop
};

}  // namespace pl::ui
