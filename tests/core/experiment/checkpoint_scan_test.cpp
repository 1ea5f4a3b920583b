// The checkpoint scan against figures computed independently with NumPy
// (tests/data/checkpoint/gen_checkpoint.py implements each recipe from its definition and
// rounds on an exact grid), on every weight of the synthetic sharded checkpoint; and the figures'
// independence of the thread count and of how a tensor is cut into runs of rows.
#include "core/experiment/scan/checkpoint_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/experiment/roundtrip.h"
#include "core/util/thread_limit.h"

namespace pl::experiment {
namespace {

const std::string kSharded = std::string(PL_CHECKPOINT_DIR) + "/sharded";

nlohmann::json expected() {
  std::ifstream in(std::string(PL_CHECKPOINT_DIR) + "/expected.json");
  EXPECT_TRUE(in) << "missing tests/data/checkpoint/expected.json";
  return nlohmann::json::parse(in);
}

ScanOptions options_for(const nlohmann::json& e) {
  ScanOptions o;
  for (const auto& c : e["candidates"]) {
    auto parsed = parse_candidate(c.get<std::string>());
    EXPECT_TRUE(parsed) << parsed.error();
    o.candidates.push_back(*parsed);
  }
  return o;
}

ScanResult scan(const ScanOptions& o) {
  auto c = io::open_checkpoint(kSharded);
  EXPECT_TRUE(c) << c.error();
  auto r = scan_checkpoint(*c, o);
  EXPECT_TRUE(r) << r.error();
  return *r;
}

void expect_near_rel(double got, double want, double rel, const std::string& what) {
  EXPECT_LE(std::fabs(got - want), rel * std::fabs(want)) << what << ": " << got << " against " << want;
}

TEST(CheckpointScan, EveryFigureMatchesTheNumPyComputation) {
  const nlohmann::json e = expected();
  const ScanResult r = scan(options_for(e));
  ASSERT_EQ(r.tensors.size(), e["tensors"].size());
  EXPECT_EQ(r.skipped.size(), 6u);  // norms (1-D) and the integer position ids
  size_t compared = 0;
  for (const TensorScan& t : r.tensors) {
    ASSERT_TRUE(e["tensors"].contains(t.name)) << t.name;
    const auto& want = e["tensors"][t.name];
    expect_near_rel(t.energy, want["energy"], 1e-12, t.name + " energy");
    EXPECT_EQ(t.stats.amax, want["stats"]["amax"].get<double>()) << t.name;
    expect_near_rel(t.stats.rms, want["stats"]["rms"], 1e-12, t.name + " rms");
    expect_near_rel(t.stats.kurtosis, want["stats"]["kurtosis"], 1e-9, t.name + " kurtosis");
    expect_near_rel(t.stats.channel_spread, want["stats"]["channel_amax_spread"], 1e-15, t.name + " spread");
    for (size_t i = 0; i < t.scores.size(); ++i) {
      const CandidateScore& c = t.scores[i];
      const auto& w = want["candidates"][i];
      const std::string what = t.name + " " + c.candidate;
      ASSERT_EQ(c.candidate, w["candidate"].get<std::string>());
      expect_near_rel(c.bits_per_param, w["bits_per_param"], 1e-15, what + " bits");
      expect_near_rel(c.error_energy, w["error_energy"], 1e-12, what + " error energy");
      if (w["sqnr_db"].is_null()) EXPECT_TRUE(std::isinf(c.sqnr_db)) << what;
      else EXPECT_NEAR(c.sqnr_db, w["sqnr_db"].get<double>(), 1e-9) << what;
      // Maxima and counts do not depend on the order of a sum: bit for bit.
      EXPECT_EQ(c.max_abs, w["max_abs"].get<double>()) << what;
      EXPECT_EQ(c.max_rel, w["max_rel"].get<double>()) << what;
      EXPECT_EQ(c.saturated, w["saturated"].get<size_t>()) << what;
      EXPECT_EQ(c.flushed, w["flushed"].get<size_t>()) << what;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 16u * 8u);
}

// A scanned tensor in a candidate is the cast experiment of that tensor in that dtype and recipe
// (what clicking its cell in the Checkpoint panel opens): the same maxima bit for bit.
TEST(CheckpointScan, AgreesWithTheCastExperimentOnTheSameTensor) {
  const nlohmann::json e = expected();
  const ScanOptions o = options_for(e);
  const ScanResult r = scan(o);
  auto c = io::open_checkpoint(kSharded);
  size_t compared = 0;
  for (const io::CheckpointTensor& t : c->tensors) {
    if (t.name.find("q_proj") == std::string::npos && t.name.find("lm_head") == std::string::npos) continue;
    const auto scanned = std::find_if(r.tensors.begin(), r.tensors.end(), [&](auto& s) { return s.name == t.name; });
    ASSERT_NE(scanned, r.tensors.end());
    for (size_t k = 0; k < o.candidates.size(); ++k) {
      RoundtripSpec spec;
      spec.config.dtype = o.candidates[k].dtype;
      spec.config.scaling = o.candidates[k].scaling;
      spec.input_file = c->shards[t.shard] + ":" + t.name;
      auto cast = run_roundtrip(spec);
      ASSERT_TRUE(cast) << cast.error();
      const CandidateScore& s = scanned->scores[k];
      EXPECT_EQ(s.max_abs, cast->stats.max_abs) << t.name << " " << s.candidate;
      EXPECT_EQ(s.max_rel, cast->stats.max_rel) << t.name << " " << s.candidate;
      EXPECT_EQ(s.saturated, cast->saturated) << t.name << " " << s.candidate;
      EXPECT_EQ(s.flushed, cast->flushed) << t.name << " " << s.candidate;
      if (std::isfinite(s.sqnr_db)) {
        EXPECT_NEAR(s.sqnr_db, cast->stats.sqnr_db, 1e-9) << t.name << " " << s.candidate;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 3u * 8u);
}

TEST(CheckpointScan, OutlierChannelsShowInTheStatisticsAndTheRecipes) {
  const ScanResult r = scan(options_for(expected()));
  for (const TensorScan& t : r.tensors) {
    if (t.name != "model.layers.0.self_attn.q_proj.weight") continue;
    EXPECT_GT(t.stats.channel_spread, 20);  // three rows 40x the others
    // int8 per-channel keeps the ordinary rows' own scale: far better than one scale for all.
    EXPECT_EQ(t.place.layer, 0);
    EXPECT_EQ(t.place.role, "self_attn.q_proj");
  }
}

TEST(CheckpointScan, FiguresDoNotDependOnTheThreadsOrTheRunsOfRows) {
  ScanOptions o = options_for(expected());
  const ScanResult all = scan(o);
  ScanResult one;
  {
    const ThreadLimit limit(1);
    one = scan(o);
  }
  o.chunk_elements = 100;  // one row at a time for every tensor here
  const ScanResult rows = scan(o);
  ASSERT_EQ(all.tensors.size(), one.tensors.size());
  for (size_t t = 0; t < all.tensors.size(); ++t)
    for (size_t c = 0; c < all.tensors[t].scores.size(); ++c) {
      const CandidateScore &a = all.tensors[t].scores[c], &b = one.tensors[t].scores[c], &k = rows.tensors[t].scores[c];
      EXPECT_EQ(a.error_energy, b.error_energy);  // the same sums in the same order
      EXPECT_EQ(a.max_abs, k.max_abs);
      EXPECT_EQ(a.saturated, k.saturated);
      EXPECT_EQ(a.flushed, k.flushed);
      expect_near_rel(k.error_energy, a.error_energy, 1e-13, all.tensors[t].name);  // summed in other runs
    }
}

TEST(CheckpointScan, ChoosesTensorsByPattern) {
  ScanOptions o = options_for(expected());
  o.tensors = "layers\\.1\\..*norm";
  const ScanResult r = scan(o);
  ASSERT_EQ(r.tensors.size(), 2u);  // 1-D tensors are scanned when named
  EXPECT_EQ(r.tensors[0].shape.size(), 1u);
  auto c = io::open_checkpoint(kSharded);
  o.tensors = "no-such-tensor";
  EXPECT_NE(check_scan(*c, o).error().find("matches --tensors 'no-such-tensor'"), std::string::npos);
  o.tensors = "(";
  EXPECT_NE(check_scan(*c, o).error().find("is not a regular expression"), std::string::npos);
}

TEST(CheckpointScan, StopsWhenCancelled) {
  auto c = io::open_checkpoint(kSharded);
  std::atomic<bool> cancel{true};
  auto r = scan_checkpoint(*c, options_for(expected()), {}, &cancel);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "cancelled");
}

TEST(CheckpointScan, ReportsProgressUpToEveryByte) {
  auto c = io::open_checkpoint(kSharded);
  ScanProgress last;
  size_t calls = 0;
  auto r = scan_checkpoint(*c, options_for(expected()), [&](const ScanProgress& p) {
    EXPECT_GE(p.bytes_done, last.bytes_done);
    last = p;
    ++calls;
  });
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(last.tensors_done, 16u);
  EXPECT_EQ(last.bytes_done, last.bytes_total);
  EXPECT_EQ(last.bytes_total, r->bytes);
  EXPECT_GT(calls, 16u);
}

}  // namespace
}  // namespace pl::experiment
