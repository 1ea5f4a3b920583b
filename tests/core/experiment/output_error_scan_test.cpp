// The scan scored by the layers' outputs (core/experiment/scan/layer_inputs.h) against the
// output errors NumPy computes for the synthetic checkpoint's linear layers
// (tests/data/checkpoint/gen_checkpoint.py: X @ (q(W) - W).T, and with the inputs in int8 per
// row), and the bad activations files it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/experiment/scan/checkpoint_scan.h"
#include "core/experiment/scan/layer_inputs.h"
#include "core/experiment/scan/scan_json.h"
#include "tests/core/experiment/checkpoint_test_data.h"

namespace pl::experiment {
namespace {

const std::string kActivations = kCheckpointDir + "/activations.safetensors";

ScanOptions options_with_inputs(const nlohmann::json& e) {
  ScanOptions o;
  for (const auto& c : e["candidates"]) o.candidates.push_back(*parse_candidate(c.get<std::string>()));
  auto a = io::open_checkpoint(kActivations);
  EXPECT_TRUE(a) << a.error();
  o.activations = *a;
  return o;
}

// The products run through different BLAS kernels here and in NumPy: the sums agree to a few
// units in the last place of the largest terms, far below any figure shown.
void expect_near_rel(double got, double want, const std::string& what) {
  EXPECT_LE(std::fabs(got - want), 1e-10 * std::fabs(want)) << what << ": " << got << " against " << want;
}

void expect_outputs(const ScanResult& r, const nlohmann::json& e, const char* key) {
  const auto& want = e["outputs"]["tensors"];
  ASSERT_EQ(r.tensors.size(), want.size());
  size_t compared = 0;
  for (const TensorScan& t : r.tensors) {
    ASSERT_TRUE(want.contains(t.name)) << t.name;
    const auto& w = want[t.name];
    EXPECT_EQ(t.input_rows, w["input_rows"].get<size_t>());
    expect_near_rel(t.output_energy, w["output_energy"], t.name + " output energy");
    for (size_t i = 0; i < t.scores.size(); ++i) {
      const double error = w[key][i];
      const CandidateScore& c = t.scores[i];
      if (error == 0) EXPECT_EQ(c.output.error_energy, 0) << t.name << " " << c.candidate;
      else expect_near_rel(c.output.error_energy, error, t.name + " " + c.candidate);
      EXPECT_DOUBLE_EQ(scored_error(r, c), c.output.error_energy);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 15u * e["candidates"].size());
}

TEST(OutputErrorScan, MatchesNumPysOutputErrorsOfEveryLinearLayer) {
  const nlohmann::json e = expected();
  const ScanResult r = scan(options_with_inputs(e));
  EXPECT_TRUE(by_output(r));
  EXPECT_EQ(r.activations, kActivations);
  expect_outputs(r, e, "error_energy");
  // The embedding has no inputs in the file: left out, with the reason.
  const auto embed = std::find_if(r.skipped.begin(), r.skipped.end(),
                                  [](const SkippedTensor& s) { return s.name == "model.embed_tokens.weight"; });
  ASSERT_NE(embed, r.skipped.end());
  EXPECT_EQ(embed->reason, "no model.embed_tokens.input in the activations");
}

TEST(OutputErrorScan, MatchesNumPyWithTheInputsInAFormatToo) {
  const nlohmann::json e = expected();
  ScanOptions o = options_with_inputs(e);
  o.activation_format = *parse_candidate(e["outputs"]["activation_format"].get<std::string>());
  const ScanResult r = scan(o);
  EXPECT_EQ(r.activation_format, "int8:per-channel");
  expect_outputs(r, e, "error_energy_inputs_quantised");
}

// The weights' own figures do not change when the outputs are scored too, and the plan weighs
// the outputs' errors: the frontier's totals are sums of output error energies.
TEST(OutputErrorScan, KeepsTheWeightFiguresAndPlansOnTheOutputs) {
  const nlohmann::json e = expected();
  ScanOptions plain;
  for (const auto& c : e["candidates"]) plain.candidates.push_back(*parse_candidate(c.get<std::string>()));
  const ScanResult weights = scan(plain), outputs = scan(options_with_inputs(e));
  for (const TensorScan& t : outputs.tensors) {
    const auto same = std::find_if(weights.tensors.begin(), weights.tensors.end(),
                                   [&](const TensorScan& w) { return w.name == t.name; });
    ASSERT_NE(same, weights.tensors.end());
    for (size_t i = 0; i < t.scores.size(); ++i) EXPECT_EQ(t.scores[i].error_energy, same->scores[i].error_energy);
  }
  auto items = plan_items(outputs, {});
  ASSERT_TRUE(items) << items.error();
  const auto frontier = plan_frontier(*items);
  double least = 0;
  for (const TensorScan& t : outputs.tensors) {
    double best = INFINITY;
    for (const CandidateScore& c : t.scores) best = std::min(best, c.output.error_energy);
    least += best;
  }
  // (The frontier's running total is updated upgrade by upgrade from the cheapest plan's, which
  // is far larger: it carries that total's rounding.)
  EXPECT_NEAR(frontier.back().error, least, 1e-14 * frontier.front().error);
}

// The plan report sets beside the plan the one the weights' own errors choose, weighed on the
// outputs; at a frontier corner's budget the outputs' plan is optimal, so never worse.
TEST(OutputErrorScan, ReportsThePlanTheWeightsAloneWouldChoose) {
  const nlohmann::json e = expected();
  const ScanResult r = scan(options_with_inputs(e));
  auto items = plan_items(r, {});
  ASSERT_TRUE(items);
  const auto frontier = plan_frontier(*items);
  ScanResult weights = r;
  weights.activations.clear();
  auto weight_items = plan_items(weights, {});
  ASSERT_TRUE(weight_items);
  size_t compared = 0;
  for (size_t k = 0; k < frontier.size(); k += 7) {
    const double budget = frontier[k].bits_per_param;
    auto report = plan_report(r, budget, {});
    ASSERT_TRUE(report) << report.error();
    ASSERT_TRUE(report->by_weights_alone);
    auto alone = plan_within(*weight_items, budget);
    ASSERT_TRUE(alone);
    double on_outputs = 0;
    for (size_t i = 0; i < r.tensors.size(); ++i)
      on_outputs += r.tensors[i].scores[alone->choice[i]].output.error_energy;
    EXPECT_EQ(report->by_weights_alone->error, on_outputs);
    EXPECT_EQ(report->by_weights_alone->bits_per_param, alone->point.bits_per_param);
    EXPECT_LE(report->plan.point.error, on_outputs + 1e-14 * frontier.front().error) << budget;  // (running total)
    ++compared;
  }
  EXPECT_GT(compared, 3u);
  EXPECT_FALSE(plan_report(scan([&] {
                             ScanOptions o;
                             o.candidates = options_with_inputs(e).candidates;
                             return o;
                           }()),
                           16, {})
                   ->by_weights_alone);  // no activations: nothing beside the plan
}

TEST(OutputErrorScan, RoundTripsThroughJsonAndRefusesAMergeOfOtherInputs) {
  const nlohmann::json e = expected();
  ScanOptions o = options_with_inputs(e);
  o.tensors = "layers\\.0\\.";
  const ScanResult first = scan(o);
  auto back = scan_from_json(scan_to_json(first, {}, std::nullopt), "result.json");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->activations, first.activations);
  for (size_t t = 0; t < first.tensors.size(); ++t)
    for (size_t c = 0; c < first.tensors[t].scores.size(); ++c) {
      EXPECT_EQ(back->tensors[t].scores[c].output.error_energy, first.tensors[t].scores[c].output.error_energy);
      EXPECT_EQ(back->tensors[t].scores[c].output.sqnr_db, first.tensors[t].scores[c].output.sqnr_db);
    }
  o.tensors = "layers\\.1\\.";
  o.activation_format = *parse_candidate("int8:per-channel");
  const ScanResult second = scan(o);
  auto merged = merge_scans({first, second});
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().find("with the inputs in int8:per-channel"), std::string::npos) << merged.error();
  // An output object missing from a result read back is refused.
  nlohmann::json j = scan_to_json(first, {}, std::nullopt);
  j["tensors"][0]["candidates"][0].erase("output");
  EXPECT_NE(scan_from_json(j, "r.json").error().find("no \"output\" object"), std::string::npos);
  // What the result says it weighed must be what it holds.
  j = scan_to_json(first, {}, std::nullopt);
  j["activations"]["origin"] = "elsewhere";
  EXPECT_NE(scan_from_json(j, "r.json").error().find("unknown key \"origin\""), std::string::npos);
  j.erase("activations");
  EXPECT_NE(scan_from_json(j, "r.json").error().find("does not name activations"), std::string::npos);
  j["scored_by"] = "vibes";
  EXPECT_NE(scan_from_json(j, "r.json").error().find("neither"), std::string::npos);
}

// Inputs as safetensors: one float32 matrix named `name`.
std::string write_inputs(const std::string& file, const std::string& name, const std::vector<float>& v, size_t rows,
                         size_t cols) {
  const std::string header = R"({")" + name + R"(":{"dtype":"F32","shape":[)" + std::to_string(rows) + "," +
                             std::to_string(cols) + R"(],"data_offsets":[0,)" + std::to_string(4 * v.size()) + "]}}";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[size_t(i)] = char((header.size() >> (8 * i)) & 0xff);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(v.data()), 4 * v.size());
  const std::string path = ::testing::TempDir() + "/" + file;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(OutputErrorScan, RefusesInputsThatDoNotFitTheirLayer) {
  auto c = io::open_checkpoint(kSharded);
  ASSERT_TRUE(c);
  ScanOptions o = options_with_inputs(expected());
  // q_proj takes rows of 64; these have 10.
  const std::string narrow =
      write_inputs("narrow.safetensors", "model.layers.0.self_attn.q_proj.input", std::vector<float>(30, 1.f), 3, 10);
  o.activations = *io::open_checkpoint(narrow);
  auto chosen = chosen_tensors(*c, o);
  ASSERT_FALSE(chosen);
  EXPECT_EQ(chosen.error(),
            "inputs 'model.layers.0.self_attn.q_proj.input' for 'model.layers.0.self_attn.q_proj.weight' have rows "
            "of 10 elements, and the layer takes 64");
  // No weight has inputs in the file.
  const std::string other = write_inputs("other.safetensors", "encoder.fc.input", std::vector<float>(64, 1.f), 1, 64);
  o.activations = *io::open_checkpoint(other);
  EXPECT_NE(chosen_tensors(*c, o).error().find("has its layer's inputs in"), std::string::npos);
  // A format without inputs.
  o.activations.reset();
  o.activation_format = *parse_candidate("int8:per-channel");
  EXPECT_EQ(chosen_tensors(*c, o).error(), "an activation format needs the activations");
  std::filesystem::remove(narrow);
  std::filesystem::remove(other);
}

TEST(OutputErrorScan, RefusesInputsWithAnInfOrANaN) {
  std::vector<float> v(2 * 64, 0.5f);
  v[3] = NAN;
  const std::string path = write_inputs("nan.safetensors", "model.layers.0.self_attn.q_proj.input", v, 2, 64);
  auto a = io::open_checkpoint(path);
  ASSERT_TRUE(a) << a.error();
  auto in = read_layer_inputs(*a, a->tensors[0], std::nullopt, {});
  ASSERT_FALSE(in);
  EXPECT_EQ(in.error(),
            "inputs 'model.layers.0.self_attn.q_proj.input' hold 1 Inf or NaN elements: a layer's output error is not "
            "defined for them");
  std::filesystem::remove(path);
}

// The output error is taken from the differences, X (q(W) - W)^T, not as X q(W)^T - X W^T, in
// which a small error cancels away: with X = (1, 1), W = (2^53, 1 + 2^-40) and q(W) = (2^53, 1)
// both products round to 2^53, while the error is exactly -2^-40.
TEST(OutputErrorScan, TakesTheErrorFromTheDifferencesWithoutCancellation) {
  LayerInputs in;
  in.rows = 1, in.cols = 2;
  in.x = {1.0, 1.0};
  OutputError out(in);
  const double big = std::ldexp(1.0, 53), tiny = std::ldexp(1.0, -40);
  EXPECT_EQ(out.error_energy(std::vector<double>{big, 1 + tiny}, std::vector<double>{big, 1.0}, 1), tiny * tiny);
  EXPECT_EQ(out.energy(std::vector<double>{3.0, 4.0}, 1), 49.0);
  // A NaN in the copy where the weight is finite: an infinite error.
  EXPECT_TRUE(std::isinf(out.error_energy(std::vector<double>{1.0, 5.0}, std::vector<double>{NAN, 5.0}, 1)));
  // A weight's NaN counts as zero in both.
  EXPECT_EQ(out.error_energy(std::vector<double>{NAN, 5.0}, std::vector<double>{NAN, 5.0}, 1), 0);
  EXPECT_EQ(out.energy(std::vector<double>{NAN, 5.0}, 1), 25.0);
}

TEST(OutputErrorScan, NamesTheInputsOfAWeight) {
  EXPECT_EQ(input_name("model.layers.3.mlp.up_proj.weight"), "model.layers.3.mlp.up_proj.input");
  EXPECT_EQ(input_name("lm_head.weight"), "lm_head.input");
  EXPECT_FALSE(input_name("model.layers.3.mlp.up_proj.bias"));
  EXPECT_FALSE(input_name(".weight"));
}

}  // namespace
}  // namespace pl::experiment
