// Running a scenario headless: each evidence experiment, then each check against what the app
// computes -- the same run the window shows, the CLI prints and the tests assert.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/spec/experiment_file.h"
#include "core/scenario/scenario.h"

namespace pl::scenario {

struct EvidenceRun {
  std::string label;
  std::optional<experiment::ExperimentRun> run;  // unset when it failed
  std::string error;
  double seconds = 0;
};

struct CheckResult {
  std::string id, label;
  CheckKind kind = CheckKind::Cast;
  std::string expected;  // "1.0205078125", "between 1e-08 and 1e-06", "above 3.1e-06 (10 x 3.1e-07)"
  std::string observed;  // the app's answer, or the metric's value
  bool passed = false;
  std::string note;     // why it could not be evaluated
  std::string backing;  // "reference script" or the derivation
  // An exact answer worked out by hand from the framework's source, which no script recorded
  // (scenario 30's CUDA device errors: no GPU here): the panel and the slides say so beside it.
  bool expectation_derived = false;
  // Where a metric's numbers are read: "evidence 0 /fixes/0/.../normwise_rel", then those it is
  // compared with (for tooltips and result.json, not the table's cells).
  std::vector<std::string> sources;
};

// The expected answer as the slides and `scenario run` show it: marked where it was derived by
// hand, not recorded ("... (derived from the source, not recorded)"; the panel writes "(derived)").
std::string expected_text(const CheckResult& c);
// A check's answer as shown: a cast's, a sum's or a running sum's value by its own digits
// ("0.100000001490116119..." for float32's 0.1: its shortest decimal, 0.10000000149011612,
// which the reference records and the comparison reads, is not the value), any other as it is.
std::string shown_answer(const CheckResult& c, const std::string& answer);
// The observed answer as shown (shown_answer), or "-" when there is none.
std::string observed_text(const CheckResult& c);
inline constexpr std::string_view kDerivedNote = "derived from the source, not recorded";

// A number in a check's text: a whole number below a billion as it is (else a count of 64970
// would read "6.497e+04"); any other with `digits` significant digits, keeping the zeros that say
// it is not whole (else an SQNR of 31.0039 dB would read "31").
std::string check_number_text(double x, int digits = 4);
// A limit another metric makes (and that metric, in how the limit is made): check_number_text
// where its digits hold it exactly, else its own leading digits and "...": to nearest, scenario
// 10's gamma_256 = 1/7 would read "below 0.1429", a looser limit than the check enforces.
std::string limit_text(double x, int digits = 4);

struct ScenarioRun {
  Scenario scenario;
  std::vector<EvidenceRun> evidence;
  std::vector<CheckResult> checks;
  double seconds = 0;
  size_t passed_count() const;
  size_t evidence_failed() const;  // evidence runs that did not run (their error says why)
  std::string look_at_error;       // the look-at's figure is not one the evidence made; empty: it is
  // Every check passed and every evidence run ran: an evidence run no check reads still stands
  // behind the story (its figures are what the slides show).
  bool passed() const { return passed_count() == checks.size() && evidence_failed() == 0 && look_at_error.empty(); }
};

// "12 of 12 checks pass", and how many of them match an answer derived from the source instead
// of one a script recorded: such a match explains, it does not prove ("9 of 9 checks pass, all
// against answers derived from the source, not recorded"; `brief`: "9 of 9 checks pass, all
// derived", for a line that explains the word on hover); then "; 1 evidence run failed" where
// one did not run.
std::string checks_summary(const ScenarioRun& r, bool brief = false);

// Runs every evidence experiment (progress shared out evenly), then every check. A cancelled
// run is an error ("cancelled"); a failing experiment is not: its metric checks fail with the
// reason, and the run does not pass (passed()). run_evidence, then evaluate_exact_checks, then
// with_exact_checks.
Expected<ScenarioRun> run_scenario(const Scenario& s, const std::function<void(double)>& progress = {},
                                   const std::atomic<bool>* cancel = nullptr);

// The exact checks' answers (no evidence is run), in the scenario's order, and the seconds they
// took: most take microseconds, a running sum of 1e8 steps some seconds. The tour shows them while
// the evidence runs. "cancelled" once `cancel` is set.
struct ExactChecks {
  std::vector<CheckResult> checks;
  double seconds = 0;
};
Expected<ExactChecks> evaluate_exact_checks(const Scenario& s, const std::atomic<bool>* cancel = nullptr);

// run_scenario less the exact checks, for a caller that works them out on their own (the tour,
// on a worker of their own, once a scenario is shown): `checks` holds only the metric checks, and
// the run is whole only once with_exact_checks adds the others.
Expected<ScenarioRun> run_evidence(const Scenario& s, const std::function<void(double)>& progress = {},
                                   const std::atomic<bool>* cancel = nullptr);
// The run with `exact`'s checks among its metric checks, in the scenario's order, and their seconds
// added to its own. `exact` is evaluate_exact_checks' answer for the run's scenario.
ScenarioRun with_exact_checks(ScenarioRun evidence_run, const ExactChecks& exact);

// checks.json: the scenario's story and each check with expected, observed and verdict.
nlohmann::json to_json(const ScenarioRun& r);

}  // namespace pl::scenario
