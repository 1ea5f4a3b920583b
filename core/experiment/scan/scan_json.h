// A scan's results as JSON (the `scan --json` object and an --out folder's result.json, which
// `scan --merge` reads back) and as CSV tables. Figures that are not finite (an SQNR of a
// candidate that keeps the tensor exactly, an error with an Inf in it) are written as null in
// JSON and as inf or -inf in CSV. Read back, a null error is Inf (errors are never negative), and
// the SQNR, the normwise error and the bits per parameter are computed again from the energies,
// the shape and the candidate, so that they cannot disagree with them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/scan/checkpoint_scan.h"
#include "core/experiment/scan/precision_plan.h"
#include "core/util/expected.h"

namespace pl::experiment {

// A plan with what it was made for.
struct PlanReport {
  double budget = 0;
  Plan plan;
  std::vector<std::string> pins;  // "NAME=CANDIDATE" as given
  // With activations: the plan the weights' own errors choose within the same budget and pins,
  // its error energy the outputs' -- what scoring by the outputs gains over it.
  std::optional<PlanPoint> by_weights_alone;
};

// The plan for `budget` with its pins, and with activations the weights-alone plan beside it.
Expected<PlanReport> plan_report(const ScanResult& r, double budget, const std::vector<std::string>& pins);

nlohmann::json scan_to_json(const ScanResult& r, const std::vector<PlanPoint>& frontier,
                            const std::optional<PlanReport>& plan);
// A result.json read back: the checkpoint, candidates, tensors and skipped (not the plan).
Expected<ScanResult> scan_from_json(const nlohmann::json& j, const std::string& what);

// Several scans of parts of one checkpoint as one: the same candidates in the same order, no
// tensor twice. A refusal names a part by `names` (its file), else as "part N".
Expected<ScanResult> merge_scans(std::vector<ScanResult> parts, const std::vector<std::string>& names = {});

// One row per tensor and candidate: name, layer, role, shape, params, stored dtype, the
// tensor's statistics and the candidate's figures (and its output's, with activations).
std::string scan_csv(const ScanResult& r);
// One row per tensor: name, params, candidate chosen, bits per parameter, SQNR, error energy
// (the output's, named so, with activations).
std::string plan_csv(const ScanResult& r, const PlanReport& p);
// One row per frontier point: bits per parameter, total error energy, total SQNR in dB.
std::string frontier_csv(const ScanResult& r, const std::vector<PlanPoint>& frontier);

// The plan's items from a scan (`pins` chosen by the user: NAME=CANDIDATE, NAME exact), each
// candidate weighed by its scored error (the layer's output error when the scan had activations);
// kNothingToPlan where no tensor has a finite element (its "error" would read as none at all).
Expected<std::vector<PlanItem>> plan_items(const ScanResult& r, const std::vector<std::string>& pins);
inline constexpr const char* kNothingToPlan = "no scanned tensor has a finite element: there is nothing to plan";
// The pins as (tensor, candidate) indexes into `names` and `candidates` (canonical spellings);
// an error names the pin that is wrong.
Expected<std::vector<std::pair<size_t, size_t>>> resolve_pins(const std::vector<std::string>& names,
                                                              const std::vector<std::string>& candidates,
                                                              const std::vector<std::string>& pins);
// The fewest average bits per parameter any plan can spend on tensors of these shapes: known
// before the scan, so that a budget below it is refused before any work.
double cheapest_bits(const std::vector<std::vector<size_t>>& shapes, const std::vector<Candidate>& candidates);
// The whole checkpoint's SQNR for a total error energy: 10 log10(sum ||x||^2 / error), or with
// the outputs' energies sum ||X W^T||^2 when the scan had activations.
double total_sqnr_db(const ScanResult& r, double error);
// What a whole-checkpoint SQNR hides where one tensor holds most of the energy it is taken over
// (a pooled SQNR is then mostly that tensor's: a synthetic checkpoint's float8-stored v_proj,
// exact under float8_e4m3fn per-tensor, gives that candidate 53 dB where its other tensors score
// 31): "NAME holds 95% of the energy"; empty where no tensor holds more than half.
std::string dominant_energy_text(const ScanResult& r);
// What the pooled SQNR of a plan (`choice`, a candidate per tensor) hides of its tensors: the
// worst one's SQNR and name, and the SQNR half the tensors are at or below (the lower middle
// one), "the worst 18.6 dB (a.weight); half at 20.4 dB or less"; empty for fewer than two
// scored tensors.
std::string plan_tensors_text(const ScanResult& r, const std::vector<size_t>& choice);
// The tensors holding an Inf or a NaN, whose figures leave those elements out: "2 tensors hold
// Inf or NaN elements, left out of every figure: a.weight (all 64: not scored), b.weight (2 of
// 64)"; empty where none does. (Else an all-NaN tensor would read "exact" under every candidate,
// without a word.)
std::string nonfinite_text(const ScanResult& r);
// Whether the tensor has a finite element to be scored on: without one its figures are empty.
inline bool has_finite_elements(const TensorScan& t) { return t.stats.nonfinite < t.params; }
// An SQNR for tables: one decimal, "exact" for +Inf (no error).
std::string sqnr_text(double db);
// The same with its unit, for sentences and keys: "54.6 dB", or "exact".
std::string sqnr_db_text(double db);

}  // namespace pl::experiment
