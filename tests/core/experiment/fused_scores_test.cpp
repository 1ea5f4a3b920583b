// The scan's fused pass against quantise() and the error sums over its dequantised copy, bit for
// bit: every recipe it takes, rows that end inside a scale block and inside a sum block, and
// elements that overflow, underflow, saturate, are zero, Inf or NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/experiment/scan/candidate.h"
#include "core/experiment/scan/error_parts.h"
#include "core/experiment/scan/fused_scores.h"
#include "core/quantise/amax.h"
#include "core/quantise/scaling.h"

namespace pl::experiment {
namespace {

// What the scan computes without the fused pass: quantise(), then the error sums over blocks of
// kSumBlock elements added in order.
FusedScore through_quantise(const std::vector<double>& x, size_t rows, size_t cols, double amax, const Candidate& c,
                            const CastOptions& o) {
  Scaling s = c.scaling;
  s.tensor_amax = amax;
  const Quantised q = quantise(x, rows, cols, c.dtype, s, o);
  FusedScore out;
  out.saturated = q.saturated;
  out.flushed = q.flushed;
  const auto copy = q.dequantised();
  for (size_t b = 0; b < x.size(); b += kSumBlock)
    out.errors.add(block_errors(copy.data() + b, x.data() + b, std::min(kSumBlock, x.size() - b)));
  return out;
}

// Normal values spread over many binades, with outlier rows, runs of zeros and a few values past
// float8's and float4's ranges; `extremes` adds values past float16's range, Inf and NaN.
std::vector<double> tensor(size_t rows, size_t cols, bool extremes, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> binade(-30, 4);
  std::vector<double> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(normal(rng) * std::ldexp(1.0, binade(rng)));
  for (size_t r = 0; r < rows; r += 5)
    for (size_t c = 0; c < cols; ++c) x[r * cols + c] *= 300;  // outlier rows
  for (size_t i = 7; i < x.size(); i += 41) x[i] = 0;
  for (size_t i = 11; i < x.size(); i += 97) x[i] = i % 2 ? -0.0 : 0.0;
  for (size_t i = 5; i + 40 < x.size(); i += 1000)
    for (size_t k = 0; k < 40; ++k) x[i + k] = 0;  // whole zero blocks
  if (extremes) {
    for (size_t i = 3; i < x.size(); i += 503) x[i] = 1e5 * (i % 3 ? 1 : -1);
    if (x.size() > 20) {
      x[13] = std::numeric_limits<double>::infinity();
      x[17] = -std::numeric_limits<double>::infinity();
      x[19] = std::numeric_limits<double>::quiet_NaN();
    }
  }
  return x;
}

void expect_same(const FusedScore& fused, const FusedScore& reference, const std::string& what) {
  EXPECT_EQ(fused.errors.e2, reference.errors.e2) << what;
  EXPECT_EQ(fused.errors.max_abs, reference.errors.max_abs) << what;
  EXPECT_EQ(fused.errors.max_rel, reference.errors.max_rel) << what;
  EXPECT_EQ(fused.saturated, reference.saturated) << what;
  EXPECT_EQ(fused.flushed, reference.flushed) << what;
}

const char* const kTaken[] = {
    "bfloat16",           "float16",           "float8_e4m3fn",          "float4_e2m1fn",
    "float8_e4m3fn:per-tensor", "float8_e5m2:per-tensor", "int8:per-tensor", "int4:per-tensor",
    "float8_e4m3fn:per-channel", "float6_e3m2fn:per-channel", "int8:per-channel", "int4:per-channel",
    "float8_e4m3fn:mx",   "float8_e5m2:mx",    "float6_e2m3fn:mx",       "float6_e3m2fn:mx",
    "float4_e2m1fn:mx",   "float4_e2m1fn:nvfp4", "int4:group:32",        "int8:group:128",
    "int4:group:7",       "int16:group:64",
};

TEST(FusedScores, GiveQuantisesBitsForEveryRecipeItTakes) {
  std::vector<Candidate> candidates;
  for (const char* text : kTaken) {
    auto c = parse_candidate(text);
    ASSERT_TRUE(c) << text << ": " << c.error();
    ASSERT_TRUE(fused_pass_takes(*c, CastOptions{})) << text;
    candidates.push_back(*c);
  }
  // Rows of one element, rows that end inside an MX block, inside a group of 7, a row longer
  // than a sum block, and many rows that cross the sum blocks' edges.
  const std::pair<size_t, size_t> shapes[] = {{40, 1}, {9, 33}, {13, 100}, {2, 4100}, {70, 96}, {3, 7}};
  uint32_t seed = 1;
  for (const auto& [rows, cols] : shapes)
    for (const bool extremes : {false, true}) {
      const std::vector<double> x = tensor(rows, cols, extremes, seed++);
      const double amax = tensor_amax(x);
      const std::vector<FusedScore> fused = fused_scores(x, rows, cols, amax, candidates, CastOptions{});
      ASSERT_EQ(fused.size(), candidates.size());
      for (size_t i = 0; i < candidates.size(); ++i)
        expect_same(fused[i], through_quantise(x, rows, cols, amax, candidates[i], CastOptions{}),
                    candidates[i].text() + " on " + std::to_string(rows) + "x" + std::to_string(cols) +
                        (extremes ? " with extremes" : ""));
    }
}

// The plain casts under each overflow policy (Inf and NaN in x go to the codec, values past the
// largest to its answer for the largest double), and a tensor of zeros (amax 0, every scale 1).
TEST(FusedScores, GiveQuantisesBitsUnderEveryOverflowPolicyAndForZeros) {
  std::vector<Candidate> plain, all;
  for (const char* text : {"bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float6_e3m2fn", "float4_e2m1fn"})
    plain.push_back(*parse_candidate(text));
  for (const char* text : kTaken) all.push_back(*parse_candidate(text));
  const std::vector<double> x = tensor(30, 50, true, 7);
  for (const Overflow policy : {Overflow::FormatDefault, Overflow::Saturate, Overflow::NonSaturating}) {
    CastOptions o;
    o.overflow = policy;
    const auto fused = fused_scores(x, 30, 50, tensor_amax(x), plain, o);
    for (size_t i = 0; i < plain.size(); ++i)
      expect_same(fused[i], through_quantise(x, 30, 50, tensor_amax(x), plain[i], o),
                  plain[i].text() + " overflow " + overflow_name(policy));
  }
  const std::vector<double> zeros(8 * 40, 0.0);
  const auto fused = fused_scores(zeros, 8, 40, 0.0, all, CastOptions{});
  for (size_t i = 0; i < all.size(); ++i)
    expect_same(fused[i], through_quantise(zeros, 8, 40, 0.0, all[i], CastOptions{}), all[i].text() + " on zeros");
}

TEST(FusedScores, SaturatedFlushedAndNonFiniteAreCounted) {
  // A guard that the comparison above sees the counts move: the extremes saturate float8, the
  // tiny values round to zero in float4, and an Inf in x counts no error.
  const std::vector<double> x = tensor(20, 64, true, 99);
  const auto e4m3 = *parse_candidate("float8_e4m3fn");
  const auto fp4 = *parse_candidate("float4_e2m1fn:mx");
  const auto scores = fused_scores(x, 20, 64, tensor_amax(x), std::vector{e4m3, fp4}, CastOptions{});
  EXPECT_GT(scores[0].saturated, 0u);
  EXPECT_GT(scores[1].flushed, 0u);
  EXPECT_TRUE(std::isfinite(scores[1].errors.e2));
}

// A finite element scaled past the largest double: a tensor amax below the real one (as delayed
// scaling would pass) makes per-tensor and NVFP4 scales that take 1e300 to Inf. The register
// pass does not look for it (fused_scores.cpp's LaneCopy); the figures must still be quantise()'s.
TEST(FusedScores, FiniteValuesScaledPastTheLargestDoubleGiveQuantisesBits) {
  std::vector<double> x = tensor(16, 64, false, 21);
  x[70] = 1e300;
  x[900] = -1e300;
  std::vector<Candidate> candidates;
  for (const char* text :
       {"float8_e4m3fn:per-tensor", "float8_e5m2:per-tensor", "int8:per-tensor", "float4_e2m1fn:nvfp4"})
    candidates.push_back(*parse_candidate(text));
  const double amax = 1e-30;
  const auto fused = fused_scores(x, 16, 64, amax, candidates, CastOptions{});
  for (size_t i = 0; i < candidates.size(); ++i) {
    const FusedScore reference = through_quantise(x, 16, 64, amax, candidates[i], CastOptions{});
    EXPECT_GT(reference.saturated, 0u) << candidates[i].text();
    expect_same(fused[i], reference, candidates[i].text() + " with 1e300 past the scale");
  }
}

// The order error_lanes.h defines, written out: lane l adds the squares of elements l, l + 8,
// ... in turn, and the lanes are added in order. (Both of the scan's paths sum so; a change of
// order would change every error energy in its last bits, and the tests above could not tell.)
TEST(FusedScores, ErrorSumsRunInEightLanesFoldedInOrder) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  for (const size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{100}, kSumBlock}) {
    std::vector<double> x(n), q(n);
    for (size_t i = 0; i < n; ++i) x[i] = normal(rng), q[i] = x[i] + 1e-3 * normal(rng);
    double lane[8] = {};
    for (size_t i = 0; i < n; ++i) lane[i % 8] += (q[i] - x[i]) * (q[i] - x[i]);
    double e2 = 0;
    for (const double l : lane) e2 += l;
    EXPECT_EQ(block_errors(q.data(), x.data(), n).e2, e2) << n << " elements";
  }
}

TEST(FusedScores, LeavesToQuantiseWhatItDoesNotTake) {
  CastOptions stochastic;
  stochastic.rounding = Rounding::Stochastic;
  EXPECT_FALSE(fused_pass_takes(*parse_candidate("float8_e4m3fn:mx"), stochastic));
  CastOptions ftz;
  ftz.flush_output_subnormals = true;
  EXPECT_FALSE(fused_pass_takes(*parse_candidate("bfloat16"), ftz));
  EXPECT_FALSE(fused_pass_takes(*parse_candidate("uint8:per-channel-asymmetric"), CastOptions{}));
  EXPECT_FALSE(fused_pass_takes(*parse_candidate("uint4:group-asymmetric:32"), CastOptions{}));
  EXPECT_FALSE(fused_pass_takes(*parse_candidate("float8_e4m3fnuz:per-tensor"), CastOptions{}));  // no -0
  EXPECT_TRUE(fused_pass_takes(*parse_candidate("float8_e4m3fn:per-tensor"), CastOptions{}));
}

}  // namespace
}  // namespace pl::experiment
