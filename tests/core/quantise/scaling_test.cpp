// Scaling recipes on hand-worked inputs: where amax lands, the block scales MX and NVFP4
// choose, int8 per-channel and asymmetric ranges, saturation counts and refusals.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cfloat>
#include <cmath>

#include "core/dtype/codec.h"
#include "core/figure/experiment_figures.h"
#include "core/quantise/data_source.h"
#include "core/quantise/scaling.h"
#include "tests/core/test_util.h"

namespace pl::experiment {
namespace {

Quantised q(const std::vector<double>& x, size_t rows, DType t, ScalingKind k, double hist = 0) {
  Scaling s;
  s.kind = k;
  return quantise(x, rows, x.size() / rows, t, s, {}, hist);
}

// No recipe: each value rounded as round_to does, in the blocks the common case runs in, with
// the values the codec must finish (NaN, Inf, overflow) and the counts of saturated and
// flushed values as one-at-a-time rounding gives them; every rounding mode and overflow policy
// the element path takes. Long enough to be split between cores and into blocks with a ragged
// end (scaling.cpp's ArrayRounder rounds and counts each block in cache), and stochastic
// rounding checks that element i draws index i whichever block it falls in.
// MX's scale exponent from a block's amax: the scan reads a normal amax's exponent from its bits;
// it must be std::ilogb's, clamped to E8M0's range, for every amax (subnormals, powers of two,
// the largest double, zero).
// Bug: the window's recipe and data combos said only the names ("delayed", "mx",
// "torch-linear"). Each says what it does, from one table beside the names: none may be missing.
TEST(Scaling, EveryRecipeAndDistributionIsSaidInWords) {
  for (size_t i = 0; i < kScalingKindCount; ++i)
    EXPECT_GT(scaling_summary(static_cast<ScalingKind>(i)).size(), 20u) << scaling_name(static_cast<ScalingKind>(i));
  for (size_t i = 0; i < kDistributionCount; ++i)
    EXPECT_GT(distribution_summary(static_cast<Distribution>(i)).size(), 20u)
        << distribution_name(static_cast<Distribution>(i));
  EXPECT_NE(scaling_summary(ScalingKind::MX).find("32"), std::string_view::npos);
  EXPECT_NE(scaling_summary(ScalingKind::NVFP4).find("16"), std::string_view::npos);
}

TEST(Scaling, MxScaleExponentsAreIlogbsClamped) {
  const double amaxes[] = {1.0,    0.75,   448.0,        1e-3,   std::nextafter(2.0, 0.0), 0x1p-126, 0x1p-140,
                           1e-310, 5e-324, DBL_MAX,      1e300,  0.0};
  for (const DType t : {DType::float8_e4m3fn, DType::float4_e2m1fn, DType::float6_e3m2fn})
    for (const double a : amaxes) {
      const int emax = info(t).format.emax();
      const int expected = a > 0 ? std::clamp(std::ilogb(a) - emax, -127, 127) : -127;
      EXPECT_EQ(mx_scale_exponent(emax, a), expected) << a;
      EXPECT_EQ(mx_scale_exponent(t, a), expected) << a;
    }
}

TEST(Scaling, NoneRoundsEachValueAndCountsWhatHappened) {
  std::vector<double> x(70007);  // 7 rows of 10001
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(std::sin(double(i)) * 1.7, int(i % 41) - 28);
  x[3] = NAN, x[4] = INFINITY, x[5] = 1e6, x[6] = -65520, x[7] = 1e-9, x[8] = -0.0;
  for (Rounding mode : {Rounding::NearestEven, Rounding::TowardZero, Rounding::Stochastic}) {
    CastOptions o;
    o.rounding = mode;
    const Quantised r = quantise(x, 7, x.size() / 7, DType::float16, Scaling{}, o);
    const FloatFormat& h = info(DType::float16).format;
    size_t flushed = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = round_to(h, x[i], o, i);
      ASSERT_EQ(std::bit_cast<uint64_t>(r.values[i]), std::bit_cast<uint64_t>(want)) << i;
      flushed += want == 0 && x[i] != 0;
    }
    EXPECT_EQ(r.flushed, flushed);
    EXPECT_GT(flushed, 0u);
    EXPECT_EQ(r.saturated, 3u);  // 1e6, -65520 and Inf: past the largest finite value
  }
}

// What the values past the range became, as the report says it ("1 saturated" read wrong for a
// float16 Inf that stayed Inf): by the overflow policy, the rounding and the recipe.
TEST(Scaling, TheOutOfRangeOutcomeFollowsThePolicyTheRoundingAndTheRecipe) {
  CastOptions o;
  EXPECT_EQ(out_of_range_outcome(DType::float16, Scaling{}, o), "to Inf");
  EXPECT_EQ(out_of_range_outcome(DType::float8_e4m3fn, Scaling{}, o), "to NaN");                 // ml_dtypes' default
  EXPECT_EQ(out_of_range_outcome(DType::float4_e2m1fn, Scaling{}, o), "to the largest finite");  // no Inf, no NaN
  EXPECT_EQ(out_of_range_outcome(DType::float16, Scaling{ScalingKind::PerTensor}, o), "to the largest finite");
  EXPECT_EQ(out_of_range_outcome(DType::int8, Scaling{ScalingKind::PerChannel}, o), "clamped");
  EXPECT_EQ(out_of_range_outcome(DType::float64, Scaling{}, o), "to Inf");
  o.rounding = Rounding::TowardZero;  // a finite value past the range rounds down to the largest
  EXPECT_EQ(out_of_range_outcome(DType::float16, Scaling{}, o), "to the largest finite");
  o.rounding = Rounding::NearestEven;
  o.overflow = Overflow::Saturate;
  EXPECT_EQ(out_of_range_outcome(DType::float8_e4m3fn, Scaling{}, o), "to the largest finite");
  // What quantise() did agrees: 1e6 into float16 under the default policy.
  const Quantised q = quantise(std::vector<double>{1e6}, 1, 1, DType::float16, Scaling{}, CastOptions{});
  EXPECT_EQ(q.saturated, 1u);
  EXPECT_TRUE(std::isinf(q.values[0]));
}

// A run of rows quantised with the whole tensor's amax is those rows of the whole tensor
// quantised: the checkpoint scan cuts large tensors so, and its bits must be the cast's.
TEST(Scaling, RowsOfATensorTakeTheWholeTensorsAmaxWhenGiven) {
  const size_t rows = 8, cols = 64;
  std::vector<double> x = generate({Distribution::Normal}, rows, cols, 5, 1);
  x[3 * cols + 7] = 40;  // the tensor's amax, in row 3
  CastOptions o;
  for (auto [dtype, kind] :
       {std::pair{DType::float8_e4m3fn, ScalingKind::PerTensor}, std::pair{DType::float4_e2m1fn, ScalingKind::NVFP4}}) {
    Scaling s{kind};
    const Quantised whole = quantise(x, rows, cols, dtype, s, o);
    s.tensor_amax = 40;
    const auto tail = std::span<const double>(x).subspan(4 * cols);  // rows 4..7: their own amax is smaller
    const Quantised part = quantise(tail, 4, cols, dtype, s, o);
    const auto w = whole.dequantised(), p = part.dequantised();
    for (size_t i = 0; i < 4 * cols; ++i)
      ASSERT_EQ(std::bit_cast<uint64_t>(p[i]), std::bit_cast<uint64_t>(w[4 * cols + i])) << i;
    s.tensor_amax = 0;                                           // without it, the rows' own amax: another scale
    const Quantised own = quantise(tail, 4, cols, dtype, s, o);  // (held: dequantised() views it)
    EXPECT_FALSE(std::equal(own.dequantised().begin(), own.dequantised().end(), p.begin()));
  }
}

// An asymmetric recipe's flushed are the nonzero values that became zero -- whose code is the
// zero point -- not the values whose code is 0 (which stands for -z times the scale: -1 here).
TEST(Scaling, AsymmetricFlushedAreValuesThatBecameZero) {
  const std::vector<double> x = {-1.0, 0.001, 0.002, 2.0};
  CastOptions o;
  const Quantised q = quantise(x, 1, 4, DType::uint8, Scaling{ScalingKind::PerChannelAsymmetric}, o);
  const double scale = 3.0 / 255;              // [-1, 2] onto 0..255: the zero point is 85
  EXPECT_EQ(q.dequantised()[0], -85 * scale);  // the code 0: -1, not a flush
  EXPECT_EQ(q.dequantised()[1], 0.0);
  EXPECT_EQ(q.dequantised()[2], 0.0);
  EXPECT_EQ(q.flushed, 2u);
}

// Group-wise integers, GPTQ / AWQ style: a float16 scale per group of G along the row.
TEST(Scaling, GroupsShareAFloat16ScaleAndAsymmetricGroupsAZeroPoint) {
  // Two groups of 4 in one row: amax 2.54 and 0.1.
  const std::vector<double> x = {2.54, -1.0, 0.5, 0.0, 0.1, -0.05, 0.025, 0.0125};
  CastOptions o;
  Scaling s{ScalingKind::Group};
  s.group = 4;
  ASSERT_TRUE(check(s, DType::int8));
  const Quantised q = quantise(x, 1, 8, DType::int8, s, o);
  const FloatFormat& f16 = info(DType::float16).format;
  const double s0 = round_to(f16, 2.54 / 127, o), s1 = round_to(f16, 0.1 / 127, o);
  ASSERT_EQ(q.block_scales, (std::vector<double>{s0, s1}));
  for (size_t i = 0; i < 8; ++i) {
    const double scale = i < 4 ? s0 : s1;
    EXPECT_EQ(q.dequantised()[i], std::clamp(std::nearbyint(x[i] / scale), -127.0, 127.0) * scale) << i;
  }
  // Asymmetric uint8: [min(lo, 0), max(hi, 0)] onto 0..255 with a zero point.
  s.kind = ScalingKind::GroupAsymmetric;
  const std::vector<double> y = {-1.0, 3.0, 0.5, 2.0};
  const Quantised a = quantise(y, 1, 4, DType::uint8, s, o);
  const double scale = round_to(f16, 4.0 / 255, o), z = std::nearbyint(1.0 / scale);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(a.dequantised()[i], (std::clamp(std::nearbyint(y[i] / scale + z), 0.0, 255.0) - z) * scale) << i;
  EXPECT_FALSE(check(Scaling{ScalingKind::Group}, DType::uint8));  // symmetric needs a sign
  EXPECT_FALSE(check(Scaling{ScalingKind::Group}, DType::float8_e4m3fn));
  EXPECT_EQ(parse_scaling_spec("group:64")->group, 64);
  EXPECT_EQ(scaling_spec(*parse_scaling_spec("group-asymmetric:32")), "group-asymmetric:32");
  EXPECT_FALSE(parse_scaling_spec("group:1"));
  EXPECT_FALSE(parse_scaling_spec("mx:16"));
  EXPECT_FALSE(parse_scaling_spec("per-channel:8"));
  EXPECT_TRUE(parse_scaling_spec("mx:32"));  // a block as it is, said
  // Bug: ":0" was read as the recipe alone where the recipe has no blocks.
  for (const char* spec : {"none:0", "per-tensor:0", "delayed:0", "per-channel:0"}) {
    const auto refused = parse_scaling_spec(spec);
    ASSERT_FALSE(refused) << spec;
    EXPECT_NE(refused.error().find("has no blocks"), std::string::npos) << refused.error();
  }
}

TEST(Scaling, PerTensorMapsAmaxToTheLargestValue) {
  const std::vector<double> x = {0.5, -3.0, 1.25, 0.001};
  const Quantised r = q(x, 1, DType::float8_e4m3fn, ScalingKind::PerTensor);
  // scale = f32(448 / 3); -3 * scale rounds to -448 exactly.
  EXPECT_EQ(r.values[1], -448);
  EXPECT_EQ(r.amax, 3.0);
  EXPECT_EQ(r.row_factor[0], static_cast<double>(static_cast<float>(1.0 / static_cast<float>(448.0 / 3.0))));
  EXPECT_EQ(r.saturated, 0u);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(r.dequantised()[i], x[i], std::fabs(x[i]) * 0.0625 + 1e-9);
}

TEST(Scaling, DelayedScalingSaturatesWhatTheHistoryDidNotSee) {
  const std::vector<double> x = {1.0, 2.0, 8.0};
  const Quantised r = q(x, 1, DType::float8_e4m3fn, ScalingKind::PerTensorDelayed, 2.0);
  EXPECT_EQ(r.values[1], 448);  // 2 is the history's amax
  EXPECT_EQ(r.values[2], 448);  // 8 is beyond it: clamped
  EXPECT_EQ(r.saturated, 1u);
}

TEST(Scaling, MxSharesAPowerOfTwoPerBlockOf32) {
  std::vector<double> x(64, 0.25);
  x[3] = 6.0;    // block 0 amax 6: floor(log2 6) = 2, e4m3 emax 8 -> scale 2^-6
  x[40] = -0.7;  // block 1 amax 0.7: floor(log2 0.7) = -1 -> scale 2^-9
  const Quantised r = q(x, 1, DType::float8_e4m3fn, ScalingKind::MX);
  ASSERT_EQ(r.block_scales.size(), 2u);
  EXPECT_EQ(r.block_scales[0], std::ldexp(1.0, -6));
  EXPECT_EQ(r.block_scales[1], std::ldexp(1.0, -9));
  EXPECT_EQ(r.values[3], 6.0);       // 6 * 2^6 = 384 is an e4m3 number
  EXPECT_EQ(r.values[40], -0.6875);  // -0.7 * 2^9 = -358.4 -> -352 (step 32), times 2^-9
  EXPECT_EQ(r.row_factor[0], 1.0);
}

TEST(Scaling, Nvfp4UsesE4m3BlockScalesAndAFloat32TensorScale) {
  std::vector<double> x(16, 0.0);
  x[0] = 6.0;
  x[1] = 1.0;
  x[2] = -2.9;
  const Quantised r = q(x, 1, DType::float4_e2m1fn, ScalingKind::NVFP4);
  // enc = f32(2688 / 6) = 448, block scale = e4m3(6 / 6 * 448) = 448, dec = f32(1 / 448).
  EXPECT_EQ(r.block_scales[0], 448);
  EXPECT_EQ(r.row_factor[0], static_cast<double>(1.0f / 448.0f));
  EXPECT_EQ(r.values[0] / 448, 6);  // fp4 elements times the block scale
  EXPECT_EQ(r.values[1] / 448, 1);
  EXPECT_EQ(r.values[2] / 448, -3);  // -2.9 -> -3 (fp4 has 2, 3, 4)
}

TEST(Scaling, Int8PerChannelUsesEachRowsRange) {
  const std::vector<double> x = {1.0, -0.5, 0.25, 100.0, 50.0, -100.0};
  const Quantised r = q(x, 2, DType::int8, ScalingKind::PerChannel);
  EXPECT_EQ(r.values[0], 127);
  EXPECT_EQ(r.values[1], -64);  // -63.5 ties to even
  EXPECT_EQ(r.values[3], 127);
  EXPECT_EQ(r.values[5], -127);
  EXPECT_NE(r.row_factor[0], r.row_factor[1]);
}

TEST(Scaling, AsymmetricInt8KeepsZeroExactAndErrorsWithinHalfAStep) {
  const std::vector<double> x = {0.0, 0.1, 2.0, 3.0, -1.0, 0.5};
  const Quantised r = q(x, 1, DType::int8, ScalingKind::PerChannelAsymmetric);
  EXPECT_EQ(r.dequantised()[0], 0.0);
  const double step = r.row_factor[0];
  EXPECT_NEAR(step, 4.0 / 255, 1e-15);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_LE(std::fabs(r.dequantised()[i] - x[i]), step / 2 + 1e-15);
}

TEST(Scaling, TheStoredTensorIsTheValuesTimesEachRowsFactor) {
  const std::vector<double> x = {0.3, -1.7, 2.2, 0.01, 5.0, -0.4};
  const Quantised plain = q(x, 2, DType::bfloat16, ScalingKind::None);
  EXPECT_TRUE(plain.scaled.empty());  // no scale: the values are the tensor, not copied
  EXPECT_EQ(plain.dequantised().data(), plain.values.data());
  const Quantised per_row = q(x, 2, DType::int8, ScalingKind::PerChannel);
  ASSERT_EQ(per_row.dequantised().size(), x.size());
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(per_row.dequantised()[i], per_row.values[i] * per_row.row_factor[i / 3]) << i;
}

// float8_e8m0fnu has no zero: a zero becomes NaN, and nothing is flushed (the count of new
// zeros the recipes take would underflow if a zero did not stay zero).
TEST(Scaling, E8M0HasNoZeroToFlushTo) {
  const Quantised r = q({0.0, -0.0, 1.0, 1e-300}, 1, DType::float8_e8m0fnu, ScalingKind::None);
  EXPECT_TRUE(std::isnan(r.values[0]) && std::isnan(r.values[1]));
  EXPECT_EQ(r.values[2], 1.0);
  EXPECT_EQ(r.values[3], 0x1p-127);
  EXPECT_EQ(r.flushed, 0u);
}

// A device's rounding (RoundArray) gives the recipes the same bits and counts as the CPU's;
// one that fails leaves the work to the CPU and says why, the same bits again.
TEST(Scaling, ADeviceRoundsTheElementsOrTheCpuDoesAndSaysWhy) {
  std::vector<double> x(4096);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(std::cos(double(i)) * 1.3, int(i % 37) - 20);
  x[1] = 0, x[2] = NAN, x[3] = 1e9;
  size_t calls = 0;
  const RoundArray device = [&](const FloatFormat& f, const CastOptions& o, std::span<double> v) -> Status {
    ++calls;
    std::vector<double> in(v.begin(), v.end());
    round_each(f, in, v, o);
    return {};
  };
  const RoundArray failing = [](const FloatFormat&, const CastOptions&, std::span<double>) -> Status {
    return Error{"out of GPU memory"};
  };
  for (ScalingKind k : {ScalingKind::None, ScalingKind::PerChannel, ScalingKind::MX}) {
    CastOptions o;
    o.rounding = Rounding::Stochastic;
    const Quantised cpu = quantise(x, 32, 128, DType::float8_e4m3fn, Scaling{k}, o);
    const Quantised dev = quantise(x, 32, 128, DType::float8_e4m3fn, Scaling{k}, o, 0, &device);
    const Quantised fell = quantise(x, 32, 128, DType::float8_e4m3fn, Scaling{k}, o, 0, &failing);
    EXPECT_FALSE(cpu.on_device);
    EXPECT_TRUE(dev.on_device && dev.device_error.empty());
    EXPECT_TRUE(!fell.on_device && fell.device_error == "out of GPU memory");
    for (const Quantised* r : {&dev, &fell}) {
      EXPECT_EQ(r->saturated, cpu.saturated);
      EXPECT_EQ(r->flushed, cpu.flushed);
      for (size_t i = 0; i < x.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint64_t>(r->values[i]), std::bit_cast<uint64_t>(cpu.values[i])) << i;
    }
  }
  EXPECT_EQ(calls, 3u);  // one call a tensor
}

// Every recipe's steps run on every core, rows split between them: a tensor stacked from 64
// copies of a small block (large enough to be split; the same amax as the block) quantises to
// 64 copies of the block's values, scales and factors, with 64 times its counts -- whichever
// core made which rows. (Nearest-even: stochastic draws depend on the element's place.)
TEST(Scaling, RowsSplitBetweenCoresGiveTheBitsOfTheRowsAlone) {
  const size_t rows = 4, cols = 1000, copies = 64;
  std::vector<double> block(rows * cols);
  for (size_t i = 0; i < block.size(); ++i) block[i] = std::ldexp(std::sin(double(i) * 0.7) * 1.9, int(i % 23) - 12);
  block[5] = 0, block[6] = NAN, block[7] = 3e5, block[8] = -1e-30;
  std::vector<double> stacked;
  for (size_t c = 0; c < copies; ++c) stacked.insert(stacked.end(), block.begin(), block.end());
  const struct {
    ScalingKind kind;
    DType dtype;
  } recipes[] = {{ScalingKind::PerTensor, DType::float8_e4m3fn}, {ScalingKind::PerTensorDelayed, DType::float8_e5m2},
                 {ScalingKind::PerChannel, DType::int8},         {ScalingKind::PerChannelAsymmetric, DType::uint8},
                 {ScalingKind::MX, DType::float6_e2m3fn},        {ScalingKind::NVFP4, DType::float4_e2m1fn},
                 {ScalingKind::None, DType::float8_e4m3fn}};
  for (const auto& recipe : recipes) {
    SCOPED_TRACE(std::string(scaling_name(recipe.kind)));
    const Quantised one = quantise(block, rows, cols, recipe.dtype, Scaling{recipe.kind}, {}, 3.5);
    const Quantised all = quantise(stacked, rows * copies, cols, recipe.dtype, Scaling{recipe.kind}, {}, 3.5);
    EXPECT_EQ(all.saturated, copies * one.saturated);
    EXPECT_EQ(all.flushed, copies * one.flushed);
    EXPECT_EQ(all.amax, one.amax);
    ASSERT_EQ(all.block_scales.size(), copies * one.block_scales.size());
    ASSERT_EQ(all.row_factor.size(), copies * rows);
    ASSERT_EQ(all.scaled.size(), copies * one.scaled.size());
    for (size_t c = 0; c < copies; ++c) {
      for (size_t i = 0; i < block.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint64_t>(all.values[c * block.size() + i]), std::bit_cast<uint64_t>(one.values[i]))
            << c << " " << i;
      for (size_t i = 0; i < one.scaled.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint64_t>(all.scaled[c * one.scaled.size() + i]),
                  std::bit_cast<uint64_t>(one.scaled[i]));
      for (size_t i = 0; i < one.block_scales.size(); ++i)
        ASSERT_EQ(all.block_scales[c * one.block_scales.size() + i], one.block_scales[i]);
      for (size_t r = 0; r < rows; ++r) ASSERT_EQ(all.row_factor[c * rows + r], one.row_factor[r]);
    }
  }
}

// Delayed scaling's amax history is drawn once for the same data and kept: the largest |x| over
// the tensors drawn directly; any input that changes the draws (the source, shape, seed, ids,
// count, fan-in) asks again; a cancel between tensors leaves no value behind.
TEST(Scaling, DelayedHistoryIsDrawnOnceForTheSameData) {
  DataSource s;
  s.scale = 2;
  const uint64_t seed = 0xdecade;
  double direct = 0;
  for (uint64_t id = 500; id < 504; ++id)
    for (double v : generate(s, 40, 30, seed, id, 30)) direct = std::max(direct, std::fabs(v));
  bool hit = true;
  EXPECT_EQ(drawn_amax(s, 40, 30, seed, 500, 4, 30, nullptr, &hit), direct);
  EXPECT_FALSE(hit);
  EXPECT_EQ(drawn_amax(s, 40, 30, seed, 500, 4, 30, nullptr, &hit), direct);
  EXPECT_TRUE(hit);
  DataSource wider = s;
  wider.scale = 3;
  DataSource heavy = s;
  heavy.distribution = Distribution::HeavyTailed;
  const auto asks_again = [&](const DataSource& src, size_t rows, size_t cols, uint64_t sd, uint64_t id, int count,
                              size_t fan_in) {
    bool again = true;
    const auto amax = drawn_amax(src, rows, cols, sd, id, count, fan_in, nullptr, &again);
    return amax && !again;
  };
  EXPECT_TRUE(asks_again(wider, 40, 30, seed, 500, 4, 30));
  EXPECT_TRUE(asks_again(heavy, 40, 30, seed, 500, 4, 30));
  EXPECT_TRUE(asks_again(s, 41, 30, seed, 500, 4, 30));
  EXPECT_TRUE(asks_again(s, 40, 31, seed, 500, 4, 30));
  EXPECT_TRUE(asks_again(s, 40, 30, seed + 1, 500, 4, 30));
  EXPECT_TRUE(asks_again(s, 40, 30, seed, 501, 4, 30));
  EXPECT_TRUE(asks_again(s, 40, 30, seed, 500, 5, 30));
  EXPECT_TRUE(asks_again(s, 40, 30, seed, 500, 4, 0));
  EXPECT_EQ(drawn_amax(wider, 40, 30, seed, 500, 4, 30), 1.5 * direct);  // normal draws times the scale
  const std::atomic<bool> cancel{true};
  EXPECT_FALSE(drawn_amax(s, 40, 30, seed, 900, 4, 30, &cancel).has_value());
  EXPECT_TRUE(asks_again(s, 40, 30, seed, 900, 4, 30));  // the cancelled ask kept nothing
}

TEST(Scaling, RecipesRefuseDtypesTheyDoNotTake) {
  EXPECT_NE(check(Scaling{ScalingKind::None}, DType::int8).error(), "");
  EXPECT_NE(check(Scaling{ScalingKind::MX}, DType::bfloat16).error(), "");
  EXPECT_NE(check(Scaling{ScalingKind::NVFP4}, DType::float8_e4m3fn).error(), "");
  EXPECT_NE(check(Scaling{ScalingKind::PerChannelAsymmetric}, DType::float16).error(), "");
  EXPECT_EQ(check(Scaling{ScalingKind::MX}, DType::float6_e3m2fn).error(), "");
  EXPECT_EQ(check(Scaling{ScalingKind::PerChannel}, DType::int8).error(), "");
}

TEST(DataSource, SameSeedSameNumbersWhateverTheThreads) {
  DataSource s;
  s.distribution = Distribution::OutlierChannels;
  s.outlier_fraction = 0.1;
  const auto a = generate(s, 300, 100, 9, 1), b = generate(s, 300, 100, 9, 1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, generate(s, 300, 100, 9, 2));
  // The outlier columns are ten of them, 20 times larger on average.
  const auto cols = outlier_columns(s, 100, 9, 1);
  ASSERT_EQ(cols.size(), 10u);
  double big = 0, small = 0;
  for (size_t r = 0; r < 300; ++r) {
    big += std::fabs(a[r * 100 + cols[0]]);
    small += std::fabs(a[r * 100 + (cols[0] + 1) % 100 == cols[1] ? (cols[0] + 2) % 100 : (cols[0] + 1) % 100]);
  }
  EXPECT_GT(big / small, 10);
}

TEST(DataSource, TorchLinearStaysInItsBound) {
  DataSource s;
  s.distribution = Distribution::TorchLinear;
  for (double v : generate(s, 10, 64, 1, 1, 64)) EXPECT_LE(std::fabs(v), 0.125);
  EXPECT_EQ(parse_distribution("heavy-tailed"), Distribution::HeavyTailed);
  EXPECT_FALSE(parse_distribution("gaussian"));
  s.scale = -1;
  EXPECT_NE(check(s).error(), "");
}

}  // namespace
}  // namespace pl::experiment

#include "core/experiment/roundtrip.h"

namespace pl::experiment {
namespace {

TEST(Roundtrip, Bfloat16StaysWithinItsUnitRoundoff) {
  RoundtripConfig c;
  c.rows = 16;
  c.cols = 256;
  c.dtype = DType::bfloat16;
  auto r = run_roundtrip(c);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->stats.count, 16u * 256u);
  EXPECT_LE(r->stats.max_rel, 0x1p-8);  // u = 2^-8 for round-to-nearest
  EXPECT_GT(r->stats.max_rel, 0x1p-10);
  EXPECT_EQ(r->saturated + r->flushed, 0u);
}

TEST(Roundtrip, PerTensorFp8FlushesTheSmallValuesOutliersPushDown) {
  RoundtripConfig c;
  c.rows = 64;
  c.cols = 256;
  c.scaling.kind = ScalingKind::PerTensor;
  c.data.distribution = Distribution::OutlierChannels;
  c.data.outlier_gain = 1000;  // the scale follows the outliers; ordinary values sink
  auto per_tensor = run_roundtrip(c);
  c.scaling.kind = ScalingKind::PerChannel;
  auto per_row = run_roundtrip(c);
  ASSERT_TRUE(per_tensor && per_row);
  EXPECT_GT(per_tensor->flushed, 0u);
  EXPECT_GE(per_tensor->flushed, per_row->flushed);
  c.dtype = DType::bfloat16;
  c.scaling.kind = ScalingKind::MX;
  EXPECT_FALSE(run_roundtrip(c));  // MX holds 8/6/4-bit floats only
}

// A tensor from a file round trips in its own shape, and the result and its figures name the
// file, not the data source the config would have drawn from.
TEST(Roundtrip, AFilesTensorIsNamedInTheResultAndFigures) {
  RoundtripSpec spec;
  spec.config.dtype = DType::bfloat16;
  spec.input_file = std::string(PL_IO_DIR) + "/f64.npy";
  const auto r = run_roundtrip(spec);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->input_file, spec.input_file);
  EXPECT_EQ(r->config.rows, 3u);
  const auto figures = figure::roundtrip_figures(*r);
  ASSERT_FALSE(figures.empty());
  EXPECT_NE(figures[0].subtitle.find("f64.npy"), std::string::npos) << figures[0].subtitle;
  EXPECT_EQ(figures[0].subtitle.find("normal("), std::string::npos) << figures[0].subtitle;
}

// The cast experiment reports its stages' progress, rising to 1, and stops when cancelled (as
// the window's worker asks of every experiment).
TEST(Roundtrip, ReportsProgressAndStopsWhenCancelled) {
  RoundtripConfig c;
  c.rows = 64, c.cols = 256;
  std::vector<double> seen;
  ASSERT_TRUE(run_roundtrip(c, {}, [&](double f) { seen.push_back(f); }).ok());
  ASSERT_GE(seen.size(), 3u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), 1.0);
  std::atomic<bool> cancel{false};
  size_t calls = 0;
  const auto stopped = run_roundtrip(
      {c, ""}, [&](double) { cancel = ++calls == 2; }, &cancel);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error(), "cancelled");
  EXPECT_EQ(calls, 2u);
}

}  // namespace
}  // namespace pl::experiment
