// The scenario library: every shipped scenario reads, every expected value is backed by the
// reference script's answer or a derivation, the exact checks pass; the reader rejects bad files
// by naming the key; metric checks can fail.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/experiment/spec/experiment_file.h"
#include "core/scenario/library.h"
#include "core/scenario/probe.h"
#include "core/scenario/scenario_export.h"
#include "core/scenario/scenario_run.h"
#include "core/util/number_text.h"

namespace pl::scenario {
namespace {

using nlohmann::json;

Library shipped() { return load_library({PL_SCENARIO_DIR}, 1); }

TEST(ScenarioLibrary, EveryShippedScenarioReads) {
  const Library lib = shipped();
  for (const auto& e : lib.errors) ADD_FAILURE() << e;
  EXPECT_GE(lib.scenarios.size(), 20u);
  for (const auto& s : lib.scenarios) {
    EXPECT_FALSE(s.story.empty()) << s.name;
    EXPECT_FALSE(s.checks.empty()) << s.name;
  }
}

// The scenario files' answers are not the app's output copied back: each exact check agrees
// with tests/data/scenarios/gen_reference.py (PyTorch, NumPy, an exact rational rounder) or
// carries a hand derivation; metric bounds always carry one (the reader demands it).
TEST(ScenarioLibrary, EveryExpectedValueIsBacked) {
  std::ifstream in(std::string(PL_SCENARIO_REFERENCE));
  ASSERT_TRUE(in) << PL_SCENARIO_REFERENCE;
  const json recorded = json::parse(in);
  ASSERT_TRUE(recorded.contains("versions") && recorded["versions"].contains("torch"));
  const json& ref = recorded["answers"];
  size_t backed_by_script = 0;
  for (const auto& s : shipped().scenarios)
    for (const auto& c : s.checks) {
      if (!c.derivation.empty()) continue;
      ASSERT_NE(c.kind, CheckKind::Metric);
      ASSERT_TRUE(ref.contains(s.name) && ref[s.name].contains(c.id))
          << s.name << "/" << c.id << " has no derivation and no answer in reference.json (run gen_reference.py)";
      EXPECT_TRUE(same_answer(*c.expect, ref[s.name][c.id].get<std::string>()))
          << s.name << "/" << c.id << ": expects " << *c.expect << ", the reference gives " << ref[s.name][c.id];
      ++backed_by_script;
    }
  EXPECT_GE(backed_by_script, 60u);
}

// A number a story states in words ("about 1e-5 per element", "11 significant bits") is a
// fact, recorded by tests/data/scenarios/gen_facts.py from NumPy, ml_dtypes and PyTorch; the
// recorded value must be what the words say.
TEST(ScenarioLibrary, EveryStatedFactIsRecorded) {
  std::ifstream in(std::string(PL_SCENARIO_FACTS));
  ASSERT_TRUE(in) << PL_SCENARIO_FACTS;
  const json recorded = json::parse(in);
  ASSERT_TRUE(recorded.contains("versions") && recorded["versions"].contains("torch"));
  size_t facts = 0;
  for (const auto& s : shipped().scenarios)
    for (const Fact& f : s.facts) {
      SCOPED_TRACE(s.name + "/" + f.id + " ('" + f.says + "')");
      ASSERT_TRUE(recorded["facts"].contains(s.name) && recorded["facts"][s.name].contains(f.id))
          << "no recorded value (run gen_facts.py)";
      const json& v = recorded["facts"][s.name][f.id];
      if (f.equals) {
        EXPECT_TRUE(same_answer(*f.equals, v.is_string() ? v.get<std::string>() : v.dump())) << "recorded " << v;
      } else {
        ASSERT_TRUE(v.is_number()) << v;
        if (f.min) {
          EXPECT_GE(v.get<double>(), *f.min);
        }
        if (f.max) {
          EXPECT_LE(v.get<double>(), *f.max);
        }
      }
      ++facts;
    }
  EXPECT_GE(facts, 30u);
}

// The numbers of a text: digits with an optional fraction, exponent or power of two ("2^-24"),
// leaving out those inside names (float16, e4m3, f32:multiterm:16:2:rtz, 16-bit) and a cited
// year "(2021)". Each comes with its offset.
// `in_names`: a colon joins a name ("f32:multiterm:16:2:rtz" is one word); in the checks' and
// setups' JSON it separates values, so there the parts count.
std::vector<std::pair<size_t, double>> numbers_in(std::string text, bool in_names = true) {
  std::vector<std::pair<size_t, double>> out;
  // A distribution's name, N(0,1) or N(0, 300^2), states no fact: blank it, keeping offsets.
  const std::regex distribution(R"(N\([^()]*\))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), distribution); it != std::sregex_iterator(); ++it)
    std::fill_n(text.begin() + it->position(), it->length(), ' ');
  const std::regex word(in_names ? R"([A-Za-z0-9_.:^+\-]+)" : R"([A-Za-z0-9_.^+\-]+)"),
      number(R"((-?\d+(?:\.\d+)?(?:e-?\d+)?)(?:\^(-?\d+))?x?)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator(); ++it) {
    std::string w = it->str();
    while (!w.empty() && (w.back() == '.' || w.back() == ':' || w.back() == '-')) w.pop_back();
    std::smatch m;
    if (!std::regex_match(w, m, number)) continue;
    const size_t at = static_cast<size_t>(it->position());
    if (w.size() == 4 && at > 0 && text[at - 1] == '(' && at + 4 < text.size() && text[at + 4] == ')') continue;
    const double base = std::stod(m[1].str());
    out.emplace_back(at, m[2].matched ? std::pow(base, std::stod(m[2].str())) : base);
  }
  return out;
}

// Every number in a story or look-at is a recorded fact, a check's value or an evidence
// setup's -- never a number only a hand derivation backs.
// A check's parameters without where its values are read from: the digits of a JSON pointer
// ("/rows/10/stats/mean_abs") and an evidence index back no number in the text (counted, they
// would back any "10" a story states).
json without_addresses(json v) {
  if (v.is_object()) {
    v.erase("pointer");
    v.erase("evidence");
    for (auto& [key, item] : v.items()) item = without_addresses(item);
  } else if (v.is_array()) {
    for (auto& item : v) item = without_addresses(item);
  }
  return v;
}

TEST(ScenarioLibrary, EveryNumberInTheTextIsBacked) {
  for (const auto& s : shipped().scenarios) {
    json parts = json::array();
    for (const auto& c : s.checks)
      parts.push_back(
          {c.label, without_addresses(c.params), c.expect ? without_addresses(json(*c.expect)) : json(nullptr)});
    for (const auto& e : s.evidence) parts.push_back(e.setup);
    std::vector<double> backed;
    for (const auto& [at, v] : numbers_in(parts.dump(), false)) backed.push_back(v);
    for (const std::string* text : {&s.story, &s.look_at})
      for (const auto& number : numbers_in(*text)) {
        // (Named, not a structured binding: clang 14 cannot capture one in a lambda.)
        const size_t at = number.first;
        const double v = number.second;
        const bool in_fact = std::any_of(s.facts.begin(), s.facts.end(), [&](const Fact& f) {
          for (size_t p = text->find(f.says); p != std::string::npos; p = text->find(f.says, p + 1))
            if (at >= p && at < p + f.says.size()) return true;
          return false;
        });
        const bool in_checks = std::any_of(backed.begin(), backed.end(), [&](double b) { return b == v; });
        EXPECT_TRUE(in_fact || in_checks)
            << s.name << ": '" << text->substr(at, 24) << "...' states a number that no fact, "
            << "check or evidence setup backs";
      }
  }
}

TEST(ScenarioLibrary, EveryExactCheckPasses) {
  for (const auto& s : shipped().scenarios) {
    const auto results = evaluate_exact_checks(s);
    ASSERT_TRUE(results) << s.name << ": " << results.error();
    for (const auto& r : results->checks)
      EXPECT_TRUE(r.passed) << s.name << "/" << r.id << ": expected " << r.expected << ", observed " << r.observed
                            << " " << r.note;
  }
}

TEST(ScenarioLibrary, FindsByNameNumberOrShortName) {
  const Library lib = shipped();
  const Scenario* a = find_scenario(lib, "06-float16-50-over-49");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(find_scenario(lib, "6"), a);
  EXPECT_EQ(find_scenario(lib, "06"), a);
  EXPECT_EQ(find_scenario(lib, "float16-50-over-49"), a);
  EXPECT_EQ(find_scenario(lib, "60"), nullptr);
  EXPECT_EQ(find_scenario(lib, "float16"), nullptr);
}

json minimal() {
  return json::parse(R"({"title": "t", "story": "s", "checks": [
      {"id": "c", "label": "l", "cast": {"value": "65520", "dtype": "float16"}, "expect": "inf"}]})");
}

TEST(ScenarioReader, ReadsAMinimalScenario) {
  auto s = scenario_from_json(minimal(), "x");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->checks.size(), 1u);
  EXPECT_EQ(s->panel, "experiment");
}

// A fact backs words the scenario shows: in its story or look-at, or a number a check's
// derivation quotes from an independent run. Words it shows nowhere are refused.
TEST(ScenarioReader, AFactIsSaidByTheStoryTheLookAtOrADerivation) {
  json j = minimal();
  j["checks"][0]["derivation"] = "65520 is float16's midpoint above 65504 (NumPy: inf)";
  j["facts"] = json::parse(R"x([{"id": "f", "says": "(NumPy: inf)", "equals": "inf"}])x");
  auto s = scenario_from_json(j, "x");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->facts.size(), 1u);
  j["checks"][0]["derivation"] = "65520 is float16's midpoint above 65504";
  s = scenario_from_json(j, "x");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("the story, the look-at and the derivations do not say '(NumPy: inf)'"), std::string::npos)
      << s.error();
}

// Bug: a user's scenario printed its texts as written: an escape sequence in its story or a check's
// label reached the terminal as one. A control character other than a line break is refused,
// named by where it is.
TEST(ScenarioReader, RefusesControlCharactersInItsTexts) {
  json j = minimal();
  j["story"] = "one line\nand \x1b[2Jthe next";
  auto s = scenario_from_json(j, "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "'/story' holds the control character \\x1b");
  j = minimal();
  j["checks"][0]["label"] = "tab\there";
  s = scenario_from_json(j, "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "'/checks/0/label' holds the control character \\x09");
  j = minimal();
  j["title"] = "a C1 control \xc2\x9b" "2J";  // U+009B, CSI to some terminals
  s = scenario_from_json(j, "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "'/title' holds the control character U+009B");
  // A key's '/' and '~' are escaped in the pointer (RFC 6901): "a/b" is one key, not two.
  j = minimal();
  j["a/b~c"] = "bell\x07";
  s = scenario_from_json(j, "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "'/a~1b~0c' holds the control character \\x07");
  j = minimal();
  j["story"] = "line breaks\nare fine, and \xc2\xb7 (U+00B7) too";
  EXPECT_TRUE(scenario_from_json(j, "x")) << scenario_from_json(j, "x").error();
}

// Bug: a scenario whose evidence run failed passed when no check read that run: `scenario run`
// printed "evidence 0: x (failed)", exited 0 and said it wrote an evidence folder it had not.
// The run fails, and its summary says why.
TEST(ScenarioRun, AFailedEvidenceRunFailsTheScenario) {
  json j = minimal();
  j["evidence"] = json::parse(R"([{"label": "x", "setup": {"experiment": "matmul", "m": 0}}])");
  auto s = scenario_from_json(j, "x");
  ASSERT_TRUE(s) << s.error();
  auto run = run_scenario(*s);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->passed_count(), run->checks.size());  // the check itself passes
  EXPECT_EQ(run->evidence_failed(), 1u);
  EXPECT_FALSE(run->passed());
  EXPECT_EQ(checks_summary(*run), "1 of 1 checks pass; 1 evidence run failed");
  // The slides' checks table fails it too, with the reason.
  const exporting::SlideDeck deck = exporting::scenario_deck(*run);
  const auto& rows = deck.slides.back().table;
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back()[0], "evidence: x");
  EXPECT_NE(rows.back()[3].find("FAIL: evidence 'x': 'm': must be a positive integer"), std::string::npos)
      << rows.back()[3];
}

// Bug: `run` refuses a sweep estimated past ten minutes without --force, but a scenario's
// evidence ran one (a dot sweep of about 1,500 hours). The reader refuses it by its count of
// products, without running a sample.
TEST(ScenarioReader, EvidenceMustRunAtInteractiveScale) {
  json j = minimal();
  j["evidence"] = json::parse(
      R"([{"label": "x", "setup": {"experiment": "dot", "lengths": [16777216], "trials": 1000000}}])");
  const auto s = scenario_from_json(j, "x");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("evidence[0]: this sweep sums 1.7e+13 products, past 1e+09"), std::string::npos)
      << s.error();
  EXPECT_NE(s.error().find("must run in minutes"), std::string::npos) << s.error();
}

// Tabs named after the evidence's long labels were cut where the runs differed ("roundtrip error:
// float8_e4m3fn, MX (a..."): an evidence run may name its tabs in a few words.
TEST(ScenarioReader, AnEvidenceRunMayNameItsTabsInAFewWords) {
  json j = minimal();
  j["evidence"] = json::parse(R"j([{"label": "float8_e4m3fn, MX (a float8_e8m0fnu scale per 32 values)",
      "tab": "fp8 MX", "setup": {"experiment": "roundtrip", "rows": 4, "cols": 64}},
      {"label": "per-tensor", "setup": {"experiment": "roundtrip", "rows": 4, "cols": 64}}])j");
  auto s = scenario_from_json(j, "x");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->evidence[0].tab, "fp8 MX");
  EXPECT_EQ(s->evidence[1].tab, "");
  for (const char* bad : {R"("")", "3", R"("twenty-five characters ab")"}) {
    j["evidence"][0]["tab"] = json::parse(bad);
    auto refused = scenario_from_json(j, "x");
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error(), "evidence[0]: 'tab' must be a text of 1 to 24 characters");
  }
  j["evidence"][0].erase("tab");
  j["evidence"][0]["tabs"] = "fp8 MX";
  EXPECT_NE(scenario_from_json(j, "x").error().find("with an optional \"tab\""), std::string::npos);
}

// An Experiment-panel link carries its evidence's setup, and running the scenario fails, naming
// the link, when that evidence makes no such figure.
TEST(ScenarioReader, AnExperimentLinkCarriesItsEvidenceAndNamesAFigureItMakes) {
  json j = minimal();
  j["evidence"] = json::parse(R"([{"label": "mx", "setup": {"experiment": "roundtrip", "rows": 4, "cols": 64,
      "dtype": "float8_e4m3fn", "scaling": "mx"}}])");
  j["look_at_panels"] = json::parse(R"([{"label": "scales", "panel": "experiment", "evidence": 0,
      "figure": "scale-map"}])");
  auto s = scenario_from_json(j, "x");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->look_at_panels[0].setup, j["evidence"][0]["setup"]);
  auto run = run_scenario(*s);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->look_at_error, "");
  Scenario renamed = *s;
  renamed.look_at_panels[0].evidence.figure = "no-such-figure";
  run = run_scenario(renamed);
  ASSERT_TRUE(run) << run.error();
  EXPECT_NE(run->look_at_error.find("look_at_panels 'scales': evidence 0 makes no 'no-such-figure'"), std::string::npos)
      << run->look_at_error;
}

// A scenario ships with its data: a checkpoint an evidence setup or a link names by a relative
// path is the scenario file's folder's; an absolute path stays as written.
TEST(ScenarioReader, ResolvesTheFilesItNamesAgainstItsOwnFolder) {
  const std::string dir = (std::filesystem::path(::testing::TempDir()) / "scenario-files").lexically_normal().string();
  std::filesystem::create_directories(dir);
  json j = minimal();
  j["evidence"] = json::parse(R"([
      {"label": "a", "setup": {"experiment": "scan", "checkpoint": "ck/model.safetensors", "activations": "a.safetensors"}},
      {"label": "b", "setup": {"experiment": "scan", "checkpoint": "/data/model.safetensors"}}])");
  j["look_at_panels"] = json::parse(R"([{"label": "c", "panel": "checkpoint", "checkpoint": "ck/model.safetensors"}])");
  {
    std::ofstream out(dir + "/x.json");
    out << j.dump();
  }
  auto s = load_scenario(dir + "/x.json");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->evidence[0].setup["checkpoint"], dir + "/ck/model.safetensors");
  EXPECT_EQ(s->evidence[0].setup["activations"], dir + "/a.safetensors");
  EXPECT_EQ(s->evidence[1].setup["checkpoint"], "/data/model.safetensors");
  EXPECT_EQ(s->look_at_panels[0].checkpoint, dir + "/ck/model.safetensors");
  std::filesystem::remove_all(dir);
}

// An export's evidence folders say what they hold: each its number and its label.
TEST(ScenarioExport, EvidenceFoldersAreNamedAfterTheirLabels) {
  using exporting::evidence_folder;
  EXPECT_EQ(evidence_folder(3, "float4_e2m1fn, MX (MXFP4)"), "evidence-3-float4-e2m1fn-mx-mxfp4");
  EXPECT_EQ(evidence_folder(1, "float8_e4m3fn, MX (a float8_e8m0fnu scale per 32 values)"),
            "evidence-1-float8-e4m3fn-mx-a-float8-e8m0fnu-scale-per-32");
  EXPECT_EQ(evidence_folder(0, "nn.Linear(x: float32) after model.double() of a float32 model, as PyTorch runs it"),
            "evidence-0-nn-linear-x-float32-after-model-double-of-a");  // cut at a word
  EXPECT_EQ(evidence_folder(2, "???"), "evidence-2");
  EXPECT_EQ(evidence_folder(0, "each dtype's product"), "evidence-0-each-dtypes-product");
  EXPECT_EQ(evidence_folder(4, "N(0, 1e5^2) in float16"), "evidence-4-n-0-1e5-2-in-float16");
}

// "Look at" links name a panel and its state; every name is checked when the file is read.
TEST(ScenarioReader, LooksAtPanelsThroughCheckedLinks) {
  json j = minimal();
  j["look_at_panels"] = json::parse(R"([
      {"label": "mul", "panel": "promotion", "framework": "torch", "op": "mul", "b_kind": "scalar", "b_value": "1000"},
      {"label": "0.1", "panel": "formats", "value": "0.1", "row": "float32"},
      {"label": "300.0", "panel": "formats", "value": "300.0", "row": "int8"}])");
  auto s = scenario_from_json(j, "x");
  ASSERT_TRUE(s) << s.error();
  ASSERT_EQ(s->look_at_panels.size(), 3u);
  EXPECT_EQ(s->look_at_panels[0].op, "mul");
  EXPECT_EQ(s->look_at_panels[0].b_value, "1000");
  EXPECT_EQ(s->look_at_panels[1].row, DType::float32);
  EXPECT_EQ(s->look_at_panels[2].row, DType::int8);  // the Formats panel's integer table
  const std::pair<const char*, const char*> bad[] = {
      {R"({"label": "l", "panel": "explorer", "value": "1"})",
       "'panel' must be promotion, formats, checkpoint or experiment"},
      {R"({"label": "l", "panel": "experiment", "evidence": 0})", "takes 'evidence' and 'figure'"},
      {R"({"label": "l", "panel": "experiment", "evidence": "0", "figure": "f"})", "'evidence' must be"},
      {R"({"label": "l", "panel": "experiment", "evidence": 5, "figure": "f"})", "evidence 5 does not exist"},
      {R"({"label": "l", "panel": "formats", "value": "1", "figure": "f"})", "are for the experiment panel"},
      {R"({"label": "l", "panel": "promotion", "framework": "pytorch2", "op": "mul"})", "unknown engine 'pytorch2'"},
      {R"({"label": "l", "panel": "promotion", "framework": "numpy", "op": "linear"})", "numpy has no op 'linear'"},
      {R"({"label": "l", "panel": "promotion", "framework": "torch", "op": "addmm"})",
       "'bias': addmm takes a bias: torch.addmm(bias, x, w) has no form without one"},
      {R"({"label": "l", "panel": "promotion", "framework": "torch", "op": "add", "compare_with": "jax",
          "select": "int32"})",
       "'select' takes"},
      {R"({"label": "l", "panel": "formats", "value": "1", "row": "complex64"})", "no row for complex64"},
      {R"({"label": "l", "panel": "promotion", "framework": "numpy", "op": "add", "b_value": "1000"})",
       "'b_value' is for a zero-dim or scalar b"},
      {R"({"label": "l", "panel": "promotion", "framework": "numpy", "op": "add", "b_kind": "scalar",
          "b_value": "lots"})",
       "'b_value': 'lots' is not a Python"},
      {R"({"label": "l", "panel": "formats", "value": "1", "b_value": "2"})", "the formats panel takes"},
      {R"({"label": "l", "panel": "formats"})", "'value' is required"},
      {R"({"panel": "formats", "value": "1"})", "'label' is required"},
      {R"({"label": "l", "panel": "formats", "value": "1", "colour": "red"})", "unknown key 'colour'"},
      {R"({"label": "l", "panel": "checkpoint"})", "takes 'checkpoint' and 'candidates'"},
      {R"({"label": "l", "panel": "checkpoint", "checkpoint": "c.safetensors", "value": "1"})",
       "takes 'checkpoint' and 'candidates'"},
      {R"({"label": "l", "panel": "checkpoint", "checkpoint": "c.safetensors", "candidates": "int3"})",
       "'candidates': "},
      {R"({"label": "l", "panel": "formats", "value": "1", "checkpoint": "c.safetensors"})",
       "'checkpoint' and 'candidates' are for the checkpoint panel"},
  };
  for (const auto& [link, fragment] : bad) {
    j["look_at_panels"] = json::array({json::parse(link)});
    auto r = scenario_from_json(j, "x");
    ASSERT_FALSE(r) << link;
    EXPECT_NE(r.error().find(fragment), std::string::npos) << r.error();
    EXPECT_NE(r.error().find("look_at_panels[0]"), std::string::npos) << r.error();
  }
}

TEST(ScenarioReader, RejectsBadFilesNamingTheKey) {
  auto expect_error = [](json j, const std::string& name, const std::string& fragment) {
    auto s = scenario_from_json(j, name);
    ASSERT_FALSE(s) << j.dump();
    EXPECT_NE(s.error().find(fragment), std::string::npos) << s.error();
  };
  json j = minimal();
  j["colour"] = "red";
  expect_error(j, "x", "unknown key 'colour'");
  j = minimal();
  j["checks"][0]["cast"]["dtype"] = "float17";
  expect_error(j, "x", "'dtype'");
  j = minimal();
  j["checks"][0].erase("expect");
  expect_error(j, "x", "'expect' is required");
  j = minimal();
  j["name"] = "other";
  expect_error(j, "x", "the file is x.json");
  j = minimal();
  j["checks"].push_back(j["checks"][0]);
  expect_error(j, "x", "appears twice");
  j = minimal();
  j["checks"][0] = json::parse(
      R"({"id": "m", "label": "l", "metric": {"evidence": 0, "pointer": "/flushed"}, "expect": {"max": 1}})");
  expect_error(j, "x", "need a 'derivation'");
  j["checks"][0]["derivation"] = "d";
  expect_error(j, "x", "evidence 0 does not exist");
  j = minimal();
  j["checks"][0]["promote"] = {{"op", "linear"}, {"a", "float32"}, {"b", "float64"}};
  expect_error(j, "x", "more than one of");
  j = minimal();
  j["checks"][0] = json::parse(
      R"({"id": "s", "label": "l", "running_sum": {"value": "1", "count": "10", "dtype": "bfloat16"}, "expect": "10"})");
  expect_error(j, "x", "'count' must be a positive integer");
  j = minimal();
  j["checks"][0] = json::parse(
      R"({"id": "p", "label": "l", "peak": {"part": "H100 SXM5", "dtype": "bfloat16"}, "expect": "989.4"})");
  expect_error(j, "x", "a peak check needs a 'derivation'");
  j["checks"][0]["derivation"] = "d";
  j["checks"][0]["peak"]["part"] = "H300";
  expect_error(j, "x", "'part': no 'H300' in the peak table");
  j = minimal();
  j["checks"][0] = json::parse(
      R"({"id": "m", "label": "l", "sum": {"terms": "1, 0x1p-24", "accumulate": "f32:multiterm:4:0:rtz"}, "expect": "1"})");
  expect_error(j, "x", "a sum check needs a 'derivation'");
  j["checks"][0]["derivation"] = "d";
  j["checks"][0]["sum"]["accumulate"] = "f32:multiterm:4:99";
  expect_error(j, "x", "'accumulate':");
}

// A scenario's running sum may ask for 1e8 steps, some seconds: the tour works its exact checks
// out on a worker, and a scenario chosen meanwhile stops them.
TEST(ScenarioProbe, ALongRunningSumStopsWhenCancelled) {
  Check c;
  c.kind = CheckKind::RunningSum;
  c.params = json::parse(R"({"value": "1", "count": 100000000, "dtype": "float64"})");
  const std::atomic<bool> cancel{true};
  const auto r = evaluate_probe(c, &cancel);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "cancelled");

  Scenario s;
  s.checks.push_back(c);
  s.checks.back().expect = "100000000";
  const auto exact = evaluate_exact_checks(s, &cancel);
  ASSERT_FALSE(exact);
  EXPECT_EQ(exact.error(), "cancelled");
  const auto run = run_scenario(s, {}, &cancel);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error(), "cancelled");
}

// Reading a scenario file checks each probe's parameters by the probe's own reading, but a running
// sum takes one step there, not its count.
TEST(ScenarioProbe, CheckingAProbesParametersReportsWhatEvaluatingWould) {
  auto checked = [](CheckKind kind, const char* params) {
    Check c;
    c.kind = kind;
    c.params = json::parse(params);
    const Status ok = check_probe(c);
    const auto r = evaluate_probe(c);
    EXPECT_EQ(bool(ok), bool(r)) << params;
    return ok ? std::string("ok") : ok.error();
  };
  EXPECT_EQ(checked(CheckKind::RunningSum, R"({"value": "1", "count": 1000, "dtype": "bfloat16"})"), "ok");
  EXPECT_EQ(checked(CheckKind::RunningSum, R"({"value": "1", "count": 0, "dtype": "bfloat16"})"),
            "'count' must be between 1 and 100000000");
  EXPECT_EQ(checked(CheckKind::RunningSum, R"({"value": "1", "count": 10, "dtype": "bfloat17"})").substr(0, 8),
            "'dtype':");
  EXPECT_EQ(checked(CheckKind::Cast, R"({"value": "1/", "dtype": "float16"})").substr(0, 8), "'value':");
}

// A probe's answer to the parameters, or "error: ..." where it refuses them.
std::string probe(CheckKind kind, const char* params) {
  Check c;
  c.kind = kind;
  c.params = json::parse(params);
  auto r = evaluate_probe(c);
  return r ? *r : "error: " + r.error();
}

// Bug: a cast check's "A/B" or "A*B" was formed in float64 and rounded again, so directed
// roundings answered for the float64 value (1/3 rounded up came out below 1/3); a running sum
// rounded each step's float64 sum, wrong for float64 itself under directed rounding (0.1 added
// ten times, rounded up, came out below 1); an integer literal of 20 digits (uint64's largest)
// went through float64 and wrapped to 0. The answers below are Python's Fraction arithmetic.
TEST(ScenarioProbe, ExpressionsAndSumsAreRoundedOnceFromTheirExactValues) {
  EXPECT_EQ(probe(CheckKind::Cast, R"({"value": "1/3", "dtype": "float64", "rounding": "up"})"), "0.33333333333333337");
  EXPECT_EQ(probe(CheckKind::Cast, R"({"value": "1/3", "dtype": "float64", "rounding": "down"})"),
            "0.3333333333333333");
  // 1 - 2^-60 exactly: toward zero into float16 it is 1 - 2^-11, not the float64 product's 1.
  EXPECT_EQ(probe(CheckKind::Cast, R"({"value": "0x1.00000004p+0*0x1.fffffff8p-1", "dtype": "float16",
                                       "rounding": "rtz"})"),
            "0.99951171875");
  EXPECT_EQ(probe(CheckKind::RunningSum, R"({"value": "0.1", "count": 10, "dtype": "float64", "rounding": "up"})"),
            "1.0000000000000007");
  EXPECT_EQ(probe(CheckKind::RunningSum, R"({"value": "0.1", "count": 10, "dtype": "float64"})"), "0.9999999999999999");
  EXPECT_EQ(probe(CheckKind::IntCast, R"({"value": "18446744073709551615", "to": "uint64"})"), "18446744073709551615");
  EXPECT_EQ(probe(CheckKind::IntCast, R"({"value": "18446744073709551616", "to": "uint64"})"), "0");  // 2^64: a float
  // Past float64's largest the value is still finite: toward zero it is each format's largest.
  EXPECT_EQ(probe(CheckKind::Cast, R"({"value": "1e200*1e200", "dtype": "float32", "rounding": "rtz"})"),
            "3.4028234663852886e+38");
  EXPECT_EQ(probe(CheckKind::Cast, R"({"value": "1e200*1e200", "dtype": "float64", "rounding": "rtz"})"),
            "1.7976931348623157e+308");
  EXPECT_EQ(probe(CheckKind::Cast, R"({"value": "1e200*1e200", "dtype": "float64"})"), "inf");
  EXPECT_EQ(probe(CheckKind::RunningSum, R"({"value": "1e308", "count": 2, "dtype": "float64", "rounding": "rtz"})"),
            "1.7976931348623157e+308");
  EXPECT_NE(probe(CheckKind::Cast, R"({"value": "1e-200*1e-200", "dtype": "float16", "rounding": "up"})")
                .find("subnormal range"),
            std::string::npos);
}

TEST(ScenarioProbe, AnswersInTheirShortestSpelling) {
  EXPECT_EQ(probe(CheckKind::Cast, R"({"value": "50/49", "dtype": "float16"})"), "1.0205078125");
  EXPECT_EQ(probe(CheckKind::Cast, R"({"value": "65520", "dtype": "float16", "overflow": "saturate"})"), "65504");
  EXPECT_EQ(probe(CheckKind::IntCast, R"({"value": "200", "to": "int8"})"), "-56");
  EXPECT_EQ(probe(CheckKind::IntCast, R"({"value": "-2.7", "to": "int32"})"), "-2");
  EXPECT_EQ(probe(CheckKind::RunningSum, R"({"value": "1", "count": 1000, "dtype": "bfloat16"})"), "256");
  EXPECT_EQ(probe(CheckKind::Promote, R"({"framework": "numpy", "op": "matmul", "a": "float32", "b": "float64"})"),
            "float64");
  EXPECT_NE(probe(CheckKind::Promote, R"({"framework": "torch", "op": "frobnicate", "a": "float32", "b": "float64"})")
                .find("has no op"),
            std::string::npos);
  EXPECT_NE(probe(CheckKind::Cast, R"({"value": "1/", "dtype": "float16"})").find("error"), std::string::npos);
  EXPECT_EQ(probe(CheckKind::Peak, R"({"part": "H100 SXM5", "dtype": "tf32"})"), "494.7");
  EXPECT_EQ(probe(CheckKind::Peak, R"({"part": "NVIDIA H100 80GB HBM3", "dtype": "bfloat16", "over": "float32"})"),
            "14.8");
  EXPECT_EQ(probe(CheckKind::Peak, R"({"part": "A100 SXM4", "dtype": "float8_e5m2", "over": "float32"})"),
            "the A100 SXM4 has no float8_e5m2 arithmetic");
  EXPECT_EQ(probe(CheckKind::Peak, R"({"part": "H100 SXM5", "dtype": "bfloat16", "per": "x"})"),
            "error: unknown key 'per'");
  // Sums under a model: a float32 loop rounding to nearest, and a block adder keeping carries.
  EXPECT_EQ(probe(CheckKind::Sum, R"({"terms": "1, 0x1p-24, 0x1p-24", "accumulate": "f32:sequential"})"), "1");
  EXPECT_EQ(probe(CheckKind::Sum, R"({"terms": "1, 0x1p-24, 0x1p-24", "accumulate": "f32:multiterm:4:1"})"),
            "1.0000001192092896");
  EXPECT_EQ(probe(CheckKind::Sum, R"({"terms": "0.1, 1", "accumulate": "f32:sequential"})"),
            "error: 'terms': 0.1 is not a float32 number (the models' products must be exact)");
  EXPECT_EQ(probe(CheckKind::Sum, R"({"terms": "1,, 2", "accumulate": "f32:sequential"})").rfind("error: 'terms':", 0),
            0u);
  EXPECT_EQ(probe(CheckKind::Sum, R"({"terms": "", "accumulate": "f32:sequential"})").rfind("error: 'terms'", 0), 0u);
}

TEST(ScenarioProbe, SameAnswerComparesNumbersAsNumbers) {
  EXPECT_TRUE(same_answer("65504", "65504.0"));
  EXPECT_TRUE(same_answer("nan", "-nan"));
  EXPECT_FALSE(same_answer("0", "-0"));
  EXPECT_FALSE(same_answer("1", "1.0000001"));
  EXPECT_TRUE(same_answer("float32", "float32"));
  EXPECT_FALSE(same_answer("float32", "float64"));
}

json with_evidence(const char* expect) {
  json j = minimal();
  j["evidence"] = json::parse(R"([{"label": "f16", "setup": {"experiment": "roundtrip", "rows": 8, "cols": 64,
      "dtype": "float16", "data": {"distribution": "normal", "scale": 1e-7}, "seed": 1}}])");
  j["checks"].push_back({{"id", "m"},
                         {"label", "flushed"},
                         {"metric", {{"evidence", 0}, {"pointer", "/flushed"}}},
                         {"expect", json::parse(expect)},
                         {"derivation", "d"}});
  return j;
}

// The figure a look-at points to is shown first in the window; running the scenario checks that
// its evidence makes it, and the file cannot point past its evidence.
TEST(ScenarioRun, TheLookAtFigureIsOneTheEvidenceMakes) {
  json j = with_evidence(R"({"min": 1})");
  j["look_at_figure"] = {{"evidence", 0}, {"figure", "roundtrip-range"}};
  auto s = scenario_from_json(j, "x");
  ASSERT_TRUE(s) << s.error();
  auto r = run_scenario(*s);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->look_at_error, "");
  EXPECT_TRUE(r->passed());
  j["look_at_figure"]["figure"] = "error-vs-k";
  r = run_scenario(*scenario_from_json(j, "x"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->look_at_error,
            "look_at_figure: evidence 0 makes no 'error-vs-k' (it makes roundtrip-error, roundtrip-range)");
  EXPECT_FALSE(r->passed());
  j["look_at_figure"]["evidence"] = 1;
  EXPECT_EQ(scenario_from_json(j, "x").error(), "'look_at_figure': evidence 1 does not exist (there are 1)");
  j["look_at_figure"] = "roundtrip-range";
  EXPECT_EQ(scenario_from_json(j, "x").error(), "'look_at_figure' must be {\"evidence\": N, \"figure\": \"NAME\"}");
}

// The tour works a scenario's exact checks out once, on a worker of their own, and its evidence
// run leaves them out: with them, a running sum of 1e8 steps was worked out twice at each visit.
// The whole run puts them back among the metric checks in the scenario's order.
TEST(ScenarioRun, TheEvidenceRunLeavesTheExactChecksToTheirOwnWorker) {
  json j = with_evidence(R"({"min": 1})");  // an exact check "c", then a metric check "m"
  j["checks"].push_back(json::parse(R"({"id": "sum", "label": "1 added 1e8 times", "expect": "100000000",
      "running_sum": {"value": "1", "count": 100000000, "dtype": "float64"}})"));
  auto s = scenario_from_json(j, "x");
  ASSERT_TRUE(s) << s.error();
  auto evidence = run_evidence(*s);  // milliseconds: the 1e8 steps are not taken
  ASSERT_TRUE(evidence) << evidence.error();
  ASSERT_EQ(evidence->checks.size(), 1u);  // the metric check alone
  EXPECT_EQ(evidence->checks[0].id, "m");
  EXPECT_TRUE(evidence->checks[0].kind == CheckKind::Metric);

  Scenario shorter = *s;  // the whole run, kept short
  shorter.checks.back().params["count"] = json::parse("1000");
  shorter.checks.back().expect = "1000";
  evidence = run_evidence(shorter);
  ASSERT_TRUE(evidence) << evidence.error();
  const auto exact = evaluate_exact_checks(shorter);
  ASSERT_TRUE(exact) << exact.error();
  ASSERT_EQ(exact->checks.size(), 2u);
  const ScenarioRun whole = with_exact_checks(*evidence, *exact);
  const auto direct = run_scenario(shorter);
  ASSERT_TRUE(direct) << direct.error();
  ASSERT_EQ(whole.checks.size(), 3u);
  ASSERT_EQ(direct->checks.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(whole.checks[i].id, shorter.checks[i].id);
    EXPECT_EQ(direct->checks[i].id, shorter.checks[i].id);
    EXPECT_EQ(whole.checks[i].observed, direct->checks[i].observed);
    EXPECT_TRUE(whole.checks[i].passed) << whole.checks[i].id << ": " << whole.checks[i].observed;
  }
  EXPECT_GE(whole.seconds, evidence->seconds + exact->seconds);
  EXPECT_TRUE(whole.passed());
}

// The export is a slide deck: one PDF page for the story, one per figure (the look-at's first)
// and one for the checks; the HTML page holds the same, its inlined SVGs' ids kept apart.
TEST(ScenarioExport, WritesASlideDeckAsPdfAndHtml) {
  json j = with_evidence(R"({"min": 1})");
  j["look_at_figure"] = {{"evidence", 0}, {"figure", "roundtrip-range"}};
  auto r = run_scenario(*scenario_from_json(j, "x"));
  ASSERT_TRUE(r) << r.error();
  const exporting::SlideDeck deck = exporting::scenario_deck(*r);
  ASSERT_EQ(deck.slides.size(), 4u);  // story, two figures, checks
  ASSERT_TRUE(deck.slides[1].figure);
  EXPECT_EQ(deck.slides[1].figure->name, "roundtrip-range");  // the look-at's figure first
  EXPECT_EQ(deck.slides[3].table.size(), r->checks.size() + 1);
  const auto dir = std::filesystem::temp_directory_path() / "pl_scenario_deck_test";
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(exporting::save_scenario_run(*r, dir.string()));
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string pdf = read(dir / "slides.pdf"), html = read(dir / "slides.html");
  EXPECT_EQ(pdf.substr(0, 5), "%PDF-");
  size_t pages = 0;
  for (size_t at = pdf.find("/Type /Page %"); at != std::string::npos; at = pdf.find("/Type /Page %", at + 1)) ++pages;
  EXPECT_EQ(pages, 4u);
  size_t sections = 0;
  for (size_t at = html.find("<section>"); at != std::string::npos; at = html.find("<section>", at + 1)) ++sections;
  EXPECT_EQ(sections, 4u);
  EXPECT_NE(html.find("id=\"f1-"), std::string::npos);
  EXPECT_NE(html.find("id=\"f2-"), std::string::npos);
  EXPECT_EQ(html.find("id=\"clip"), std::string::npos);  // every id prefixed by its figure
  EXPECT_NE(html.find("<td>pass</td>"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// A check that matches an answer derived by hand from the framework's source passes, but the
// count says how many of the passes are such (scenario 30's nine were all, and read "9 of 9
// checks pass" as if a script had recorded them).
TEST(ScenarioRun, TheSummarySaysHowManyChecksMatchDerivedAnswers) {
  ScenarioRun r;
  r.checks.resize(3);
  for (auto& c : r.checks) c.passed = true;
  EXPECT_EQ(checks_summary(r), "3 of 3 checks pass");
  r.checks[1].expectation_derived = true;
  r.checks[2].passed = false;
  EXPECT_EQ(checks_summary(r), "2 of 3 checks pass, 1 of them against answers derived from the source, not recorded");
  for (auto& c : r.checks) c.expectation_derived = true;
  EXPECT_EQ(checks_summary(r), "2 of 3 checks pass, all against answers derived from the source, not recorded");
}

// Bug: the panel's toolbar wrapped to two lines in presentation mode at 1280x800 under the whole
// sentence (scenarios 17, 18, 21, 24 and 30). Its brief form says "derived" in a word, and the
// panel gives the sentence on hover.
TEST(ScenarioRun, TheBriefSummarySaysDerivedInAWord) {
  ScenarioRun r;
  r.checks.resize(3);
  for (auto& c : r.checks) c.passed = true;
  EXPECT_EQ(checks_summary(r, true), "3 of 3 checks pass");
  r.checks[1].expectation_derived = true;
  EXPECT_EQ(checks_summary(r, true), "3 of 3 checks pass, 1 derived");
  for (auto& c : r.checks) c.expectation_derived = true;
  EXPECT_EQ(checks_summary(r, true), "3 of 3 checks pass, all derived");
}

// A cast's or a sum's answer is compared by its shortest decimal, which the reference records,
// but shown by its own digits: scenario 26 showed "0.10000000149011612" for float32's 0.1, whose
// value is 0.100000001490116119...; other answers are shown as they are.
TEST(ScenarioRun, AValueAnswerIsShownByItsOwnDigits) {
  CheckResult c;
  c.kind = CheckKind::Cast;
  c.expected = c.observed = "0.10000000149011612";
  EXPECT_EQ(shown_answer(c, c.expected), "0.10000000149011611...");
  EXPECT_EQ(expected_text(c), "0.10000000149011611...");
  EXPECT_EQ(observed_text(c), "0.10000000149011611...");
  EXPECT_EQ(shown_answer(c, "65504"), "65504");
  EXPECT_EQ(shown_answer(c, "inf"), "inf");
  c.kind = CheckKind::Sum;
  EXPECT_EQ(shown_answer(c, "1.0000001192092896"), "1.0000001192092895...");
  c.kind = CheckKind::Peak;  // a vendor's decimal figure
  EXPECT_EQ(shown_answer(c, "989.4"), "989.4");
  c.kind = CheckKind::Promote;
  EXPECT_EQ(shown_answer(c, "float32"), "float32");
  c.observed.clear();
  EXPECT_EQ(observed_text(c), "-");
}

TEST(ScenarioRun, MetricChecksPassAndFail) {
  auto s = scenario_from_json(with_evidence(R"({"min": 1})"), "x");
  ASSERT_TRUE(s) << s.error();
  auto r = run_scenario(*s);
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->checks.size(), 2u);
  EXPECT_TRUE(r->passed()) << r->checks[1].observed;
  // The same measurement against an impossible bound fails: the check can fail.
  s = scenario_from_json(with_evidence(R"({"max": 0})"), "x");
  ASSERT_TRUE(s);
  r = run_scenario(*s);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->checks[1].passed);
  EXPECT_FALSE(r->passed());
  EXPECT_EQ(r->passed_count(), 1u);
}

// Decibels compare by difference: "3 dB above" is plus 3 (scenario 14 said "at least 3 dB above"
// and checked 1.13 times the other's decibels). The metric against itself, plus or minus one.
TEST(ScenarioRun, AMetricAboveAnotherPlusAnOffset) {
  const char* self = R"({"evidence": 0, "pointer": "/flushed"})";
  auto run = [&](const std::string& expect) {
    auto s = scenario_from_json(with_evidence(expect.c_str()), "x");
    EXPECT_TRUE(s) << s.error();
    auto r = run_scenario(*s);
    EXPECT_TRUE(r);
    return r->checks[1];
  };
  const auto below = run(std::string(R"({"below": )") + self + R"(, "plus": 1})");
  EXPECT_TRUE(below.passed) << below.expected;
  EXPECT_NE(below.expected.find(" + 1)"), std::string::npos) << below.expected;
  // The limit first, then how it is made (it read "below 0.25 x 0.001395", a formula to work out).
  EXPECT_EQ(below.expected.rfind("below ", 0), 0u) << below.expected;
  EXPECT_NE(below.expected.find(" ("), std::string::npos) << below.expected;
  EXPECT_FALSE(run(std::string(R"({"above": )") + self + R"(, "plus": 1})").passed);
  EXPECT_TRUE(run(std::string(R"({"above": )") + self + R"(, "plus": -1})").passed);
  json j = with_evidence(R"({"min": 0, "plus": 1})");
  auto bad = scenario_from_json(j, "x");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("apply to 'above' or 'below'"), std::string::npos) << bad.error();
}

// A value below another metric's limit close to it takes, and gives the limit, the digits that
// tell them apart: at 4 the run's 0.176248... read "0.1762" below "0.1762".
TEST(ScenarioRun, AValueAndAMetricsLimitNeverReadTheSame) {
  json j = with_evidence(R"({"below": {"evidence": 0, "pointer": "/stats/normwise_rel"}, "factor": 1.00001})");
  j["checks"].back()["metric"]["pointer"] = "/stats/normwise_rel";
  auto r = run_scenario(*scenario_from_json(j, "x"));
  ASSERT_TRUE(r) << r.error();
  const CheckResult& c = r->checks[1];
  EXPECT_TRUE(c.passed) << c.expected << " / " << c.observed;
  ASSERT_EQ(c.expected.rfind("below ", 0), 0u) << c.expected;
  const std::string limit = c.expected.substr(6, c.expected.find(' ', 6) - 6);
  EXPECT_LT(std::strtod(c.observed.c_str(), nullptr), std::strtod(limit.c_str(), nullptr))
      << c.observed << " below " << limit;
}

// Bug: the metric a limit is made from was cut to its leading four digits, so scenario 01's
// "below 2.875...e-13 (1e-06 x 2.875...e-07)" contradicted the check above it, which shows that
// metric rounded to nearest: "observed 2.876e-07". It takes a digit more than the limit, which
// both readings agree with. Every number of the run's statistics, as the metric of a limit.
TEST(ScenarioRun, TheMetricALimitIsMadeFromAgreesWithItsRoundedReading) {
  json j = with_evidence(R"({"min": 0})");
  auto first = run_scenario(*scenario_from_json(j, "x"));
  ASSERT_TRUE(first && first->evidence[0].run) << (first ? "" : first.error());
  size_t rounded_up = 0;
  for (const auto& [key, value] : first->evidence[0].run->result["stats"].items()) {
    if (!value.is_number_float() || value.get<double>() <= 0) continue;
    const double x = value.get<double>();
    j["checks"].back()["metric"]["pointer"] = "/stats/" + key;
    j["checks"].back()["expect"] = {{"below", {{"evidence", 0}, {"pointer", "/stats/" + key}}}, {"factor", 2}};
    auto r = run_scenario(*scenario_from_json(j, "x"));
    ASSERT_TRUE(r) << r.error();
    const std::string& e = r->checks[1].expected;
    const size_t from = e.find("(2 x ") + 5;
    ASSERT_NE(from, std::string::npos + 5) << e;
    const auto value_of = [](std::string text) {  // "2.875...e-07" as 2.875e-07
      if (const size_t dots = text.find("..."); dots != std::string::npos) text.erase(dots, 3);
      return std::strtod(text.c_str(), nullptr);
    };
    const std::string rounded = check_number_text(x, 4);
    rounded_up += rounded != check_number_text(value_of(leading_digits_text(x, 4)), 4);
    EXPECT_EQ(check_number_text(value_of(e.substr(from, e.find(')', from) - from)), 4), rounded) << key << ": " << e;
  }
  EXPECT_GT(rounded_up, 0u) << "no statistic of the run rounds up at four digits: the test shows nothing";
}

// Bug: a limit another metric makes was rounded to nearest: scenario 10's gamma_256 = 1/7 read
// "below 0.1429", a looser limit than the check enforces. It is written by its own digits where
// four do not hold it.
TEST(ScenarioRun, AMetricsLimitIsWrittenByItsOwnDigits) {
  EXPECT_EQ(limit_text(1.0 / 7), "0.1428...");
  EXPECT_EQ(limit_text(1.0 / 7, 6), "0.142857...");
  EXPECT_EQ(limit_text(0.25), "0.25");  // four digits hold it
  EXPECT_EQ(limit_text(1000), "1000");  // whole
  EXPECT_EQ(limit_text(8.72599e-5), "8.725...e-05");
  EXPECT_EQ(limit_text(5.96081e-07), "5.9608...e-07");  // on past a kept zero
}

// Bug: bounds and values printed at 4 digits: scenario 28's "within 0.01%" read "<= 1" for its
// bound 1.0001, and a value just past a bound could read as inside it. A bound is printed as
// written; a value takes the digits that keep it on its side of the bound. (The run's normwise
// error is 0.176248...)
TEST(ScenarioRun, BoundsAndValuesPrintOnTheSideTheyAreOn) {
  json j = with_evidence(R"({"max": 0.176245})");
  j["checks"].back()["metric"]["pointer"] = "/stats/normwise_rel";
  auto r = run_scenario(*scenario_from_json(j, "x"));
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(r->checks[1].passed);
  EXPECT_EQ(r->checks[1].expected, "at most 0.176245");
  EXPECT_EQ(r->checks[1].observed, "0.17625");  // "0.1762" would read as within the bound
  j["checks"].back()["expect"] = json::parse(R"({"max": 1.0001})");
  r = run_scenario(*scenario_from_json(j, "x"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->checks[1].expected, "at most 1.0001");
  EXPECT_EQ(r->checks[1].observed, "0.1762");
}

// Bug: a count that must be none read "expected at most 0" (scenarios 07 and 16). Equal bounds
// read "exactly".
TEST(ScenarioRun, EqualBoundsReadExactly) {
  json j = with_evidence(R"({"min": 0, "max": 0})");
  j["checks"].back()["metric"]["pointer"] = "/stats/inf";
  auto r = run_scenario(*scenario_from_json(j, "x"));
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->checks[1].passed) << r->checks[1].observed;
  EXPECT_EQ(r->checks[1].expected, "exactly 0");
}

// Bug: a count past 9999 printed at 4 significant digits: scenario 13's fp4 checks read "values
// rounded to zero: observed 6.497e+04, expected at least 6e+04". Whole numbers print whole.
TEST(ScenarioRun, CountsPrintWhole) {
  json j = with_evidence(R"({"min": 12000})");
  j["evidence"][0]["setup"]["rows"] = 256;
  j["evidence"][0]["setup"]["data"]["scale"] = 1e-8;
  auto r = run_scenario(*scenario_from_json(j, "x"));
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->checks[1].passed) << r->checks[1].observed;
  EXPECT_EQ(r->checks[1].expected, "at least 12000");
  EXPECT_GE(r->checks[1].observed.size(), 5u);
  EXPECT_EQ(r->checks[1].observed.find_first_not_of("0123456789"), std::string::npos) << r->checks[1].observed;
}

// Bug: an SQNR of 31.0039 dB printed "31", as if it were whole: a value that is not whole keeps
// the zeros that say so.
TEST(ScenarioRun, ANumberThatIsNotWholeDoesNotReadAsWhole) {
  EXPECT_EQ(check_number_text(31.00391866200345), "31.00");
  EXPECT_EQ(check_number_text(31.0), "31");
  EXPECT_EQ(check_number_text(43.04123), "43.04");
  EXPECT_EQ(check_number_text(6.77199e-4), "0.0006772");
  EXPECT_EQ(check_number_text(-2.99999), "-3.000");
  EXPECT_EQ(check_number_text(1.5e12), "1.5e+12");
  EXPECT_EQ(check_number_text(1234.4), "1234.4");
  EXPECT_EQ(check_number_text(999.97), "999.97");
  EXPECT_EQ(check_number_text(1234567891.0, 12), "1234567891");
  EXPECT_EQ(check_number_text(std::numeric_limits<double>::infinity()), "inf");
}

// Bug: scenario 30's CUDA device errors, worked out from PyTorch's source with no GPU to record
// them, showed as "observed: the same text, pass" like recorded answers. The table, the slides
// and `scenario run` now mark an exact answer derived by hand.
TEST(ScenarioRun, AnAnswerDerivedByHandIsMarkedAsNotRecorded) {
  const Library lib = shipped();
  const Scenario* s = find_scenario(lib, "30");
  ASSERT_NE(s, nullptr);
  auto r = run_scenario(*s);
  ASSERT_TRUE(r) << r.error();
  ASSERT_FALSE(r->checks.empty());
  EXPECT_TRUE(r->checks[0].expectation_derived);
  EXPECT_NE(expected_text(r->checks[0]).find("(derived from the source, not recorded)"), std::string::npos);
  const Scenario* recorded = find_scenario(lib, "06");
  ASSERT_NE(recorded, nullptr);
  auto q = run_scenario(*recorded);
  ASSERT_TRUE(q) << q.error();
  EXPECT_FALSE(q->checks[0].expectation_derived);
  EXPECT_EQ(expected_text(q->checks[0]), q->checks[0].expected);
}

TEST(ScenarioRun, AMissingPointerFailsWithTheReason) {
  json j = with_evidence(R"({"min": 1})");
  j["checks"][1]["metric"]["pointer"] = "/no/such/number";
  auto s = scenario_from_json(j, "x");
  ASSERT_TRUE(s);
  auto r = run_scenario(*s);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->checks[1].passed);
  EXPECT_NE(r->checks[1].note.find("/no/such/number"), std::string::npos);
}

TEST(ScenarioRun, Cancels) {
  auto s = scenario_from_json(with_evidence(R"({"min": 1})"), "x");
  ASSERT_TRUE(s);
  std::atomic<bool> cancel{true};
  auto r = run_scenario(*s, {}, &cancel);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "cancelled");
}

TEST(ScenarioLibraryLoad, ALaterFolderReplacesAScenarioOfTheSameName) {
  const auto dir = std::filesystem::temp_directory_path() / ("pl-scenarios-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  json one = minimal(), two = minimal();
  two["title"] = "mine";
  std::ofstream(dir / "a" / "01-x.json") << one.dump();
  std::ofstream(dir / "b" / "01-x.json") << two.dump();
  std::ofstream(dir / "b" / "02-broken.json") << "{not json";
  const Library lib = load_library({(dir / "a").string(), (dir / "b").string(), (dir / "missing").string()});
  ASSERT_EQ(lib.scenarios.size(), 1u);
  EXPECT_EQ(lib.scenarios[0].title, "mine");
  ASSERT_EQ(lib.errors.size(), 1u);
  EXPECT_NE(lib.errors[0].find("02-broken.json is not valid JSON"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// Bug: a user's scenario whose evidence setup its reader refuses was read, ran, failed, and
// `scenario run` exited 1 (`scenario export` wrote its slides, "no evidence run ran"). Past the
// shipped folders (whose evidence the tests run), each evidence setup is read as `run` reads it,
// and a file with one that does not read is listed with its error, as one with a bad check is.
TEST(ScenarioLibraryLoad, AUsersScenarioWithAnEvidenceSetupThatDoesNotReadIsSkipped) {
  const auto dir = std::filesystem::temp_directory_path() / ("pl-scenarios-setup-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "shipped");
  std::filesystem::create_directories(dir / "user");
  json bad = with_evidence(R"({"min": 1})");
  bad["evidence"][0]["setup"]["rows"] = 0;
  std::ofstream(dir / "user" / "44-bad-setup.json") << bad.dump();
  std::ofstream(dir / "user" / "45-good.json") << with_evidence(R"({"min": 1})").dump();
  const Library lib = load_library({(dir / "shipped").string(), (dir / "user").string()}, 1);
  ASSERT_EQ(lib.scenarios.size(), 1u);
  EXPECT_EQ(lib.scenarios[0].name, "45-good");
  ASSERT_EQ(lib.errors.size(), 1u);
  EXPECT_NE(lib.errors[0].find("44-bad-setup.json: evidence 'f16': 'rows'"), std::string::npos) << lib.errors[0];
  // In a shipped folder it is read as it stands (the tests run its evidence).
  EXPECT_EQ(load_library({(dir / "user").string()}, 1).scenarios.size(), 2u);
  std::filesystem::remove_all(dir);
}

// check_experiment_file reads a setup by its kind's reader and runs nothing: a user's scenario is
// read at start, on the window's thread. Each shipped evidence setup, of every kind, reads; a
// sweep of hours reads at once (run, it would outlast the test's time).
TEST(ScenarioLibraryLoad, EveryKindsSetupIsCheckedWithoutRunning) {
  EXPECT_TRUE(experiment::check_experiment_file(json::parse(
      R"({"experiment": "dot", "lengths": [16777216], "trials": 1000, "accumulate": ["f16:sequential"]})")));
  EXPECT_EQ(experiment::check_experiment_file(json::parse(R"({"experiment": "dot", "lengths": [0]})")).error(),
            experiment::run_experiment_file(json::parse(R"({"experiment": "dot", "lengths": [0]})")).error());
  std::set<std::string> kinds;
  for (const Scenario& s : shipped().scenarios)
    for (const Evidence& e : s.evidence) {
      const Status st = experiment::check_experiment_file(e.setup);
      EXPECT_TRUE(st) << s.name << " / " << e.label << ": " << st.error();
      kinds.insert(experiment::experiment_kind(e.setup));
    }
  for (const experiment::ExperimentKind& k : experiment::experiment_kinds())
    EXPECT_EQ(kinds.count(std::string(k.name)), 1u) << "no shipped evidence of kind " << k.name;
}

}  // namespace
}  // namespace pl::scenario
