// Any experiment file (docs/experiment-json.md) run through one door: matmul and linear (with
// their framework), mlp, dot and sum, cast, throughput, train. The scenarios and `run` use it so that an
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
#include "core/experiment/throughput_run.h"
#include "core/experiment/train.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct ExperimentRun {
  std::string kind;  // the file's "experiment": "matmul", "linear", "mlp", "dot", "sum", "cast", "throughput", "train"
  nlohmann::json setup;   // as run, re-runnable: setup.json
  nlohmann::json result;  // result.json; a raising framework call: framework.json with its fixes
  // Exactly one of these is set, by kind.
  std::optional<SpecRun> matmul;
  std::optional<MlpResult> mlp;
  std::optional<DotSweepConfig> dot_config;
  std::vector<DotSweepRow> dot_rows;
  std::optional<RoundtripResult> cast;
  std::optional<ThroughputResult> throughput;
  std::optional<TrainResult> train;
};

// The kind a file names ("linear" when it names none, as matmul_spec_from_json reads it).
std::string experiment_kind(const nlohmann::json& j);

// The experiment kinds, one row each: the name a file gives in "experiment", the command that
// runs one from the command line, what it measures, and how a file of it is read and run.
// `run` reads the file as strictly as the kind's reader does.
struct ExperimentKind {
  std::string_view name;     // "linear", "matmul", "mlp", "dot", "sum", "cast", "throughput", "train"
  std::string_view command;  // precision-lab COMMAND runs one alone ("matmul --linear", "roundtrip", ...)
  std::string_view what;     // one line, for help texts
  Expected<ExperimentRun> (*run)(const nlohmann::json& j, const std::function<void(double)>& progress,
                                 const std::atomic<bool>* cancel);
};
std::span<const ExperimentKind> experiment_kinds();
const ExperimentKind* find_experiment_kind(std::string_view name);  // nullptr: no such kind
std::string experiment_kind_names(std::string_view separator = ", ");

// Reads the file as strictly as each kind's reader does and runs it. Errors: the reader's
// (naming the key), a file it names, "cancelled".
Expected<ExperimentRun> run_experiment_file(const nlohmann::json& j, const std::function<void(double)>& progress = {},
                                            const std::atomic<bool>* cancel = nullptr);

}  // namespace pl::experiment
