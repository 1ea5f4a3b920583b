// The checkpoint scan as an experiment file: read strictly, written back the same, refused before
// any weight is read for everything `scan` refuses, and run through experiment_file's one door
// to the same figures as scan_checkpoint.
#include "core/experiment/scan/scan_spec.h"

#include <gtest/gtest.h>

#include "core/experiment/spec/experiment_file.h"
#include "core/figure/experiment_figures.h"
#include "tests/core/experiment/checkpoint_test_data.h"

namespace pl::experiment {
namespace {

using nlohmann::json;

json file(const char* extra = "{}") {
  json j = {{"experiment", "scan"}, {"checkpoint", kSharded}, {"candidates", "bfloat16,float4_e2m1fn:mx"}};
  j.update(json::parse(extra));
  return j;
}

// The recipes scan --help lists are the ones a candidate takes: it listed "delayed", which every
// scan refuses (a checkpoint has no earlier steps' amax).
TEST(ScanSpec, TheRecipesListedAreTheOnesACandidateTakes) {
  const std::string names = candidate_recipe_names();
  EXPECT_EQ(names.find("delayed"), std::string::npos) << names;
  EXPECT_FALSE(parse_candidate("float8_e4m3fn:delayed"));
  const auto unknown = parse_candidate("float8_e4m3fn:foo");  // its message lists the same recipes
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("(recipes: " + names + ")"), std::string::npos) << unknown.error();
  for (size_t at = 0; at < names.size();) {
    const size_t end = std::min(names.find(", ", at), names.size());
    const std::string recipe = names.substr(at, end - at);
    at = end + 2;
    // A dtype each recipe takes: floats for none, per-tensor, per-channel, mx and nvfp4; signed
    // integers for symmetric groups, unsigned for the asymmetric recipes.
    const std::string dtype = recipe == "nvfp4"                ? "float4_e2m1fn"
                              : recipe == "group"              ? "int4"
                              : recipe.ends_with("asymmetric") ? "uint4"
                                                               : "float8_e4m3fn";
    EXPECT_TRUE(parse_candidate(dtype + ":" + recipe)) << dtype << ":" << recipe;
  }
}

TEST(ScanSpec, ReadsEveryKeyAndWritesItBack) {
  auto s = scan_spec_from_json(file(R"({"budget": 8, "pins": ["lm_head.weight=bfloat16"], "tensors": "proj",
      "rounding": "rtz", "activations": "a.safetensors", "activation_format": "int8:per-channel",
      "backend": "cpu", "comment": "why"})"));
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->budget, 8);
  EXPECT_EQ(s->pins, std::vector<std::string>{"lm_head.weight=bfloat16"});
  EXPECT_EQ(s->cast.rounding, Rounding::TowardZero);
  auto back = scan_spec_from_json(to_json(*s));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(to_json(*back), to_json(*s));
  // A stochastic scan's seed is read and written back.
  auto st = scan_spec_from_json(file(R"({"rounding": "stochastic", "seed": 7})"));
  ASSERT_TRUE(st) << st.error();
  EXPECT_EQ(st->cast.seed, 7u);
  EXPECT_EQ(to_json(*st)["seed"], 7u);
  EXPECT_NE(scan_spec_from_json(file(R"({"seed": -1})")).error().find("'seed'"), std::string::npos);
}

TEST(ScanSpec, RefusesWhatItCannotRead) {
  const std::pair<const char*, const char*> bad[] = {
      {R"({"colour": "red"})", "unknown key 'colour'"},
      {R"({"budget": -1})", "'budget': must be a positive number"},
      {R"({"budget": "six"})", "'budget': must be a positive number"},
      {R"({"pins": "lm_head.weight=bfloat16"})", "'pins': must be a list"},
      {R"({"candidates": "float8_e4m3fn:sideways"})", "'candidates': candidate 'float8_e4m3fn:sideways'"},
      {R"({"activation_format": "int8:per-channel"})", "needs 'activations'"},
      {R"({"rounding": "sideways"})", "'rounding': 'sideways' is not one of"},
      {R"({"checkpoint": ""})", "'checkpoint': must name a checkpoint"},
      {R"({"seed": 7})", "'seed': seeds stochastic rounding's draws"},  // a seed nothing would draw with
  };
  for (const auto& [extra, fragment] : bad) {
    auto s = scan_spec_from_json(file(extra));
    ASSERT_FALSE(s) << extra;
    EXPECT_NE(s.error().find(fragment), std::string::npos) << s.error();
  }
  json j = file();
  j.erase("checkpoint");
  EXPECT_NE(scan_spec_from_json(j).error().find("needs the checkpoint"), std::string::npos);
}

// Refused before a weight is read: what the command line refuses with exit 2.
TEST(ScanSpec, RefusesBeforeTheScanWhatNoScanCouldDo) {
  const std::pair<const char*, const char*> bad[] = {
      {R"({"budget": 3})", "below the cheapest plan's 4.25"},
      {R"({"pins": ["nope=bfloat16"]})", "no scanned tensor 'nope'"},
      {R"({"tensors": "nothing-matches"})", "matches --tensors"},
      {R"({"checkpoint": "/no/such/checkpoint"})", "does not exist"},
      {R"({"activations": "/no/such/activations"})", "the activations: "},
  };
  for (const auto& [extra, fragment] : bad) {
    auto s = scan_spec_from_json(file(extra));
    ASSERT_TRUE(s) << s.error();
    auto p = prepare_scan(*s);
    ASSERT_FALSE(p) << extra;
    EXPECT_NE(p.error().find(fragment), std::string::npos) << p.error();
  }
}

// Bug: the layers' inputs were read through before the scan with no cancel and no progress: the
// Checkpoint panel's Cancel waited for a large activations file to be read whole, under a bar
// that said "0 of 0 tensors". Each layer's inputs are counted as they are read, and a cancel
// stops the reading.
TEST(ScanSpec, ReadingTheInputsThroughCountsAndStopsOnCancel) {
  json j = file();
  j["activations"] = kCheckpointDir + "/activations.safetensors";
  auto s = scan_spec_from_json(j);
  ASSERT_TRUE(s) << s.error();
  size_t calls = 0, total = 0;
  const auto count = [&](size_t checked, size_t of) {
    EXPECT_EQ(checked, calls);
    ++calls, total = of;
  };
  auto p = prepare_scan(*s, count);
  ASSERT_TRUE(p) << p.error();
  EXPECT_GT(total, 0u);
  EXPECT_EQ(calls, total);
  const std::atomic<bool> cancel{true};
  calls = 0;
  p = prepare_scan(*s, count, &cancel);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), "cancelled");
  EXPECT_EQ(calls, 1u);  // stopped before the first layer's inputs were read
}

TEST(ScanSpec, RunsAsAnExperimentFileWithItsFigures) {
  auto run = run_experiment_file(file(R"({"budget": 6})"));
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->kind, "scan");
  ASSERT_TRUE(run->scan);
  ASSERT_TRUE(run->scan->plans.plan);
  EXPECT_LE(run->scan->plans.plan->plan.point.bits_per_param, 6);
  EXPECT_EQ(run->result["plan"]["budget_bits_per_param"], 6.0);
  EXPECT_EQ(run->result["tensors"].size(), 16u);
  EXPECT_EQ(run->setup["checkpoint"], kSharded);
  const auto figures = figure::experiment_figures(*run);
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_EQ(figures[0].name, "sqnr-heatmap");
  EXPECT_EQ(figures[1].name, "plan-frontier");
  // The same figures as the scan alone.
  auto c = io::open_checkpoint(kSharded);
  ScanOptions o;
  o.candidates = *parse_candidates("bfloat16,float4_e2m1fn:mx");
  auto direct = scan_checkpoint(*c, o);
  ASSERT_TRUE(direct);
  for (size_t t = 0; t < direct->tensors.size(); ++t)
    EXPECT_EQ(run->scan->result.tensors[t].scores[1].error_energy, direct->tensors[t].scores[1].error_energy);
}

}  // namespace
}  // namespace pl::experiment
