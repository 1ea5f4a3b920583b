// The dot-product experiment: error versus length K for several accumulation models, on
// random inputs rounded to their dtypes, against the double-double reference, with each
// model's classical deterministic and probabilistic bounds beside the measurement.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/accumulate.h"
#include "core/experiment/error_stats.h"

namespace pl::experiment {

struct DotSweepConfig {
  std::vector<size_t> lengths = {16, 256, 4096};
  DType a_dtype = DType::bfloat16, b_dtype = DType::bfloat16;
  bool sum = false;     // a plain sum of a: every b_k is 1 (b_dtype is then unused)
  std::vector<Accumulation> models;
  int trials = 64;      // independent dot products per (length, model)
  uint64_t seed = 0;    // inputs: standard normal draws, rounded to nearest even
};

struct DotSweepRow {
  size_t length = 0;
  Accumulation model;
  ErrorStats stats;          // over the trials, in the accumulator's format
  double max_scaled = 0;     // max over trials of |error| / sum |a_k b_k|
  std::vector<double> scaled_errors;  // |error| / sum |a_k b_k| of each trial, for histograms
  ErrorBounds bounds;        // accumulation_bounds(model, K), relative to sum |a_k b_k|
};

// Why the config cannot run (empty: it can): models must pass check(), dtypes be floats of
// at most float32 precision, lengths positive, trials positive.
std::string check(const DotSweepConfig& c);

// Runs the sweep. `progress` (optional) gets the fraction done; `cancel` stops between dot
// products and the rows done so far are returned.
std::vector<DotSweepRow> dot_sweep(const DotSweepConfig& c,
                                   const std::function<void(double)>& progress = {},
                                   const std::atomic<bool>* cancel = nullptr);

// A model from its command-line spelling: "f64", "f32:sequential", "f16:pairwise:32",
// "bf16:kahan", "f16:chunked:128" (inner format, then the chunk length; outer float32),
// "f32:blas", "f64:blas" (the OpenBLAS GEMM),
// optionally ending in ":rtz" etc. for the rounding. nullopt with `error` set otherwise.
std::optional<Accumulation> parse_accumulation(const std::string& spec, std::string* error);
// The spec string parse_accumulation reads back: "f32:pairwise:32", "bf16:sequential:rtz".
std::string accumulation_spec(const Accumulation& a);

}  // namespace pl::experiment
