// A whole checkpoint under every candidate: its tensors one after another, each streamed through
// scan_tensor from a mapping of its shard, so memory holds about one run of rows whatever the
// checkpoint's size. Which tensors: the float tensors of two or more dimensions (the weights that
// deployment quantises), or those whose names match a pattern -- one- and zero-dimensional ones
// included -- so that a large checkpoint can also be scanned a part at a time and merged.
// Given the layers' inputs (an activations file, layer_inputs.h), each weight is also scored by
// its layer's output error, and only the weights whose inputs the file holds are scanned.
// Stochastic rounding draws each element's bits from its place in its tensor (every tensor draws
// from the same seeded stream, as the cast experiment of that tensor alone would), whatever runs
// of rows the scan rounds it in.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/backend_choice.h"
#include "core/experiment/scan/candidate.h"
#include "core/experiment/scan/tensor_scan.h"
#include "core/io/checkpoint.h"
#include "core/util/expected.h"
#include "core/util/name_pattern.h"

namespace pl::experiment {

struct ScanOptions {
  std::vector<Candidate> candidates;
  CastOptions cast;
  std::string tensors;  // an ECMAScript pattern searched in each name; empty: the default choice
  BackendChoice backend = BackendChoice::Cpu;
  size_t chunk_elements = size_t{1} << 20;
  std::optional<io::Checkpoint> activations;   // the layers' inputs, NAME.input for NAME.weight
  std::optional<Candidate> activation_format;  // the inputs' format too (W8A8); none: as captured
};

struct ScanProgress {
  size_t tensors_done = 0, tensors_total = 0;
  uint64_t bytes_done = 0, bytes_total = 0;  // of the tensors chosen
};
// "12 of 150 tensors, 1.20 of 4.00 GB, 35 s left" after `seconds` (the time left once a little
// is done, from the bytes' pace).
std::string progress_text(const ScanProgress& p, double seconds);

struct SkippedTensor {
  std::string name;
  std::string reason;  // "1-D: norms and biases stay as stored ..."
};

// What the left-out tensors were, counted by their reasons: "12 1-D or scalar, 2 integer" (empty
// when none was).
std::string skipped_summary(const std::vector<SkippedTensor>& skipped);

struct ScanResult {
  std::string checkpoint;  // the path opened
  std::vector<std::string> candidates;
  std::string rounding = "rne";     // the elements' rounding (rounding_name; "stochastic, seed 7")
  std::vector<TensorScan> tensors;  // in the checkpoint's order
  std::vector<SkippedTensor> skipped;
  uint64_t bytes = 0;          // the scanned tensors' bytes
  std::string ran_on = "cpu";  // where the elements were rounded
  std::string backend_note;
  std::string activations;        // the activations file's path; empty: scored by the weights alone
  std::string activation_format;  // the inputs' candidate; empty: as captured
};

// What the plan and the figures weigh: the layers' output error when the scan had their inputs,
// else the weights' own error.
bool by_output(const ScanResult& r);
double scored_error(const ScanResult& r, const CandidateScore& c);
double scored_sqnr_db(const ScanResult& r, const CandidateScore& c);
double scored_energy(const ScanResult& r, const TensorScan& t);

// The pattern as a regular expression (RE2 syntax): an error names what is wrong with it.
Expected<std::optional<NamePattern>> tensor_pattern(const std::string& pattern);

// The tensors the scan would read, in order; an error says why it cannot start -- no candidate,
// a pattern that is not a regex, no tensor chosen, inputs that do not fit
// their layer -- the user's to fix.
// scan_checkpoint checks it first.
Expected<std::vector<const io::CheckpointTensor*>> chosen_tensors(const io::Checkpoint& c, const ScanOptions& o);

Expected<ScanResult> scan_checkpoint(const io::Checkpoint& c, const ScanOptions& o,
                                     const std::function<void(const ScanProgress&)>& progress = {},
                                     const std::atomic<bool>* cancel = nullptr);

}  // namespace pl::experiment
