// The Throughput panel's figures, described once for the screen and for export alike.
#pragma once

#include <string>
#include <vector>

#include "core/experiment/throughput.h"
#include "core/experiment/throughput_run.h"
#include "core/figure/figure.h"

namespace pl::figure {

struct ThroughputContext {
  size_t n = 0;        // the product size sampled
  std::string device;  // "cpu (AMD EPYC 7B13)"
  size_t median_window = 9;
  bool gpu = false;             // timed on a GPU: rates in TFLOP/s (experiment::rate_unit)
  std::vector<DType> emulated;  // on a GPU, the dtypes whose rate measures emulation, not hardware
  std::vector<DType> on_cpu;    // on a GPU, the dtypes the CPU timed (the device could not run them)
};

// throughput-over-time: every sample (points) and the sliding median (line) per dtype.
Figure throughput_over_time(const experiment::ThroughputHistory& h, const ThroughputContext& c);

// throughput-by-dtype: the median rate of each dtype sampled in the same run, as bars.
Figure throughput_bars(const experiment::ThroughputHistory& h, const ThroughputContext& c);

// A throughput experiment file's figures:
//  measured-rate: each dtype's median GFLOP/s here, its speed-up in the legend;
//  speedup-vs-datasheet: speed-up over the baseline measured here beside the datasheet's for
//    the named GPU, on a log axis, with the "2x" and "4x" rules of thumb drawn across.
std::vector<Figure> throughput_run_figures(const experiment::ThroughputResult& r);
Figure speedup_vs_datasheet(const experiment::ThroughputResult& r);

}  // namespace pl::figure
