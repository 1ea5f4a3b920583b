// The checkpoint scan against figures computed independently with NumPy
// (tests/data/checkpoint/gen_checkpoint.py implements each recipe from its definition and
// rounds on an exact grid), on every weight of the synthetic sharded checkpoint; and the figures'
// independence of the thread count and of how a tensor is cut into runs of rows.
#include "core/experiment/scan/checkpoint_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/experiment/roundtrip.h"
#include "core/experiment/scan/scan_json.h"
#include "core/util/thread_limit.h"
#include "tests/core/experiment/checkpoint_test_data.h"

namespace pl::experiment {
namespace {

ScanOptions options_for(const nlohmann::json& e) {
  ScanOptions o;
  for (const auto& c : e["candidates"]) {
    auto parsed = parse_candidate(c.get<std::string>());
    EXPECT_TRUE(parsed) << parsed.error();
    o.candidates.push_back(*parsed);
  }
  return o;
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
  EXPECT_EQ(compared, 16u * e["candidates"].size());
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
  EXPECT_EQ(compared, 3u * o.candidates.size());
}

// A float32 tensor written as safetensors stores it: an 8-byte header length, the header, the data.
std::string one_tensor_file(const std::vector<float>& v, size_t rows, size_t cols) {
  const std::string header = R"({"w":{"dtype":"F32","shape":[)" + std::to_string(rows) + "," + std::to_string(cols) +
                             R"(],"data_offsets":[0,)" + std::to_string(4 * v.size()) + "]}}";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[size_t(i)] = char((header.size() >> (8 * i)) & 0xff);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(v.data()), 4 * v.size());
  return bytes;
}

// An Inf or NaN stored in the tensor is counted and left out of every figure; a candidate that
// turns a finite value into NaN (float8_e4m3fn without a scale: 1000 is past 448) has an
// infinite error, which the plan never takes.
TEST(CheckpointScan, LeavesOutNonFiniteValuesAndMarksCopiesThatLoseOne) {
  std::vector<float> v(4 * 64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 17) * 0.25f - 2;
  v[5] = INFINITY, v[70] = NAN, v[100] = 1000;
  const std::string file = ::testing::TempDir() + "/nonfinite.safetensors";
  {
    std::ofstream out(file, std::ios::binary);
    out << one_tensor_file(v, 4, 64);
  }
  auto c = io::open_checkpoint(file);
  ASSERT_TRUE(c) << c.error();
  ScanOptions o;
  o.candidates = *parse_candidates("bfloat16,float8_e4m3fn,float8_e4m3fn:per-channel");
  auto r = scan_checkpoint(*c, o);
  ASSERT_TRUE(r) << r.error();
  const TensorScan& t = r->tensors.at(0);
  EXPECT_EQ(t.stats.nonfinite, 2u);
  EXPECT_EQ(t.stats.amax, 1000);
  EXPECT_EQ(t.scores[0].error_energy, 0);  // every finite value is a bfloat16 here
  EXPECT_TRUE(std::isinf(t.scores[0].sqnr_db));
  EXPECT_TRUE(std::isinf(t.scores[1].error_energy));  // 1000 became NaN
  EXPECT_TRUE(std::isinf(t.scores[1].max_abs));
  EXPECT_TRUE(std::isfinite(t.scores[2].error_energy));
  EXPECT_GT(t.scores[2].error_energy, 0);
  auto items = plan_items(*r, {});
  ASSERT_TRUE(items);
  for (double budget : {8.6, 16.0}) {
    auto plan = plan_within(*items, budget);
    ASSERT_TRUE(plan) << plan.error();
    EXPECT_NE(plan->choice[0], 1u) << budget;
  }
  // 8 bits would take the ruined copy: the cheapest plan is the per-channel one's 8.5.
  EXPECT_NE(plan_within(*items, 8).error().find("below the cheapest plan's 8.5"), std::string::npos);
  std::filesystem::remove(file);
}

// The first pass takes each row's amax from the sum blocks it is decoded in: a row may lie
// wholly in one block, or go on across several (its first, middle and last pieces). Each row's
// largest value sits in a different piece; the channel spread is the largest row amax over the
// median one, exactly, and so is the amax, whatever the runs of rows.
TEST(CheckpointScan, TheChannelSpreadTakesEveryPieceOfARow) {
  for (const auto& [rows, cols] : {std::pair<size_t, size_t>{5, 2 * 4096 + 100}, {51, 100}, {3, 4096}, {7, 4097}}) {
    std::vector<float> v(rows * cols);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 13) * 0.01f - 0.06f;
    std::vector<double> row_amax(rows);
    for (size_t r = 0; r < rows; ++r) {
      const size_t col = r % 3 == 0 ? 0 : r % 3 == 1 ? cols / 2 : cols - 1;
      v[r * cols + col] = -float(r + 2) * 1.5f;
      row_amax[r] = (r + 2) * 1.5;
    }
    std::vector<double> sorted = row_amax;
    std::sort(sorted.begin(), sorted.end());
    const std::string file = ::testing::TempDir() + "/row-pieces.safetensors";
    {
      std::ofstream out(file, std::ios::binary);
      out << one_tensor_file(v, rows, cols);
    }
    auto c = io::open_checkpoint(file);
    ASSERT_TRUE(c) << c.error();
    for (const size_t chunk : {size_t{1}, size_t{3} * cols, size_t{1} << 20}) {
      ScanOptions o;
      o.candidates = *parse_candidates("bfloat16");
      o.chunk_elements = chunk;
      auto r = scan_checkpoint(*c, o);
      ASSERT_TRUE(r) << r.error();
      const TensorScan& t = r->tensors.at(0);
      EXPECT_EQ(t.stats.amax, sorted.back()) << rows << " x " << cols;
      EXPECT_EQ(t.stats.channel_spread, sorted.back() / sorted[rows / 2])
          << rows << " x " << cols << ", runs of " << chunk;
    }
    std::filesystem::remove(file);
  }
}

// Where every candidate is scored from the bfloat16 tally, the second pass reads a run only for
// the kurtosis, and decodes it into the cores' own buffers instead of one array: the statistics
// are those of a scan whose candidates need the run, bit for bit.
TEST(CheckpointScan, TheStatisticsDoNotDependOnWhetherTheRunIsKept) {
  ScanOptions tallied, kept;
  tallied.candidates = *parse_candidates("bfloat16");
  kept.candidates = *parse_candidates("bfloat16,int8:per-channel");
  const ScanResult a = scan(tallied), b = scan(kept);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  size_t bfloat16_tensors = 0;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const TensorScan &x = a.tensors[i], &y = b.tensors[i];
    bfloat16_tensors += x.stored == "BF16";
    EXPECT_EQ(x.stats.kurtosis, y.stats.kurtosis) << x.name;
    EXPECT_EQ(x.stats.rms, y.stats.rms) << x.name;
    EXPECT_EQ(x.stats.amax, y.stats.amax) << x.name;
    EXPECT_EQ(x.stats.channel_spread, y.stats.channel_spread) << x.name;
    EXPECT_EQ(x.energy, y.energy) << x.name;
    EXPECT_EQ(x.scores[0].error_energy, y.scores[0].error_energy) << x.name;
  }
  EXPECT_GT(bfloat16_tensors, 3u);  // (the tally takes those)
}

// The scan with `o` of one 4 x 64 float32 tensor `w` of these values, written to dir/name.
ScanResult scan_of_one(const std::string& dir, const std::string& name, const std::vector<float>& v,
                       const ScanOptions& o) {
  {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    out << one_tensor_file(v, 4, 64);
  }
  auto c = io::open_checkpoint(dir + "/" + name);
  EXPECT_TRUE(c) << c.error();
  auto r = scan_checkpoint(*c, o);
  EXPECT_TRUE(r) << r.error();
  return r ? *r : ScanResult{};
}

// Bug: a stored Inf counted as saturated under every candidate, and a NaN as flushed where the
// format has no NaN (a tensor of 16 NaNs and 16 Infs: "saturated 16", "flushed 16"), though the
// scan leaves them out of every figure. Its figures, counts and all, are those of the same tensor
// with zeros in their place (a zero adds no error and counts as neither), and a tensor of nothing
// else counts none.
TEST(CheckpointScan, InfAndNaNCountForNothing) {
  const std::string dir = ::testing::TempDir() + "/nonfinite-counts";
  std::filesystem::create_directories(dir);
  ScanOptions o;
  o.candidates = *parse_candidates(std::string(kDefaultCandidates) +
                                   ",float8_e4m3fn,float8_e5m2:per-tensor,int8:per-channel-asymmetric,int4:group:32,"
                                   "uint4:group-asymmetric:32,float4_e2m1fn:per-channel");
  auto scanned = [&](const std::vector<float>& v, const std::string& name) {
    return scan_of_one(dir, name, v, o).tensors.at(0);
  };
  std::vector<float> v(4 * 64), zeros;
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 17) * 0.25f - 2 + (i % 5 == 0 ? 0.001f : 0);
  zeros = v;
  for (size_t i : {3, 40, 64, 130, 200, 255}) v[i] = i % 2 ? INFINITY : -INFINITY, zeros[i] = 0;
  for (size_t i : {7, 71, 150}) v[i] = NAN, zeros[i] = 0;
  const TensorScan with = scanned(v, "with.safetensors"), without = scanned(zeros, "zeros.safetensors");
  ASSERT_EQ(with.stats.nonfinite, 9u);
  for (size_t c = 0; c < o.candidates.size(); ++c) {
    SCOPED_TRACE(o.candidates[c].text());
    EXPECT_EQ(with.scores[c].saturated, without.scores[c].saturated);
    EXPECT_EQ(with.scores[c].flushed, without.scores[c].flushed);
    EXPECT_EQ(with.scores[c].error_energy, without.scores[c].error_energy);
    EXPECT_EQ(with.scores[c].max_abs, without.scores[c].max_abs);
    EXPECT_EQ(with.scores[c].max_rel, without.scores[c].max_rel);
  }
  for (size_t i = 0; i < v.size(); ++i) v[i] = i % 2 ? NAN : INFINITY;
  const TensorScan none = scanned(v, "none.safetensors");
  for (const CandidateScore& c : none.scores) {
    EXPECT_EQ(c.saturated, 0u) << c.candidate;
    EXPECT_EQ(c.flushed, 0u) << c.candidate;
  }
  std::filesystem::remove_all(dir);
}

// Bug: a tensor of NaNs scored "exact" under every candidate, and one with a few Infs left them
// out, both without a word (its figures are over its finite elements). The scan says which
// tensors hold them, and that one with no finite element is not scored.
TEST(CheckpointScan, SaysWhichTensorsHoldInfOrNaN) {
  const std::string dir = ::testing::TempDir() + "/nonfinite-said";
  std::filesystem::create_directories(dir);
  ScanOptions o;
  o.candidates = *parse_candidates("float8_e4m3fn:per-tensor,int8:per-channel");
  auto scanned = [&](const std::vector<float>& v, const std::string& name) { return scan_of_one(dir, name, v, o); };
  std::vector<float> v(4 * 64, NAN);
  ScanResult r = scanned(v, "all-nan.safetensors");
  EXPECT_FALSE(has_finite_elements(r.tensors.at(0)));
  EXPECT_EQ(nonfinite_text(r), "1 tensor holds Inf or NaN elements, left out of every figure: w (all 256: not scored)");
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 17) * 0.25f - 2;
  v[3] = INFINITY;
  r = scanned(v, "one-inf.safetensors");
  EXPECT_TRUE(has_finite_elements(r.tensors.at(0)));
  EXPECT_EQ(nonfinite_text(r), "1 tensor holds Inf or NaN elements, left out of every figure: w (1 of 256)");
  v[3] = 1;
  EXPECT_EQ(nonfinite_text(scanned(v, "finite.safetensors")), "");
  std::filesystem::remove_all(dir);
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

// Stochastic rounding draws each element's bits from its place in its tensor: a scan one row at
// a time rounds every element as one run of the whole tensor does (without carrying the
// stream's place from run to run, each run would draw the first row's bits again).
TEST(CheckpointScan, StochasticDrawsDoNotDependOnTheRunsOfRows) {
  ScanOptions o = options_for(expected());
  o.cast.rounding = Rounding::Stochastic;
  o.cast.seed = 7;
  const ScanResult whole = scan(o);
  EXPECT_EQ(whole.rounding, "stochastic, seed 7");
  o.chunk_elements = 100;  // one row at a time
  const ScanResult rows = scan(o);
  o.cast.rounding = Rounding::NearestEven;
  const ScanResult nearest = scan(o);
  ASSERT_EQ(whole.tensors.size(), rows.tensors.size());
  bool any_differs = false;
  for (size_t t = 0; t < whole.tensors.size(); ++t)
    for (size_t c = 0; c < whole.tensors[t].scores.size(); ++c) {
      const CandidateScore &a = whole.tensors[t].scores[c], &k = rows.tensors[t].scores[c];
      EXPECT_EQ(a.max_abs, k.max_abs) << whole.tensors[t].name << " " << a.candidate;
      EXPECT_EQ(a.flushed, k.flushed) << whole.tensors[t].name << " " << a.candidate;
      expect_near_rel(k.error_energy, a.error_energy, 1e-13, whole.tensors[t].name);
      any_differs |= a.error_energy != nearest.tensors[t].scores[c].error_energy;
    }
  EXPECT_TRUE(any_differs);  // it did round stochastically
}

TEST(CheckpointScan, ChoosesTensorsByPattern) {
  ScanOptions o = options_for(expected());
  o.tensors = "layers\\.1\\..*norm";
  const ScanResult r = scan(o);
  ASSERT_EQ(r.tensors.size(), 2u);  // 1-D tensors are scanned when named
  EXPECT_EQ(r.tensors[0].shape.size(), 1u);
  auto c = io::open_checkpoint(kSharded);
  o.tensors = "no-such-tensor";
  EXPECT_NE(chosen_tensors(*c, o).error().find("matches --tensors 'no-such-tensor'"), std::string::npos);
  o.tensors = "(";
  EXPECT_NE(chosen_tensors(*c, o).error().find("is not a regular expression"), std::string::npos);
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

// Bug: the synthetic checkpoint's plan said "SQNR 54.6 dB" where 11 of its 16 tensors were at
// about 20 dB: a float8-stored v_proj held 99% of the energy, and exact under float8_e4m3fn
// per-tensor it set every pooled figure. The pooled figures say which tensor sets them; one tensor
// alone is no pool, and a share is floored without losing a whole percent to rounding.
TEST(CheckpointScan, SaysWhichTensorAPooledSqnrIsMostly) {
  ScanResult r;
  r.tensors.resize(3);
  r.tensors[0].name = "a", r.tensors[0].energy = 1;
  r.tensors[1].name = "big", r.tensors[1].energy = 97;
  r.tensors[2].name = "c", r.tensors[2].energy = 2;
  EXPECT_EQ(dominant_energy_text(r), "big holds 97% of the energy");
  r.tensors[1].energy = 3;  // none holds more than half
  EXPECT_EQ(dominant_energy_text(r), "");
  r.tensors[0].energy = 0.6, r.tensors[1].energy = 0.4, r.tensors[2].energy = 0;
  EXPECT_EQ(dominant_energy_text(r), "a holds 60% of the energy");
  EXPECT_EQ(dominant_energy_text(ScanResult{}), "");
  r.tensors[0].energy = 0.57, r.tensors[1].energy = 0.43;
  EXPECT_EQ(dominant_energy_text(r), "a holds 57% of the energy");
  r.tensors.resize(1);
  EXPECT_EQ(dominant_energy_text(r), "");
}

// Bug: the Checkpoint panel said "N left out (norms, biases, integers)" whatever was left out:
// empty tensors, scalars, tensors --tensors did not match and weights without inputs too. The
// summary counts what the reasons say.
TEST(CheckpointScan, TheLeftOutAreCountedByTheirReasons) {
  const std::vector<SkippedTensor> skipped{{"a.bias", "1-D: norms, biases and scalars stay as stored"},
                                           {"b.bias", "1-D: norms, biases and scalars stay as stored"},
                                           {"ids", "I64 integers: not weights"},
                                           {"c", "empty"},
                                           {"d.weight", "no d.input in the activations"},
                                           {"x.empty_proj.weight", "no x.empty_proj.input in the activations"},
                                           {"e.weight", "does not match --tensors"}};
  EXPECT_EQ(skipped_summary(skipped),
            "1 not matched by --tensors, 1 integer, 1 empty, 2 1-D or scalar, 2 without inputs");
  EXPECT_EQ(skipped_summary({}), "");
}

}  // namespace
}  // namespace pl::experiment
