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

// The most recent kKept entries are kept (and up to a tenth more between the batches let go;
// --verbose prints every one): the Log panel copies and wraps what it holds every frame it is
// shown, and a long session's edit-triggered re-runs add entries without end.
class RunLog {
 public:
  static constexpr size_t kKept = 2000;
  explicit RunLog(bool echo = false);
  void add(const std::string& source, const std::string& text);
  // A copy, oldest first; with `dropped`, how many earlier entries were let go, read together.
  std::vector<LogEntry> entries(size_t* dropped = nullptr) const;

 private:
  mutable std::mutex mutex_;
  std::vector<LogEntry> entries_;
  size_t dropped_ = 0;
  bool echo_;
  double start_;
};

}  // namespace pl::ui
