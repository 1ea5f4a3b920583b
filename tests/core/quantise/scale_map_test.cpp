// The map of a recipe's scales (core/quantise/scale_map.h): each block's dequantisation factor
// as log2, one cell per block or row, averaged down for a large tensor, all-zero blocks left out.
#include "core/quantise/scale_map.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/experiment/roundtrip.h"
#include "core/figure/experiment_figures.h"

namespace pl::experiment {
namespace {

Scaling recipe(ScalingKind k, int group = 128) {
  Scaling s;
  s.kind = k;
  s.group = group;
  return s;
}

// Two rows of 64: row 0 all 1, except an outlier 100 in its second block of 32; row 1 all 0.5.
std::vector<double> two_rows() {
  std::vector<double> x(128, 1.0);
  x[40] = 100;
  for (size_t i = 64; i < 128; ++i) x[i] = 0.5;
  return x;
}

TEST(ScaleMap, AnMxBlockIsItsPowerOfTwo) {
  const std::vector<double> x = two_rows();
  const Quantised q = quantise(x, 2, 64, DType::float8_e4m3fn, recipe(ScalingKind::MX), {});
  const ScaleMap m = scale_map(q, recipe(ScalingKind::MX));
  ASSERT_EQ(m.rows, 2u);
  ASSERT_EQ(m.cols, 2u);
  EXPECT_EQ(m.block, 32u);
  EXPECT_FALSE(m.per_row);
  // OCP MX: 2^(floor(log2 amax) - emax), emax 8 for e4m3: amax 1 -> 2^-8, 100 -> 2^(6 - 8).
  EXPECT_EQ(m.log2_factor[0], -8);
  EXPECT_EQ(m.log2_factor[1], -2);  // the outlier's block stands out
  EXPECT_EQ(m.log2_factor[2], -9);  // amax 0.5
  EXPECT_EQ(m.log2_factor[3], -9);
}

TEST(ScaleMap, PerChannelHasOneCellPerRowAndNvfp4TimesTheTensorScale) {
  const std::vector<double> x = two_rows();
  const Quantised pc = quantise(x, 2, 64, DType::int8, recipe(ScalingKind::PerChannel), {});
  const ScaleMap m = scale_map(pc, recipe(ScalingKind::PerChannel));
  ASSERT_EQ(m.rows, 2u);
  ASSERT_EQ(m.cols, 1u);
  EXPECT_EQ(m.block, 64u);
  EXPECT_TRUE(m.per_row);
  EXPECT_EQ(m.log2_factor[0], std::log2(pc.row_factor[0]));
  EXPECT_NEAR(m.log2_factor[0], std::log2(100.0 / 127), 1e-6);  // float32 of 1 / (127 / 100)
  const Quantised nv = quantise(x, 2, 64, DType::float4_e2m1fn, recipe(ScalingKind::NVFP4), {});
  const ScaleMap n = scale_map(nv, recipe(ScalingKind::NVFP4));
  ASSERT_EQ(n.cols, 4u);
  for (size_t r = 0; r < 2; ++r)
    for (size_t b = 0; b < 4; ++b)
      EXPECT_EQ(n.log2_factor[r * 4 + b], std::log2(nv.block_scales[r * 4 + b] * nv.row_factor[r]));
}

TEST(ScaleMap, AGroupIsItsFloat16Scale) {
  const std::vector<double> x = two_rows();
  const Scaling s = recipe(ScalingKind::Group, 16);
  const Quantised q = quantise(x, 2, 64, DType::int8, s, {});
  const ScaleMap m = scale_map(q, s);
  ASSERT_EQ(m.cols, 4u);
  EXPECT_EQ(m.block, 16u);
  EXPECT_EQ(m.log2_factor[2], std::log2(q.block_scales[2]));  // the group holding the outlier
  EXPECT_GT(m.log2_factor[2], m.log2_factor[0] + 6);
}

TEST(ScaleMap, OneScaleForTheTensorHasNoMap) {
  const std::vector<double> x = two_rows();
  for (ScalingKind k : {ScalingKind::None, ScalingKind::PerTensor})
    EXPECT_TRUE(scale_map(quantise(x, 2, 64, DType::float8_e4m3fn, recipe(k), {}), recipe(k)).empty());
}

// 300 rows of 96: averaged into cells of 2 rows (at most 256 each way); an all-zero block has no
// scale and is left out of its cell, which is NaN when it holds nothing else.
TEST(ScaleMap, ALargeTensorIsAveragedAndZeroBlocksAreLeftOut) {
  std::vector<double> x(300 * 96);
  for (size_t r = 0; r < 300; ++r)
    for (size_t c = 0; c < 96; ++c) x[r * 96 + c] = r % 2 ? 4.0 : 1.0;  // scales 2^-6 and 2^-8 in e4m3 MX
  for (size_t c = 0; c < 32; ++c) x[c] = 0, x[96 + c] = 0;              // rows 0 and 1's first block: zero
  const Quantised q = quantise(x, 300, 96, DType::float8_e4m3fn, recipe(ScalingKind::MX), {});
  const ScaleMap m = scale_map(q, recipe(ScalingKind::MX));
  EXPECT_EQ(m.row_step, 2u);
  EXPECT_EQ(m.rows, 150u);
  EXPECT_EQ(m.cols, 3u);
  EXPECT_EQ(m.tensor_rows, 300u);
  EXPECT_TRUE(std::isnan(m.log2_factor[0]));
  EXPECT_EQ(m.log2_factor[1], -7);  // the mean of -8 and -6
  EXPECT_EQ(m.log2_factor[3], -7);
  const ScaleMap small = scale_map(q, recipe(ScalingKind::MX), 100);
  EXPECT_EQ(small.row_step, 3u);
  EXPECT_EQ(small.rows, 100u);
}

// The cast experiment keeps the map and draws it beside its histograms, for the recipes that have
// one: outlier channels in the data show as the blocks whose scale stands out.
TEST(ScaleMap, TheCastExperimentDrawsItForBlockAndRowRecipes) {
  RoundtripConfig c;
  c.rows = 64, c.cols = 256;
  c.data.distribution = Distribution::OutlierChannels;
  c.scaling = recipe(ScalingKind::MX);
  auto r = run_roundtrip(c);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->scales.rows, 64u);
  EXPECT_EQ(r->scales.cols, 8u);
  auto figures = figure::roundtrip_figures(*r);
  ASSERT_EQ(figures.size(), 3u);
  EXPECT_EQ(figures[2].name, "scale-map");
  ASSERT_TRUE(figures[2].heatmap);
  EXPECT_EQ(figures[2].heatmap->values.size(), 64u * 8u);
  EXPECT_EQ(figures[2].title, "The scale of each block of 32 along a row");
  c.scaling = recipe(ScalingKind::PerTensor);
  r = run_roundtrip(c);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->scales.empty());
  EXPECT_EQ(figure::roundtrip_figures(*r).size(), 2u);
}

// The largest nonempty bin's range and the count of values in bins entirely below `limit`.
std::pair<double, uint64_t> top_and_below(const Histogram& h, double limit) {
  double top = 0;
  uint64_t below = h.below;
  for (size_t i = 0; i < h.counts.size(); ++i) {
    if (h.counts[i] > 0) top = h.edges[i + 1];
    if (h.edges[i + 1] <= limit) below += h.counts[i];
  }
  return {top, below};
}

// Bug: the range figure drew the format's limits against the unscaled data: an fp4 per-tensor run
// that rounded 64,968 of 65,536 values to zero showed most of them right of the smallest
// subnormal. With a symmetric recipe the bars are the magnitudes the format rounds, each value
// over its scale. Bug: the axis said "times its scale", the reciprocal of the scale map's
// "scale" (an MX block's map read 2^-7 where its values were multiplied by 2^7).
TEST(RoundtripRange, ScaledRecipesHistogramWhatTheFormatRounds) {
  RoundtripConfig c;
  c.rows = 64, c.cols = 1024;
  c.dtype = DType::float4_e2m1fn;
  c.data.distribution = Distribution::OutlierChannels;
  c.data.scale = 100;  // far from float4's range until scaled
  c.scaling = recipe(ScalingKind::PerTensor);
  auto r = run_roundtrip(c);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->magnitudes_scaled);
  // The amax maps onto the largest value, 6; values under a quarter (half the smallest
  // subnormal, 0.5) round to zero, and at least the bins wholly below it hold no more than that.
  const auto [top, below] = top_and_below(r->magnitudes, 0.25);
  EXPECT_GE(top, 6.0);
  EXPECT_LT(top, 6.0 * 1.5);
  EXPECT_LE(below, r->flushed);
  EXPECT_GT(below, r->flushed / 2);
  const auto figures = figure::roundtrip_figures(*r);
  EXPECT_EQ(figures[1].x.label, "|x| / its scale");
  for (ScalingKind k : {ScalingKind::MX, ScalingKind::NVFP4, ScalingKind::PerChannel}) {
    c.scaling = recipe(k);
    r = run_roundtrip(c);
    ASSERT_TRUE(r) << r.error();
    EXPECT_TRUE(r->magnitudes_scaled) << scaling_name(k);
    EXPECT_LT(top_and_below(r->magnitudes, 0).first, 6.0 * 2) << scaling_name(k);  // each block near its scale
  }
  c.scaling = recipe(ScalingKind::None);
  r = run_roundtrip(c);
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(r->magnitudes_scaled);
  EXPECT_GE(top_and_below(r->magnitudes, 0).first, 100.0);
  c.dtype = DType::int8;
  c.scaling = recipe(ScalingKind::PerChannelAsymmetric);
  r = run_roundtrip(c);
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(r->magnitudes_scaled);
  EXPECT_EQ(figure::roundtrip_figures(*r)[1].title, "The data's magnitudes");
}

}  // namespace
}  // namespace pl::experiment
