#include "core/scenario/scenario_run.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "core/figure/experiment_figures.h"
#include "core/scenario/probe.h"
#include "core/util/number_text.h"

namespace pl::scenario {
namespace {

using nlohmann::json;

// A scenario's own bound, as written: 4 digits where they hold it, else as many as it takes
// (at 4 digits alone, the bound 1.0001 of "within 0.01%" would print as "at most 1").
std::string bound_text(double x) {
  for (int d = 4; d < 17; ++d)
    if (std::strtod(check_number_text(x, d).c_str(), nullptr) == x) return check_number_text(x, d);
  return check_number_text(x, 17);
}

// The number a check's text states ("0.1428..." states 0.1428).
double text_value(std::string text) {
  if (const size_t dots = text.find("..."); dots != std::string::npos) text.erase(dots, 3);
  return std::strtod(text.c_str(), nullptr);
}

// How many digits an observed value takes: 4, or more where 4 would read as on the other side
// of a bound or on it ("1" against "at most 1.0001" is fine; 1.00012 must not read "1"). The
// limits another metric makes are written with as many: an observed 5.1024e-4 below a limit of
// 5.1026e-4 would otherwise read "0.0005102" below "0.0005102".
int observed_digits(double x, const Bounds& b, const std::vector<double>& limits) {
  for (int d = 4; d < 17; ++d) {
    const double shown = std::strtod(check_number_text(x, d).c_str(), nullptr);
    bool misleads = false;
    for (const std::optional<double>& edge : {b.min, b.max})
      if (edge && ((shown <= *edge) != (x <= *edge) || (shown >= *edge) != (x >= *edge))) misleads = true;
    for (const double limit : limits) {
      const double edge = text_value(limit_text(limit, d));
      if ((shown < edge) != (x < limit) || (shown > edge) != (x > limit)) misleads = true;
    }
    if (!misleads) return d;
  }
  return 17;
}

// The number at ref's pointer in its evidence's result.json.
Expected<double> read_metric(const std::vector<EvidenceRun>& evidence, const MetricRef& ref) {
  const EvidenceRun& e = evidence[ref.evidence];
  if (!e.run) return Error{"evidence " + std::to_string(ref.evidence) + " did not run: " + e.error};
  const json::json_pointer p(ref.pointer);
  if (!e.run->result.contains(p)) return Error{"evidence " + std::to_string(ref.evidence) + " has no " + ref.pointer};
  const json& v = e.run->result[p];
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {  // inf and nan are written as strings
    if (auto x = parse_number(v.get<std::string>())) return *x;
  }
  return Error{ref.pointer + " is not a number"};
}

std::string ref_text(const MetricRef& r) { return "evidence " + std::to_string(r.evidence) + " " + r.pointer; }

}  // namespace

std::string check_number_text(double x, int digits) {
  char text[40];
  if (x == std::trunc(x) && std::fabs(x) < 1e9) {
    std::snprintf(text, sizeof text, "%.0f", x == 0 ? 0.0 : x);
    return text;
  }
  std::string shown = significant_text(x, digits);
  // "31" for 31.0039: the zeros that say it is not whole, and a digit more where "%#g" would end
  // in a bare point ("1234." for 1234.4).
  for (int d = digits; std::isfinite(x) && x != std::trunc(x) && shown.find_first_of(".e") == std::string::npos &&
                       d <= 17;
       ++d) {
    std::snprintf(text, sizeof text, "%#.*g", d, x);
    shown = text;
    if (shown.back() == '.') shown = significant_text(x, d + 1);
  }
  return shown;
}

std::string limit_text(double x, int digits) {
  const std::string near = check_number_text(x, digits);
  if (!std::isfinite(x) || std::strtod(near.c_str(), nullptr) == x) return near;
  return leading_digits_text(x, digits);
}

std::string shown_answer(const CheckResult& c, const std::string& answer) {
  if (c.kind != CheckKind::Cast && c.kind != CheckKind::Sum && c.kind != CheckKind::RunningSum) return answer;
  const auto x = parse_number(answer);
  return x ? float64_text(*x) : answer;
}

std::string observed_text(const CheckResult& c) { return c.observed.empty() ? "-" : shown_answer(c, c.observed); }

std::string expected_text(const CheckResult& c) {
  const std::string shown = shown_answer(c, c.expected);
  return c.expectation_derived ? shown + " (" + std::string(kDerivedNote) + ")" : shown;
}

namespace {

CheckResult base_result(const Check& c) {
  CheckResult r;
  r.id = c.id;
  r.label = c.label;
  r.kind = c.kind;
  r.backing = c.derivation.empty() ? "reference script (tests/data/scenarios/gen_reference.py)" : c.derivation;
  r.expectation_derived = !c.derivation.empty() && c.kind != CheckKind::Metric;
  return r;
}

// An exact check's result; "cancelled" once `cancel` is set.
Expected<CheckResult> exact_check(const Check& c, const std::atomic<bool>* cancel) {
  CheckResult r = base_result(c);
  r.expected = *c.expect;
  auto observed = evaluate_probe(c, cancel);
  if (!observed && cancel && cancel->load()) return Error{"cancelled"};
  if (!observed) {
    r.note = observed.error();
    return r;
  }
  r.observed = *observed;
  r.passed = same_answer(r.expected, r.observed);
  return r;
}

CheckResult metric_check(const Check& c, const std::vector<EvidenceRun>& evidence) {
  CheckResult r = base_result(c);
  const Bounds& b = c.bounds;
  std::vector<std::string> parts;
  // In words, not operators: the expected column is read aloud in front of a class.
  // A count that must be none reads "exactly 0" (min = max): "at most 0" of a count reads oddly.
  if (b.min && b.max && *b.min == *b.max) parts.push_back("exactly " + bound_text(*b.min));
  else if (b.min && b.max) parts.push_back("between " + bound_text(*b.min) + " and " + bound_text(*b.max));
  else if (b.min) parts.push_back("at least " + bound_text(*b.min));
  else if (b.max) parts.push_back("at most " + bound_text(*b.max));
  r.sources.push_back(ref_text(c.metric));
  auto x = read_metric(evidence, c.metric);
  if (!x) {
    r.note = x.error();
    r.expected = parts.empty() ? "" : parts.front();
    return r;
  }
  bool ok = std::isfinite(*x) || (b.min && std::isinf(*x) && *x > 0 && !b.max);
  if (b.min && !(*x >= *b.min)) ok = false;
  if (b.max && !(*x <= *b.max)) ok = false;
  struct Limit {
    double value, other;
    bool above;
  };
  std::vector<Limit> limits;
  for (const auto& [other, above] : {std::pair{b.above, true}, std::pair{b.below, false}}) {
    if (!other) continue;
    auto y = read_metric(evidence, *other);
    if (!y) {
      r.note = y.error();
      ok = false;
      continue;
    }
    limits.push_back({b.factor * *y + b.plus, *y, above});
    r.sources.push_back(ref_text(*other));
    if (above ? !(*x > limits.back().value) : !(*x < limits.back().value)) ok = false;
  }
  std::vector<double> limit_values;
  for (const Limit& l : limits) limit_values.push_back(l.value);
  const int digits = observed_digits(*x, b, limit_values);
  r.observed = check_number_text(*x, digits);
  for (const Limit& l : limits) {
    // The limit as a value, then how it is made: "below 0.25 x 0.0013948" would read as a
    // formula to work out in front of a class; "below 0.0003487... (0.25 x 0.0013948...)" does
    // not. The metric it is made from takes a digit more than the limit: a check that shows that
    // metric rounds it to nearest at four digits (2.876e-07), which its leading four digits
    // (2.875...e-07) would contradict, and five agree with (2.8756...e-07).
    std::string how = (b.factor != 1 ? bound_text(b.factor) + " x " : "") + limit_text(l.other, digits + 1);
    if (b.plus != 0) how.append(b.plus > 0 ? " + " : " - ").append(bound_text(std::fabs(b.plus)));
    std::string bound = std::string(l.above ? "above " : "below ") + limit_text(l.value, digits);
    if (b.factor != 1 || b.plus != 0) bound.append(" (").append(how).append(")");
    parts.push_back(std::move(bound));
  }
  for (size_t i = 0; i < parts.size(); ++i) r.expected += (i ? "; " : "") + parts[i];  // ("between a and b" has its own "and")
  r.passed = ok && r.note.empty();
  return r;
}

// Empty when the figure the look-at points to is one its evidence makes; else why not (a renamed
// figure would leave the window showing another while the text points at it).
std::string look_at_error(const Scenario::FigureRef& ref, const std::vector<EvidenceRun>& evidence) {
  const EvidenceRun& e = evidence.at(ref.evidence);
  if (!e.run) return "look_at_figure: evidence " + std::to_string(ref.evidence) + " did not run";
  std::string made;
  for (const figure::Figure& f : figure::experiment_figures(*e.run)) {
    if (f.name == ref.figure) return "";
    made.append(made.empty() ? "" : ", ").append(f.name);
  }
  return "look_at_figure: evidence " + std::to_string(ref.evidence) + " makes no '" + ref.figure + "' (it makes " +
         made + ")";
}

}  // namespace

size_t ScenarioRun::passed_count() const {
  size_t n = 0;
  for (const auto& c : checks) n += c.passed;
  return n;
}

size_t ScenarioRun::evidence_failed() const {
  size_t n = 0;
  for (const auto& e : evidence) n += !e.run;
  return n;
}

std::string checks_summary(const ScenarioRun& r, bool brief) {
  size_t derived = 0;
  for (const auto& c : r.checks) derived += c.expectation_derived;
  std::string s = std::to_string(r.passed_count());
  s += " of ";
  s += std::to_string(r.checks.size());
  s += " checks pass";
  if (derived > 0) {
    const bool all = derived == r.checks.size();
    if (brief) {
      s += (all ? ", all" : ", " + std::to_string(derived)) + " derived";
    } else {
      s += all ? ", all" : ", " + std::to_string(derived) + " of them";
      s += " against answers ";
      s += kDerivedNote;
    }
  }
  if (const size_t failed = r.evidence_failed(); failed > 0)
    s += "; " + std::to_string(failed) + (failed == 1 ? " evidence run" : " evidence runs") + " failed";
  return s;
}

Expected<ExactChecks> evaluate_exact_checks(const Scenario& s, const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  ExactChecks out;
  for (const Check& c : s.checks) {
    if (c.kind == CheckKind::Metric) continue;
    auto r = exact_check(c, cancel);
    if (!r) return Error{r.error()};
    out.checks.push_back(std::move(r).value());
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

Expected<ScenarioRun> run_evidence(const Scenario& s, const std::function<void(double)>& progress,
                                   const std::atomic<bool>* cancel) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  ScenarioRun run;
  run.scenario = s;
  const double share = s.evidence.empty() ? 1.0 : 1.0 / double(s.evidence.size());
  for (size_t i = 0; i < s.evidence.size(); ++i) {
    if (cancel && cancel->load()) return Error{"cancelled"};
    EvidenceRun e;
    e.label = s.evidence[i].label;
    const auto t0 = clock::now();
    auto part = [&](double f) {
      if (progress) progress((double(i) + f) * share);
    };
    auto r = experiment::run_experiment_file(s.evidence[i].setup, part, cancel);
    e.seconds = std::chrono::duration<double>(clock::now() - t0).count();
    if (r) e.run = std::move(r).value();
    else if (r.error() == "cancelled") return Error{"cancelled"};
    else e.error = "evidence '" + e.label + "': " + r.error();
    run.evidence.push_back(std::move(e));
  }
  for (const Check& c : s.checks)
    if (c.kind == CheckKind::Metric) run.checks.push_back(metric_check(c, run.evidence));
  if (s.look_at_figure) run.look_at_error = look_at_error(*s.look_at_figure, run.evidence);
  for (const Scenario::PanelLink& l : s.look_at_panels)
    if (l.panel == "experiment" && run.look_at_error.empty())
      if (std::string e = look_at_error(l.evidence, run.evidence); !e.empty())
        run.look_at_error = "look_at_panels '" + l.label + "': " + e.substr(e.find(':') + 2);
  run.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return run;
}

ScenarioRun with_exact_checks(ScenarioRun evidence_run, const ExactChecks& exact) {
  std::vector<CheckResult> metrics = std::move(evidence_run.checks);
  evidence_run.checks.clear();
  auto metric = metrics.begin();
  auto other = exact.checks.begin();
  for (const Check& c : evidence_run.scenario.checks) {
    if (c.kind == CheckKind::Metric) {
      if (metric != metrics.end()) evidence_run.checks.push_back(std::move(*metric++));
    } else if (other != exact.checks.end()) {
      evidence_run.checks.push_back(*other++);
    }
  }
  evidence_run.seconds += exact.seconds;
  return evidence_run;
}

Expected<ScenarioRun> run_scenario(const Scenario& s, const std::function<void(double)>& progress,
                                   const std::atomic<bool>* cancel) {
  auto run = run_evidence(s, progress, cancel);
  if (!run) return run;
  auto exact = evaluate_exact_checks(s, cancel);
  if (!exact) return Error{exact.error()};
  if (progress) progress(1.0);  // (after the exact checks: a running sum of 1e8 steps takes seconds)
  return with_exact_checks(std::move(run).value(), *exact);
}

json to_json(const ScenarioRun& r) {
  json j = {{"name", r.scenario.name},       {"title", r.scenario.title},        {"story", r.scenario.story},
            {"look_at", r.scenario.look_at}, {"look_at_error", r.look_at_error}, {"passed", r.passed()},
            {"seconds", r.seconds},          {"checks", json::array()},          {"evidence", json::array()}};
  for (const auto& c : r.checks)
    j["checks"].push_back({{"id", c.id},
                           {"label", c.label},
                           {"kind", check_kind_name(c.kind)},
                           {"expected", c.expected},
                           {"observed", c.observed},
                           {"passed", c.passed},
                           {"note", c.note},
                           {"backing", c.backing},
                           {"expectation_derived", c.expectation_derived},
                           {"sources", c.sources}});
  for (const auto& e : r.evidence)
    j["evidence"].push_back(
        {{"label", e.label}, {"kind", e.run ? e.run->kind : ""}, {"error", e.error}, {"seconds", e.seconds}});
  return j;
}

}  // namespace pl::scenario
