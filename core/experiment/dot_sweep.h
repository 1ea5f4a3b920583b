// The dot-product experiment: error versus length K for several accumulation models, on
// random inputs rounded to their dtypes, against the double-double reference, with each
// model's classical deterministic bound and probabilistic estimate beside the measurement.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/accumulate/accumulation_spec.h"
#include "core/analysis/error_stats.h"
#include "core/backend/backend_choice.h"
#include "core/util/expected.h"

namespace pl::experiment {

inline constexpr int kMaxTrials = 1000000;  // a sweep's trials per (length, model)

struct DotSweepConfig {
  std::vector<size_t> lengths = {16, 256, 4096};
  DType a_dtype = DType::bfloat16, b_dtype = DType::bfloat16;
  bool sum = false;  // a plain sum of a: every b_k is 1 (b_dtype is then unused)
  std::vector<Accumulation> models;
  int trials = 64;    // independent dot products per (length, model), 1 to kMaxTrials
  uint64_t seed = 0;  // inputs: standard normal draws, rounded to nearest even
  // Where the dot products run: "cpu", "cuda" or "auto" (backend.h). A dot product is a
  // 1 x 1 x K product (gemm.h), so a device runs each trial as one; a model it cannot run
  // (or a device that is missing or fails) runs on the CPU, and the row says why.
  BackendChoice backend = BackendChoice::Cpu;
};

struct DotSweepRow {
  size_t length = 0;
  Accumulation model;
  ErrorStats stats;                   // over the trials, in the accumulator's format
  double max_scaled = 0;              // max over trials of |error| / sum |a_k b_k|
  std::vector<double> scaled_errors;  // |error| / sum |a_k b_k| of each trial, for histograms
  ErrorBounds bounds;                 // accumulation_bounds(model, K), relative to sum |a_k b_k|
  std::string ran_on = "cpu";         // "cpu", or the device: "cuda (NVIDIA H100 80GB HBM3)"
  std::string method;                 // what summed the trials: the device's kernel, or describe(model) on the CPU
  std::string note;                   // why a device that was asked for did not run them; empty otherwise
  // Trials whose rounded inputs held an Inf or a NaN (a format too narrow for N(0,1) draws):
  // their reference is not finite, so they are in no statistic.
  size_t unreferenced = 0;
};

// One line for each length some of whose trials had no finite reference: "K = 16: 2 of 2
// trials' inputs held an Inf or a NaN once rounded, so they have no reference and are left out"
// (every column read "-" without a word).
std::vector<std::string> unreferenced_notes(const std::vector<DotSweepRow>& rows);

// The longest length a sweep takes, and the lengths from their text ("16,256,4096"), each a
// whole number in [1, kMaxSweepLength]: one reader for the command line and the window.
inline constexpr size_t kMaxSweepLength = size_t{1} << 24;
Expected<std::vector<size_t>> parse_lengths(std::string_view text);

// An error saying why the config cannot run: models must pass check(), dtypes be floats of
// at most float32 precision, lengths positive, trials positive.
Status check(const DotSweepConfig& c);

// How long the sweep would run here: every model's terms (sum of lengths x trials) timed on a
// small sample sweep of the same models on this machine, then scaled. A run past interactive
// scale (a 2^24-long sweep with 10^6 trials: days) is announced before it starts.
struct WorkEstimate {
  double terms = 0;             // products summed, all lengths, trials and models
  double seconds = 0;           // the estimate
  double seconds_per_term = 0;  // measured on the sample
};
WorkEstimate estimate_dot_sweep(const DotSweepConfig& c);
// The products the sweep sums: every length times the trials and the models (untimed).
double sweep_terms(const DotSweepConfig& c);
// Past this a command asks for --force and the window says how long before it starts.
inline constexpr double kInteractiveSeconds = 600;
std::string work_text(const WorkEstimate& w);  // "about 3.2e12 terms, an estimated 41 hours here"

// A length's trials are drawn and summed this many bytes of inputs at a time, so that a sweep's
// memory does not grow with its trials (64 trials of K = 2^24 held 17 GB at once).
inline constexpr double kDotBatchBytes = 256.0 * (1 << 20);

// Runs the sweep. `progress` (optional) gets the fraction done; `cancel` stops between dot
// products and the rows done so far are returned. The trials run on every core; the numbers
// are the same on any count and for any `batch_bytes` (the tests' small batches).
std::vector<DotSweepRow> dot_sweep(const DotSweepConfig& c, const std::function<void(double)>& progress = {},
                                   const std::atomic<bool>* cancel = nullptr, double batch_bytes = kDotBatchBytes);

// Where each model's sums ran, one entry per model and place ("f32 sequential rne: <method> on
// cuda (NVIDIA H100)"), with the reason when a device that was asked for did not run it (the
// row's note). Every length runs a model in the same place but after a device failure, so there
// is usually one entry per model. Rows the CPU ran because the CPU was asked for share one last
// entry ("every model ran on the CPU"). For the CLI's table and the window's.
struct WhereRan {
  std::string what;
  std::string note;  // empty: none
  bool operator==(const WhereRan&) const = default;
};
std::vector<WhereRan> where_ran(const std::vector<DotSweepRow>& rows);

}  // namespace pl::experiment
