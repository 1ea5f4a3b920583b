// PL_CUDA_TRACE=1 prints where a GPU call's wall time goes to stderr, one line a call: "cuda
// product: pack 140 ms, upload 32 ms, gemm ..., download 73 ms, unpack 89 ms". A 4096^3
// experiment on an H100 spent about half a second per product call around a GEMM of
// milliseconds; the split says what to move onto the device first.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pl::cuda {

class PhaseTrace {
 public:
  explicit PhaseTrace(std::string what)
      : what_(std::move(what)), on_(std::getenv("PL_CUDA_TRACE") != nullptr), last_(Clock::now()) {}
  PhaseTrace(const PhaseTrace&) = delete;
  PhaseTrace& operator=(const PhaseTrace&) = delete;
  // The time since the previous mark (or the start), under `phase`.
  void mark(const std::string& phase) {
    if (!on_) return;
    const auto now = Clock::now();
    line_ += (line_.empty() ? "" : ", ") + phase + " " +
             std::to_string(std::chrono::duration<double, std::milli>(now - last_).count()) + " ms";
    last_ = now;
  }
  ~PhaseTrace() {
    if (on_) std::fprintf(stderr, "%s: %s\n", what_.c_str(), line_.c_str());
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  bool on_;
  Clock::time_point last_;
  std::string line_;
};

}  // namespace pl::cuda
