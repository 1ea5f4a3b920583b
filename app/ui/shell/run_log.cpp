#include "app/ui/shell/run_log.h"

#include <chrono>
#include <cstdio>

namespace pl::ui {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

RunLog::RunLog(bool echo) : echo_(echo), start_(now_seconds()) {}

void RunLog::add(const std::string& source, const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.push_back({now_seconds() - start_, source, text});
  if (echo_) {
    std::printf("[%8.3f] %s: %s\n", entries_.back().at, source.c_str(), text.c_str());
    std::fflush(stdout);
  }
  // Let go in batches of a tenth, so that adding is not a shift of the whole vector every time.
  if (entries_.size() > kKept + kKept / 10) {
    const size_t extra = entries_.size() - kKept;
    entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(extra));
    dropped_ += extra;
  }
}

std::vector<LogEntry> RunLog::entries(size_t* dropped) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (dropped) *dropped = dropped_;
  return entries_;
}
}  // namespace pl::ui
