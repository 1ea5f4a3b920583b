// The "backend" picker of the Experiment setup: every backend this binary was built with, each
// with its device (found once, off the UI thread: opening CUDA can take a second), and whether
// it opens -- with the reason when it does not. A model the device has no kernel for runs on
// the CPU, and the result says so.
#pragma once

#include <future>
#include <string>
#include <vector>

#include "core/backend/backend_choice.h"
#include "core/backend/product.h"

namespace pl::ui {

class BackendPicker {
 public:
  BackendPicker();
  // Draws the combo; true when the choice changed.
  bool draw(const char* label);
  BackendChoice chosen() const { return chosen_; }
  void choose(BackendChoice c) { chosen_ = c; }  // a loaded setup's backend
  // Where a product of this spec will run, said before it runs: "" for the CPU (or while the
  // devices are still being looked for), else the device, or why the CPU will run it instead.
  std::string where(const ProductSpec& s) const;

  struct Entry {
    BackendChoice choice;
    std::string device;    // "AMD EPYC (2 threads, OpenBLAS ...)"
    std::string unusable;  // why matrix experiments cannot run there; empty when they can
  };

 private:
  std::future<std::vector<Entry>> pending_;
  std::vector<Entry> entries_;
  BackendChoice chosen_ = BackendChoice::Cpu;
};

}  // namespace pl::ui
