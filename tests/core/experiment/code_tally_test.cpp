// The bfloat16 tally against the register pass (which fused_scores_test holds to quantise()):
// the same maxima and counts bit for bit and the same error energy up to the order of its sum,
// for every candidate the tally takes, on rows that end inside an MX block, elements far below
// their block's amax, bfloat16 subnormals and zeros; and the tensors it leaves to the register pass.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <vector>

#include "core/experiment/scan/candidate.h"
#include "core/experiment/scan/code_tally.h"
#include "core/experiment/scan/fused_scores.h"
#include "core/experiment/scan/tensor_scan.h"
#include "core/io/checkpoint.h"
#include "core/io/mapped_file.h"
#include "core/quantise/amax.h"
#include "core/quantise/scaling.h"
#include "core/util/thread_limit.h"

namespace pl::experiment {
namespace {

// A bfloat16 tensor as stored (little-endian codes) and as the scan decodes it.
struct Bf16Tensor {
  size_t rows = 0, cols = 0;
  std::vector<uint8_t> bytes;
  std::vector<double> values;
};

// Nearest-even to bfloat16 of a float (no NaN here).
uint16_t bfloat16_code(float v) {
  const uint32_t u = std::bit_cast<uint32_t>(v);
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

Bf16Tensor from_values(const std::vector<float>& v, size_t rows, size_t cols) {
  Bf16Tensor t{rows, cols, {}, {}};
  for (const float f : v) {
    const uint16_t code = bfloat16_code(f);
    t.bytes.push_back(static_cast<uint8_t>(code & 0xff));
    t.bytes.push_back(static_cast<uint8_t>(code >> 8));
    t.values.push_back(std::bit_cast<float>(uint32_t{code} << 16));
  }
  return t;
}

// Normal values over 16 binades with outlier rows, zeros and whole zero blocks, elements 25 to
// 60 binades below their neighbours (past kTallyDepth: every MX candidate flushes them), and
// bfloat16 subnormals beside normal values. A block that is not all zeros holds a value of at
// least 2^-8 (the tally leaves blocks far below the tensor's amax to the register pass).
Bf16Tensor weights(size_t rows, size_t cols, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> binade(-12, 4), deep(25, 60);
  std::vector<float> v(rows * cols);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(normal(rng) * std::ldexp(1.0, binade(rng)));
  for (size_t r = 0; r < rows; r += 5)
    for (size_t c = 0; c < cols; ++c) v[r * cols + c] *= 300;
  for (size_t i = 3; i < v.size(); i += 29) v[i] = static_cast<float>(std::ldexp(v[i], -deep(rng)));
  for (size_t i = 9; i < v.size(); i += 131) v[i] = static_cast<float>(std::ldexp(i % 3 ? 1.5 : -3.0, -130));
  for (size_t i = 7; i < v.size(); i += 41) v[i] = 0;
  for (size_t i = 11; i < v.size(); i += 97) v[i] = i % 2 ? -0.0f : 0.0f;
  for (size_t i = 5; i + 72 < v.size(); i += 1000)
    for (size_t k = 0; k < 72; ++k) v[i + k] = 0;  // (covering a whole block of 32 when a row has one)
  for (size_t r = 0; r < rows; ++r)
    for (size_t c0 = 0; c0 < cols; c0 += 32) {
      float* block = v.data() + r * cols + c0;
      const size_t n = std::min<size_t>(32, cols - c0);
      float top = 0;
      for (size_t k = 0; k < n; ++k) top = std::max(top, std::fabs(block[k]));
      if (top == 0 || top >= 0x1p-8f) continue;
      for (size_t k = 0; k < n; ++k)
        if (block[k] != 0) {
          block[k] = 1;
          break;
        }
    }
  return from_values(v, rows, cols);
}

std::vector<Candidate> tallied_candidates() {
  std::vector<Candidate> out;
  for (const char* text : {"bfloat16", "float16", "float8_e4m3fn", "float4_e2m1fn", "float8_e4m3fn:per-tensor",
                           "float8_e5m2:per-tensor", "int8:per-tensor", "int4:per-tensor", "float8_e4m3fn:mx",
                           "float6_e2m3fn:mx", "float6_e3m2fn:mx", "float4_e2m1fn:mx"}) {
    auto c = parse_candidate(text);
    EXPECT_TRUE(c && tally_takes(*c, CastOptions{})) << text;
    if (c) out.push_back(*c);
  }
  return out;
}

TEST(CodeTally, GivesTheRegisterPassFiguresForEveryCandidateItTakes) {
  const std::vector<Candidate> candidates = tallied_candidates();
  // Rows of one element, rows that end inside an MX block, a row longer than a sum block, and
  // many rows.
  const std::pair<size_t, size_t> shapes[] = {{40, 1}, {9, 33}, {13, 100}, {2, 4100}, {70, 96}, {3, 7}, {300, 64}};
  uint32_t seed = 1;
  size_t flushed = 0, saturated = 0, compared = 0;
  for (const auto& [rows, cols] : shapes) {
    const Bf16Tensor t = weights(rows, cols, seed++);
    const double amax = tensor_amax(t.values);
    const auto tally = tally_bfloat16(t.bytes.data(), rows, cols, amax);
    ASSERT_TRUE(tally) << rows << "x" << cols;
    const auto tallied = tallied_scores(*tally, amax, candidates, CastOptions{});
    const auto fused = fused_scores(t.values, rows, cols, amax, candidates, CastOptions{});
    for (size_t i = 0; i < candidates.size(); ++i) {
      const std::string what = candidates[i].text() + " on " + std::to_string(rows) + "x" + std::to_string(cols);
      if (!tallied[i]) {  // a copy that is not finite (float8_e4m3fn unscaled, past 448, is NaN)
        EXPECT_FALSE(std::isfinite(fused[i].errors.e2)) << what;
        continue;
      }
      ++compared;
      EXPECT_EQ(tallied[i]->errors.max_abs, fused[i].errors.max_abs) << what;
      EXPECT_EQ(tallied[i]->errors.max_rel, fused[i].errors.max_rel) << what;
      EXPECT_EQ(tallied[i]->saturated, fused[i].saturated) << what;
      EXPECT_EQ(tallied[i]->flushed, fused[i].flushed) << what;
      EXPECT_NEAR(tallied[i]->errors.e2, fused[i].errors.e2, 1e-13 * fused[i].errors.e2) << what;
      flushed += fused[i].flushed, saturated += fused[i].saturated;
    }
  }
  EXPECT_GT(compared, 5 * candidates.size());
  EXPECT_GT(flushed, 0u);  // (the comparison saw the counts move)
  EXPECT_GT(saturated, 0u);
}

// Elements on either side of kTallyDepth binades below their block's amax: at depth 18
// float8_e4m3fn under MX keeps them as its smallest subnormal, from depth 19 it flushes them.
TEST(CodeTally, ElementsAtTheDepthEdgeGetTheRegisterPassCopies) {
  std::vector<float> v;
  for (size_t block = 0; block < 6; ++block) {
    v.push_back(block % 2 ? -1.0f : 1.0f);
    for (int depth = 17; depth <= 22; ++depth)
      for (const float m : {1.0f, 1.5f, 1.9921875f}) v.push_back(static_cast<float>(std::ldexp(m, -depth)));
    v.push_back(0x1p-130f);  // a bfloat16 subnormal
    while (v.size() % 32 != 0) v.push_back(static_cast<float>(std::ldexp(1.25, -static_cast<int>(v.size() % 24))));
  }
  const Bf16Tensor t = from_values(v, 3, 64);
  const std::vector<Candidate> candidates = tallied_candidates();
  const auto tally = tally_bfloat16(t.bytes.data(), 3, 64, 1.0);
  ASSERT_TRUE(tally);
  const auto tallied = tallied_scores(*tally, 1.0, candidates, CastOptions{});
  const auto fused = fused_scores(t.values, 3, 64, 1.0, candidates, CastOptions{});
  for (size_t i = 0; i < candidates.size(); ++i) {
    ASSERT_TRUE(tallied[i]) << candidates[i].text();
    EXPECT_EQ(tallied[i]->errors.max_abs, fused[i].errors.max_abs) << candidates[i].text();
    EXPECT_EQ(tallied[i]->errors.max_rel, fused[i].errors.max_rel) << candidates[i].text();
    EXPECT_EQ(tallied[i]->flushed, fused[i].flushed) << candidates[i].text();
    EXPECT_EQ(tallied[i]->saturated, fused[i].saturated) << candidates[i].text();
    EXPECT_NEAR(tallied[i]->errors.e2, fused[i].errors.e2, 1e-13 * fused[i].errors.e2) << candidates[i].text();
  }
}

// Every nonzero element is counted once, under its magnitude; the pairs are distinct.
TEST(CodeTally, CountsEveryNonzeroElementOnce) {
  const Bf16Tensor t = weights(37, 96, 5);
  const auto tally = tally_bfloat16(t.bytes.data(), 37, 96, tensor_amax(t.values));
  ASSERT_TRUE(tally);
  double total = 0, magnitudes = 0;
  for (size_t i = 0; i < tally->values.size(); ++i) {
    EXPECT_GT(tally->values[i], 0.0);
    total += tally->counts[i];
    magnitudes += tally->values[i] * tally->counts[i];
  }
  double nonzero = 0, sum = 0;
  for (const double x : t.values) nonzero += x != 0, sum += std::fabs(x);
  EXPECT_EQ(total, nonzero);
  EXPECT_NEAR(magnitudes, sum, 1e-12 * sum);
}

// The counts are whole numbers: the tally is the same on one thread as on every core.
TEST(CodeTally, DoesNotDependOnTheThreads) {
  const Bf16Tensor t = weights(512, 64, 11);
  const double amax = tensor_amax(t.values);
  const auto all = tally_bfloat16(t.bytes.data(), 512, 64, amax);
  std::optional<CodeTally> one;
  {
    const ThreadLimit limit(1);
    one = tally_bfloat16(t.bytes.data(), 512, 64, amax);
  }
  ASSERT_TRUE(all && one);
  EXPECT_EQ(all->values, one->values);
  EXPECT_EQ(all->block_amax, one->block_amax);
  EXPECT_EQ(all->counts, one->counts);
}

// Blocks it leaves to the register pass: an amax below 2^(kTallyDepth - 127) (a bfloat16
// subnormal among them), and a block more than 31 binades below the tensor's amax.
TEST(CodeTally, LeavesTinyAndFarBlocksToTheRegisterPass) {
  std::vector<float> v(2 * 64, 1.0f);
  const auto fine = from_values(v, 2, 64);
  EXPECT_TRUE(tally_bfloat16(fine.bytes.data(), 2, 64, 1.0));
  for (const int binade : {-110, -126, -130, -40}) {
    std::vector<float> w = v;
    for (size_t i = 64; i < 96; ++i) w[i] = static_cast<float>(std::ldexp(1.0, binade));  // one whole MX block
    const auto t = from_values(w, 2, 64);
    EXPECT_FALSE(tally_bfloat16(t.bytes.data(), 2, 64, 1.0)) << "a block at 2^" << binade;
  }
  std::vector<float> near = v;
  for (size_t i = 64; i < 96; ++i) near[i] = static_cast<float>(std::ldexp(1.0, -31));
  const auto t = from_values(near, 2, 64);
  EXPECT_TRUE(tally_bfloat16(t.bytes.data(), 2, 64, 1.0));
}

// A one-tensor bfloat16 safetensors file.
std::string bfloat16_file(const Bf16Tensor& t, const std::string& name) {
  const std::string header = R"({"w":{"dtype":"BF16","shape":[)" + std::to_string(t.rows) + "," +
                             std::to_string(t.cols) + R"(],"data_offsets":[0,)" + std::to_string(t.bytes.size()) +
                             "]}}";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[size_t(i)] = char((header.size() >> (8 * i)) & 0xff);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  const std::string path = ::testing::TempDir() + "/" + name + ".safetensors";
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Through scan_tensor: the tally's figures and those of the paths it stands in for, with the
// default candidates, on a tensor it takes, one it leaves to the register pass (a block near
// bfloat16's smallest normal) and one holding a NaN (the statistics leave it out).
TEST(CodeTally, TheScanGivesTheSameFiguresWithAndWithoutIt) {
  const std::vector<Candidate> candidates = *parse_candidates(kDefaultCandidates);
  Bf16Tensor taken = weights(24, 96, 21);
  std::vector<float> v(taken.values.begin(), taken.values.end());
  std::vector<float> tiny = v, nan = v;
  for (size_t i = 96; i < 128; ++i) tiny[i] = 0x1.8p-120f;
  nan[100] = std::numeric_limits<float>::quiet_NaN();
  const std::pair<const char*, Bf16Tensor> cases[] = {
      {"taken", taken}, {"tiny", from_values(tiny, 24, 96)}, {"nan", from_values(nan, 24, 96)}};
  for (const auto& [name, tensor] : cases) {
    auto c = io::open_checkpoint(bfloat16_file(tensor, std::string("tally-") + name));
    ASSERT_TRUE(c) << c.error();
    auto shard = io::MappedFile::open(c->shards.at(0));
    ASSERT_TRUE(shard) << shard.error();
    TensorScanOptions with, without;
    without.tally = false;
    std::string device_error;
    bool on_device = false;
    const auto a = scan_tensor(*shard, c->tensors.at(0), candidates, with, nullptr, nullptr, device_error, on_device);
    const auto b = scan_tensor(*shard, c->tensors.at(0), candidates, without, nullptr, nullptr, device_error, on_device);
    ASSERT_TRUE(a && b) << name;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const CandidateScore &x = a->scores[i], &y = b->scores[i];
      const std::string what = std::string(name) + " " + x.candidate;
      EXPECT_EQ(x.max_abs, y.max_abs) << what;
      EXPECT_EQ(x.max_rel, y.max_rel) << what;
      EXPECT_EQ(x.saturated, y.saturated) << what;
      EXPECT_EQ(x.flushed, y.flushed) << what;
      EXPECT_NEAR(x.error_energy, y.error_energy, 1e-13 * y.error_energy) << what;
      if (std::string(name) != "taken") {
        EXPECT_EQ(x.error_energy, y.error_energy) << what;  // (left to the same paths)
      }
    }
  }
}

// The recipes whose copy depends on more than the code and the MX block's exponent, and MX in a
// format that keeps values kTallyDepth binades below the block's amax (float8_e5m2's subnormals
// reach 2^-16 below its largest), stay with the register pass; so does any rounding but nearest-even.
TEST(CodeTally, TakesOnlyWhatTheCodeAndTheBlockExponentDecide) {
  for (const char* text : {"float8_e4m3fn:per-channel", "int8:per-channel", "float4_e2m1fn:nvfp4", "int4:group:32",
                           "float8_e5m2:mx", "int8:per-channel-asymmetric"})
    EXPECT_FALSE(tally_takes(*parse_candidate(text), CastOptions{})) << text;
  CastOptions stochastic;
  stochastic.rounding = Rounding::Stochastic;
  EXPECT_FALSE(tally_takes(*parse_candidate("float8_e4m3fn:mx"), stochastic));
  EXPECT_EQ(scaling_block(ScalingKind::MX), 32);  // the tally's blocks (code_tally.cpp)
}

}  // namespace
}  // namespace pl::experiment
