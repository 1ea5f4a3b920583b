// Any experiment file (docs/experiment-json.md) run through one door: matmul and linear (with
// their framework), mlp, dot and sum, cast, throughput, train, scan. The scenarios and `run` use it so that an
// experiment file means the same thing wherever it is read. The typed result is kept beside
// its JSON (result.json), which is what scenario checks point into.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/dot_sweep.h"
#include "core/experiment/framework_check.h"
#include "core/experiment/mlp.h"
#include "core/experiment/roundtrip.h"
#include "core/experiment/scan/scan_spec.h"
#include "core/experiment/throughput_run.h"
#include "core/experiment/train.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct ExperimentRun {
  std::string
      kind;  // the file's "experiment", by its name now: "matmul", "linear", "mlp", "dot", "sum", "roundtrip", ...
  nlohmann::json setup;   // as run, re-runnable: setup.json
  nlohmann::json result;  // result.json; a raising framework call: framework.json with its fixes
  // Exactly one of these is set, by kind.
  std::optional<SpecRun> matmul;
  std::optional<MlpResult> mlp;
  std::optional<DotSweepConfig> dot_config;
  std::vector<DotSweepRow> dot_rows;
  std::optional<RoundtripResult> roundtrip;
  std::optional<ThroughputResult> throughput;
  std::optional<TrainResult> train;
  std::optional<ScanRun> scan;
  double seconds = 0;  // the run's wall time, where the caller timed it (the window's status line)
};

// The kind a file names ("linear" when it names none, as matmul_spec_from_json reads it), an
// old spelling read as the kind it names now.
std::string experiment_kind(const nlohmann::json& j);

// Old spellings of kinds that files written earlier still use; each is read as the kind it
// names and `run` says so. The array round trip was "cast" in files while `cast` is the scalar
// codec's command and `roundtrip` the round trip's.
struct KindAlias {
  std::string_view old_name;  // "cast"
  std::string_view name;      // "roundtrip"
};
std::span<const KindAlias> experiment_kind_aliases();
std::string_view canonical_kind_name(std::string_view kind);  // the kind an old spelling names; others as given
// "'cast' is the old name of the experiment 'roundtrip'; ..." when the file spells its kind the
// old way; empty otherwise.
std::string kind_alias_note(const nlohmann::json& j);

// The experiment kinds, one row each: the name a file gives in "experiment", the command that
// runs one from the command line, what it measures, and how a file of it is read and run.
// `run` reads the file as strictly as the kind's reader does.
struct ExperimentKind {
  std::string_view name;     // "linear", "matmul", "mlp", "dot", "sum", "roundtrip", "throughput", "train", "scan"
  std::string_view command;  // precision-lab COMMAND runs one alone ("matmul --linear", "roundtrip", ...)
  std::string_view what;     // one line, for help texts
  bool takes_backend;        // its file may name a "backend" (every kind but train, which runs on the CPU)
  Expected<ExperimentRun> (*run)(const nlohmann::json& j, const std::function<void(double)>& progress,
                                 const std::atomic<bool>* cancel);
  Status (*check)(const nlohmann::json& j);  // its reader alone: why the file would be refused
};
std::span<const ExperimentKind> experiment_kinds();
const ExperimentKind* find_experiment_kind(std::string_view name);  // nullptr: no such kind
std::string experiment_kind_names(std::string_view separator = ", ");

// Reads the file as strictly as each kind's reader does and runs it. Errors: the reader's
// (naming the key), a file it names, "cancelled".
Expected<ExperimentRun> run_experiment_file(const nlohmann::json& j, const std::function<void(double)>& progress = {},
                                            const std::atomic<bool>* cancel = nullptr);

// Why the file would be refused, if it would: read by its kind's reader, as run_experiment_file
// reads it, and nothing run, drawn or opened (the files it names are read when it runs). A
// user's scenario's evidence is checked so as the scenario is read: a bad setup ran, failed, and
// exited 1 with its slides written.
Status check_experiment_file(const nlohmann::json& j);

// The files and folders the file names, as the readers read them (the file keys of every kind:
// input_file, weight_file, bias_file, checkpoint, activations), each a tensor spec's file
// (model.safetensors for model.safetensors:w): what a run of it reads besides the file itself.
std::vector<std::string> experiment_file_paths(const nlohmann::json& j);

// How long the file would run here, for the kinds whose work can grow past interactive scale
// (dot and sum sweeps: estimate_dot_sweep); nullopt for the others and for a file its kind's
// reader refuses (running it reports why). `run` and the window announce a sweep past
// kInteractiveSeconds before starting it.
std::optional<WorkEstimate> estimate_file_work(const nlohmann::json& j);
// The products a dot or sum sweep's file sums (sweep_terms, nothing run); nullopt for the other
// kinds and for a file its kind's reader refuses.
std::optional<double> file_sweep_terms(const nlohmann::json& j);

}  // namespace pl::experiment
