// One piece of work off the UI thread (an export writing dozens of files), whose one-line
// result the frame loop picks up when it is done -- so no click freezes the window.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/util/exception_text.h"

namespace pl::ui {

class BackgroundTask {
 public:
  BackgroundTask() = default;
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;
  ~BackgroundTask() {
    if (thread_.joinable()) thread_.join();
  }

  bool running() const { return running_; }

  // Starts `work` on its own thread; false (and nothing started) while one is still running.
  bool start(std::function<std::string()> work) {
    if (running_) return false;
    if (thread_.joinable()) thread_.join();
    running_ = true;
    thread_ = std::thread([this, work = std::move(work)] {
      std::string r;
      try {
        r = work();
      } catch (...) {  // (std::bad_alloc): the task's line, not the window's end
        r = "error: " + exception_text(std::current_exception());
      }
      std::lock_guard<std::mutex> lock(mutex_);
      result_ = std::move(r);
      running_ = false;
    });
    return true;
  }

  // The finished work's text, handed out once.
  std::optional<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<std::string> r = std::move(result_);
    result_.reset();
    return r;
  }

 private:
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::mutex mutex_;
  std::optional<std::string> result_;
};

}  // namespace pl::ui
