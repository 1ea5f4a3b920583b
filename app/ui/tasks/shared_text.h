// A line of text a worker thread writes and the frame loop reads (a sweep's work estimate,
// known only once the worker has timed its sample).
#pragma once

#include <mutex>
#include <string>
#include <utility>

namespace pl::ui {

class SharedText {
 public:
  void set(std::string text) {
    std::lock_guard<std::mutex> lock(mutex_);
    text_ = std::move(text);
  }
  std::string get() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return text_;
  }

 private:
  mutable std::mutex mutex_;
  std::string text_;
};

}  // namespace pl::ui
