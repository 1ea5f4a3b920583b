// A teaching scenario: a story in two or three sentences, the experiments that show it live
// (evidence), and the checks -- values and bounds the app must reproduce, each backed by an
// independent computation (tests/data/scenarios/gen_reference.py with PyTorch, NumPy and
// ml_dtypes) or by a hand derivation written in the file. Scenarios are data:
// assets/scenarios/*.json, and a user's own in $XDG_CONFIG_HOME/precision-lab/scenarios
// (docs/scenarios.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl::scenario {

// The most characters an evidence run's tab name may have.
inline constexpr size_t kEvidenceTabChars = 24;
// The most products a dot or sum sweep in a scenario's evidence may sum: minutes at the slowest
// emulated formats' rate (the shipped ones sum at most a few million).
inline constexpr double kEvidenceMostTerms = 1e9;

// One experiment file (docs/experiment-json.md) that shows the story.
struct Evidence {
  std::string label;     // "float16 accumulation"
  nlohmann::json setup;  // the experiment file, read by experiment::run_experiment_file
  // Where runs make figures of the same name, the few words their tabs name this run by ("TF32
  // on"); empty: the label, less what the runs' labels share.
  std::string tab;
};

enum class CheckKind : uint8_t {
  Promote,     // what a framework does with a call: "float64" or "RuntimeError: <message>"
  Cast,        // a value rounded into a float format: the value it becomes
  IntCast,     // a value converted into an integer dtype: the integer it becomes
  RunningSum,  // count copies of a value summed one by one in a format: where the sum ends
  Metric,      // a number in an evidence run's result.json, against bounds or another number
  Api,         // a one-line PyTorch snippet (x.to_(...)): the dtype it leads to, or its exception
  Peak,        // a GPU's published peak for a dtype, or the ratio of two (core/backend/peak_rates)
  Sum,         // float32 terms summed under an accumulation model (experiment::dot): the sum
};
std::string_view check_kind_name(CheckKind k);  // the JSON key: "promote", "cast", ..., "sum"

// A number in evidence run `evidence`'s result JSON at `pointer` (RFC 6901).
struct MetricRef {
  size_t evidence = 0;
  std::string pointer;
};

// What a metric must be: within [min, max], and/or above (below) factor times another metric,
// plus `plus` (decibels compare by difference: "3 dB above" is plus 3, not a factor).
struct Bounds {
  std::optional<double> min, max;
  std::optional<MetricRef> above, below;
  double factor = 1;
  double plus = 0;
};

struct Check {
  std::string id;     // unique in the scenario; the reference script's key is name/id
  std::string label;  // what a student reads: "50/49 computed in float16"
  CheckKind kind = CheckKind::Cast;
  nlohmann::json params;              // the kind's object, as written
  std::optional<std::string> expect;  // exact answer (every kind but Metric)
  Bounds bounds;                      // Metric
  MetricRef metric;                   // Metric
  std::string derivation;             // the hand derivation; empty: the reference script computes it
};

// A number or comparison the story or look-at states in words ("about 1e-5 per element"):
// `says` is that phrase, verbatim; the value behind it is recorded by an executed script
// (tests/data/scenarios/gen_facts.py, which runs NumPy, ml_dtypes and PyTorch) in facts.json,
// and must lie in [min, max] or equal `equals`. The scenario tests read both files.
struct Fact {
  std::string id;    // unique in the scenario; the facts file's key is name/id
  std::string says;  // the words in the story, the look-at or a check's derivation that state it
  std::optional<double> min, max;
  std::optional<std::string> equals;
};

struct Scenario {
  std::string name;  // the file's stem: "float16-overflow"
  std::string title;
  std::string story;    // two or three sentences
  std::string look_at;  // what to look at in the evidence
  // The figure the look-at points to, which the window shows first: {"evidence": N, "figure":
  // "error-vs-k"} in the file; running the scenario checks that the evidence makes it.
  struct FigureRef {
    size_t evidence = 0;
    std::string figure;
  };
  std::optional<FigureRef> look_at_figure;
  // Links the look-at offers to another panel, in the state the text points at:
  //   {"label": "mul", "panel": "promotion", "framework": "torch", "op": "mul"} (optional
  //   "b_kind", "compare_with" (an engine id), "select": "A,B");
  //   {"label": "0.1 in float32", "panel": "formats", "value": "0.1", "row": "float32"};
  //   {"label": "the checkpoint", "panel": "checkpoint", "checkpoint": "checkpoints/x.safetensors",
  //   "candidates": "int8:per-channel,float4_e2m1fn:mx"} (optional candidates; a relative path is
  //   the scenario file's folder's, as in evidence setups);
  //   {"label": "through float32", "panel": "formats", "value": "0x1.1000000001p+0", "path":
  //   "via-float32"}: the Formats panel casting through float32 first, as PyTorch does;
  //   {"label": "the MX run", "panel": "experiment", "evidence": 1, "figure": "scale-map"}: that
  //   evidence's setup opened in the Experiment panel, the figure brought forward.
  // Every name is checked when the scenario is read.
  struct PanelLink {
    std::string label;
    std::string panel;                                        // "promotion", "formats" or "checkpoint"
    std::string framework, op, b_kind, compare_with, select;  // promotion
    std::string a_device, b_device;                           // promotion: where a and b live
    std::string bias;                                         // promotion: the bias dtype
    std::string b_value;                                      // promotion: a zero-dim or scalar b's value
    std::string value;                                        // formats: the value typed
    std::string path;                                         // formats: "direct" or "via-float32"
    std::optional<DType> row;                                 // formats: the row marked
    std::string checkpoint, candidates;                       // checkpoint: the one scanned, with what
    FigureRef evidence;                                       // experiment: the evidence run and its figure
    nlohmann::json setup;                                     // experiment: that evidence's setup
  };
  std::vector<PanelLink> look_at_panels;
  std::string panel;  // where the window shows it: "experiment", "promotion", "formats", "throughput", "checkpoint"
  std::vector<Evidence> evidence;
  std::vector<Check> checks;
  std::vector<Fact> facts;
  std::string source;  // the file it was read from
};

// Every key checked (an unknown key, a bad dtype, a check without an expectation is an error
// naming the key); evidence setups are checked when run.
Expected<Scenario> scenario_from_json(const nlohmann::json& j, const std::string& name);
// Read from a file: files that evidence setups ("checkpoint", "activations") and links name by a
// relative path are the scenario file's folder's, so a scenario ships with its data.
Expected<Scenario> load_scenario(const std::string& path);

}  // namespace pl::scenario
