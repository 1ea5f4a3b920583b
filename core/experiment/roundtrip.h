// The cast experiment: an array drawn from a data source (or loaded), converted to a dtype under
// a scaling recipe, rounding mode and overflow policy, and read back -- the error of the round
// trip against the original float64 values, with the recipe's saturation and flush counts.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "core/analysis/error_stats.h"
#include "core/analysis/histogram.h"
#include "core/backend/backend_choice.h"
#include "core/quantise/data_source.h"
#include "core/quantise/scale_map.h"
#include "core/quantise/scaling.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct RoundtripConfig {
  size_t rows = 256, cols = 1024;  // scaling recipes work along rows (channels, blocks)
  DType dtype = DType::float8_e4m3fn;
  Scaling scaling;
  CastOptions cast;
  DataSource data;
  uint64_t seed = 0;
  // Where the elements are rounded: "cpu", "cuda" or "auto" (core/backend/backend.h). The
  // scales, counts and statistics are the CPU's; the bits are the same everywhere.
  BackendChoice backend = BackendChoice::Cpu;
};

struct RoundtripResult {
  RoundtripConfig config;
  ErrorStats stats;                   // in the float64 sense: the dequantised values against the originals
  Histogram relative;                 // log10 bins of |e| / max(|x|, floor)
  // log10 bins of the magnitudes the format rounds: |x| times its element's scale where a
  // symmetric recipe scales (magnitudes_scaled), else |x| (no recipe, or an asymmetric one, whose
  // zero point shifts the values the integer range applies to).
  Histogram magnitudes;
  bool magnitudes_scaled = false;
  size_t saturated = 0, flushed = 0;  // past the dtype's range; nonzero values that became zero
  std::string out_of_range;           // what the saturated became (out_of_range_outcome)
  std::string input_file;             // the tensor's file (RoundtripSpec::input_file); empty: drawn from config.data
  std::string ran_on = "cpu";         // where the elements were rounded: "cpu", "cuda (NVIDIA H100 ...)"
  std::string backend_note;           // why a device that was asked for did not round them; empty otherwise
  ScaleMap scales;                    // each block's (or row's) scale; empty for one scale or none
};

Status check(const RoundtripConfig& c);
// The rounding the round trip ran: an integer dtype's is nearest-even whatever was asked (the
// window keeps one rounding for every dtype); what a result or a setup records.
inline Rounding rounding_used(const RoundtripConfig& c) {
  return is_float(c.dtype) ? c.cast.rounding : Rounding::NearestEven;
}
// Whether the seed is read when the values come from a file: by a stochastic rounding's stream
// (one that runs: not an integer's) or a delayed recipe's drawn history (else it changes nothing,
// and is refused, and a setup leaves it out).
inline bool seed_read_with_file(const RoundtripConfig& c) {
  return rounding_used(c) == Rounding::Stochastic || c.scaling.kind == ScalingKind::PerTensorDelayed;
}
// `progress` gets fractions in [0, 1] as the stages end; `cancel` stops the run between them
// (the error says "cancelled").
Expected<RoundtripResult> run_roundtrip(const RoundtripConfig& c, std::vector<double> values = {},
                                        const std::function<void(double)>& progress = {},
                                        const std::atomic<bool>* cancel = nullptr);

// The experiment as the CLI and experiment files give it: the config and, optionally, a file
// whose array (and shape: it replaces rows and cols) is used instead of drawn values.
struct RoundtripSpec {
  RoundtripConfig config;
  std::string input_file;  // "x.npy" or "model.safetensors:NAME[@R0:R1,C0:C1]"; empty: drawn
};
Expected<RoundtripResult> run_roundtrip(const RoundtripSpec& spec, const std::function<void(double)>& progress = {},
                                        const std::atomic<bool>* cancel = nullptr);

}  // namespace pl::experiment
