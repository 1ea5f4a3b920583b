// A checkpoint scan as an experiment file (docs/experiment-json.md), so that `run`, the
// scenarios and the command line's `scan` mean one thing:
//   {"experiment": "scan", "checkpoint": PATH, "candidates": "bfloat16,float8_e4m3fn:mx",
//    "budget": 4.5, "pins": ["NAME=CANDIDATE"], "tensors": REGEX, "rounding": "rne", "seed": 0,
//    "activations": FILE, "activation_format": CANDIDATE, "backend": "cpu"}
// Only "checkpoint" is required. A relative PATH is the reader's: the file's own folder for a
// scenario (core/scenario resolves it), the working directory otherwise.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/scan/checkpoint_scan.h"
#include "core/experiment/scan/scan_json.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct ScanSpec {
  std::string checkpoint;
  std::string candidates = std::string(kDefaultCandidates);
  std::optional<double> budget;
  std::vector<std::string> pins;
  std::string tensors;
  std::string activations, activation_format;
  CastOptions cast;
  BackendChoice backend = BackendChoice::Cpu;
};

// The frontier, and the plan within the budget when there is one.
struct ScanPlans {
  std::vector<PlanPoint> frontier;
  std::optional<PlanReport> plan;
};

struct ScanRun {
  ScanSpec spec;
  ScanResult result;
  ScanPlans plans;
};

Expected<ScanSpec> scan_spec_from_json(const nlohmann::json& j);
nlohmann::json to_json(const ScanSpec& s);

// The options a spec asks for, with its checkpoint and activations opened; every error is the
// spec's to fix: a file that is not a checkpoint, a candidate, a pattern, a pin, a budget below
// the cheapest plan, inputs that do not fit their layers or hold an Inf or a NaN -- all found
// before any weight is read.
struct PreparedScan {
  io::Checkpoint checkpoint;
  ScanOptions options;
};
// Reading the layers' inputs through takes a while for a large activations file: `checked`
// hears how many of them are read (of how many), and `cancel` stops it ("cancelled").
Expected<PreparedScan> prepare_scan(const ScanSpec& s,
                                    const std::function<void(size_t checked, size_t total)>& checked = {},
                                    const std::atomic<bool>* cancel = nullptr);

// The frontier and, with a budget, the plan (an error: a pin or budget no plan can keep).
Expected<ScanPlans> plan_scan(const ScanResult& r, std::optional<double> budget, const std::vector<std::string>& pins);

// prepare_scan, scan_checkpoint and plan_scan; progress is the fraction of the bytes read.
Expected<ScanRun> run_scan_spec(const ScanSpec& s, const std::function<void(double)>& progress = {},
                                const std::atomic<bool>* cancel = nullptr);

}  // namespace pl::experiment
