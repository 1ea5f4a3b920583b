// What ran, with timings: every panel appends here (from any thread), the Log panel shows it,
// and with --verbose each entry is also printed to stdout as it arrives (scripts and the GUI
// tests read what the window did from there).
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace pl::ui {

struct LogEntry {
  double at = 0;       // seconds since the window opened
  std::string source;  // "experiment", "promotion", "throughput", "window"
  std::string text;
};

class RunLog {
 public:
  explicit RunLog(bool echo = false);
  void add(const std::string& source, const std::string& text);
  std::vector<LogEntry> entries() const;  // a copy, oldest first

 private:
  mutable std::mutex mutex_;
  std::vector<LogEntry> entries_;
  bool echo_;
  double start_;
};

}  // namespace pl::ui
