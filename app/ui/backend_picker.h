// The "backend" picker of the Experiment setup: every backend this binary was built with, each
// with its device (found once, off the UI thread: opening CUDA can take a second), and whether
// the matrix experiments can run there -- with the reason when they cannot.
#pragma once

#include <future>
#include <string>
#include <vector>

namespace pl::ui {

class BackendPicker {
 public:
  BackendPicker();
  // Draws the combo; true when the choice changed.
  bool draw(const char* label);
  const std::string& chosen() const { return chosen_; }  // "cpu"

  struct Entry {
    std::string name, device;  // "cpu", "AMD EPYC (2 threads, OpenBLAS ...)"
    std::string unusable;      // why matrix experiments cannot run there; empty when they can
  };

 private:
  std::future<std::vector<Entry>> pending_;
  std::vector<Entry> entries_;
  std::string chosen_ = "cpu";
};

}  // namespace pl::ui
