// The GEMM under every accumulation model equals dot() element by element (the lanes fast
// path included: widths that are not a multiple of its eight lanes), the BLAS paths agree
// with their own library, and cancelling stops it.
#include <cblas.h>
#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "core/accumulate/accumulation_spec.h"
#include "core/accumulate/blas.h"
#include "core/accumulate/gemm.h"
#include "core/backend/backend.h"
#include "core/dtype/codec.h"
#include "core/dtype/device/round_to_odd.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/experiment/on_device.h"
#include "core/experiment/reference_cache.h"
#include "core/util/thread_limit.h"
#include "tests/core/test_util.h"

namespace pl::experiment {
namespace {

std::vector<double> draw(size_t n, DType t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> v(n);
  for (double& x : v) x = round_to(info(t).format, normal(rng), {});
  return v;
}

Accumulation model(AccumKind k, DType f, Rounding r = Rounding::NearestEven) {
  Accumulation a;
  a.kind = k;
  a.format = f;
  a.rounding = r;
  a.block = 4;
  a.chunk = 5;
  return a;
}

void expect_equals_dot(const GemmShape& s, const std::vector<double>& a, const std::vector<double>& b,
                       const Accumulation& m) {
  auto c = gemm(s, a, b, m);
  ASSERT_TRUE(c) << describe(m) << ": " << c.error();
  for (size_t i = 0; i < s.m; ++i)
    for (size_t j = 0; j < s.n; ++j) {
      const double want =
          dot(std::span(a).subspan(i * s.k, s.k), std::span(b).subspan(j * s.k, s.k), m, gemm_stream_offset(i, j, s.n));
      const double got = (*c)[i * s.n + j];
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << describe(m) << " at " << i << "," << j;
      else
        EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want))
            << describe(m) << " at " << i << "," << j;
    }
}

// 13 rows (a group of eight, then five one by one) x 19 columns (two lanes of eight, then
// three one by one): every path of the GEMM -- the float32-hardware lanes when the products
// are exact float32 numbers, the emulated lanes, the general code.
TEST(Gemm, FastPathsEqualTheirDotProducts) {
  const GemmShape s{13, 19, 40};
  const auto a = draw(s.m * s.k, DType::bfloat16, 5), b = draw(s.n * s.k, DType::float16, 6);
  const auto a32 = draw(s.m * s.k, DType::float32, 7), b32 = draw(s.n * s.k, DType::float32, 8);
  for (const Accumulation& m : {model(AccumKind::Sequential, DType::float32), model(AccumKind::Chunked, DType::float32),
                                model(AccumKind::Sequential, DType::bfloat16)}) {
    expect_equals_dot(s, a, b, m);      // bf16 x f16: products are exact float32 numbers
    expect_equals_dot(s, a32, b32, m);  // f32 x f32: they are not; fused multiply-adds, or the float64 lanes
  }
  // Sums whose float64 value lands on a tie of the accumulator although the exact sum does
  // not (tests/data/accumulate/gen_accumulate.py's crafted cases): the lanes' rounding to odd decides.
  std::vector<double> ta(s.m * s.k, 0.0), tb(s.n * s.k, 0.0);
  for (size_t i = 0; i < s.m; ++i) ta[i * s.k] = 2050.0, ta[i * s.k + 1] = 1 + 0x1p-23;
  for (size_t j = 0; j < s.n; ++j) tb[j * s.k] = 1.0, tb[j * s.k + 1] = 1 - 0x1p-23;
  expect_equals_dot(s, ta, tb, model(AccumKind::Sequential, DType::float16));
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::float16)))[0], 2050.0);
  for (size_t i = 0; i < s.m; ++i) ta[i * s.k] = 0x1p40 + 0x1p17, ta[i * s.k + 1] = 0x1p8 + 0x1p-10;
  for (size_t j = 0; j < s.n; ++j) tb[j * s.k] = 1.0, tb[j * s.k + 1] = 0x1p8 - 0x1p-10;
  expect_equals_dot(s, ta, tb, model(AccumKind::Sequential, DType::float32));
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::float32)))[0], 0x1p40 + 0x1p17);
  // A sum one float64 ulp from a float32 midpoint (accumulate_test's
  // SumNextToAMidpointRoundsLikeTheExactSum): the lanes round to odd before rounding to nearest.
  for (size_t i = 0; i < s.m; ++i) ta[i * s.k] = 1.0, ta[i * s.k + 1] = 0x1.d55e000000000p-16;
  for (size_t j = 0; j < s.n; ++j) tb[j * s.k] = 1.0, tb[j * s.k + 1] = 0x1.a2e0fe0000000p-8;
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::float32)))[0], 1.0 + 0x1p-23);
  expect_equals_dot(s, ta, tb, model(AccumKind::Sequential, DType::float32));
  // Sums that overflow the accumulator (float16 beyond 65504, float32 via huge values) and a
  // NaN: the lanes give those elements to the general code.
  std::vector<double> big = a, nan_b = b;
  for (size_t k = 0; k < s.k; ++k) big[k] = 300.0, big[s.k + k] = -3e19;
  nan_b[2 * s.k + 3] = NAN;
  for (const Accumulation& m :
       {model(AccumKind::Sequential, DType::float16), model(AccumKind::Sequential, DType::float32),
        model(AccumKind::Chunked, DType::float16)}) {
    expect_equals_dot(s, big, b, m);
    expect_equals_dot(s, a, nan_b, m);
  }
}

// Kahan's compensated sum (lanes_run_kahan: five roundings a product, each the general
// code's) and blocked pairwise sums (pairwise_lanes: leaves on the lanes, halves added as
// Accumulator::add adds them) for 16-bit, 8-bit and float32 accumulators; products exact in
// float32 (float32 pairwise then runs on float32 hardware) or not; magnitudes reaching the
// format's subnormals; sums that overflow, and a NaN, which the lanes hand to the general code.
// Pairwise blocks of 4 (K = 40: a deep tree), 7 (leaves of uneven length) and 64 (one leaf).
TEST(Gemm, KahanAndPairwiseOnTheLanesEqualTheirDotProducts) {
  const GemmShape s{13, 19, 40};
  const auto a = draw(s.m * s.k, DType::bfloat16, 15), b = draw(s.n * s.k, DType::float16, 16);
  const auto a32 = draw(s.m * s.k, DType::float32, 17), b32 = draw(s.n * s.k, DType::float32, 18);
  std::vector<double> tiny = a, big = a, nan_b = b;
  for (double& v : tiny) v *= 0x1p-14;  // products near float16's and e5m2's subnormals
  for (size_t k = 0; k < s.k; ++k) big[k] = 300.0, big[s.k + k] = -3e19;
  nan_b[2 * s.k + 3] = NAN;
  std::vector<Accumulation> models;
  for (DType f : {DType::float16, DType::bfloat16, DType::float32, DType::float8_e5m2}) {
    models.push_back(model(AccumKind::Kahan, f));
    for (int block : {4, 7, 64}) {
      models.push_back(model(AccumKind::Pairwise, f));
      models.back().block = block;
    }
  }
  // Products of about 0.6 of the format's largest value, of either sign: no product overflows,
  // but sums do, at any of Kahan's additions, and some come back below the largest -- the lanes
  // must hand those to the general code (float8_e4m3fn has no Inf: past the largest, NaN).
  std::vector<double> near_max_a(s.m * s.k), near_max_b(s.n * s.k);
  std::mt19937_64 rng(19);
  std::uniform_real_distribution<double> mag(195.0, 205.0);
  for (double& x : near_max_a) x = round_to(info(DType::bfloat16).format, (rng() & 1 ? -1 : 1) * mag(rng), {});
  for (double& x : near_max_b) x = round_to(info(DType::bfloat16).format, (rng() & 1 ? -1 : 1) * mag(rng), {});
  models.push_back(model(AccumKind::Kahan, DType::float8_e4m3fn));
  for (const Accumulation& m : models) {
    expect_equals_dot(s, a, b, m);
    expect_equals_dot(s, a32, b32, m);
    expect_equals_dot(s, tiny, b, m);
    expect_equals_dot(s, big, b, m);
    expect_equals_dot(s, a, nan_b, m);
    if (m.format == DType::float32) continue;
    // scaled by a power of two near sqrt(largest / 65504): products 38000-42000 for float16
    const double scale = std::exp2(std::round(std::log2(std::sqrt(max_finite(info(m.format).format) / 65504.0))));
    std::vector<double> sa = near_max_a, sb = near_max_b;
    for (double& x : sa) x *= scale;
    for (double& x : sb) x *= scale;
    expect_equals_dot(s, sa, sb, m);
  }
  // Two products a sum: one just below the largest value L, then one past it of the other sign.
  // Kahan's y is past L (a rounding that stays finite there: float8's) and t well below -- the
  // lane must go back all the same.
  std::uniform_real_distribution<double> below(0.9, 0.95), past(1.05, 1.1), near_one(1.0, 1.05);
  const GemmShape two{13, 19, 2};
  for (DType f : {DType::float8_e4m3fn, DType::float8_e5m2, DType::float16, DType::bfloat16}) {
    const double root = std::sqrt(max_finite(info(f).format));
    const FloatFormat& bf16 = info(DType::bfloat16).format;
    std::vector<double> pa(two.m * two.k), pb(two.n * two.k);
    for (size_t i = 0; i < two.m; ++i) {
      const double sign = i % 2 ? -1.0 : 1.0;
      pa[2 * i] = round_to(bf16, -sign * root * below(rng), {});
      pa[2 * i + 1] = round_to(bf16, sign * root * past(rng), {});
    }
    for (double& x : pb) x = round_to(bf16, root * near_one(rng), {});
    expect_equals_dot(two, pa, pb, model(AccumKind::Kahan, f));
  }
  // And y equal to the largest: s = -25456, y = 65504 gives t = 40064 (40048 rounded up, a tie
  // to even), and t - s = 65520 rounds to 65536, past float16's largest -- c is Inf, and the next
  // product makes the sum -Inf. Watching only for values past the largest would miss it.
  const GemmShape three{9, 8, 3};
  std::vector<double> ya(three.m * three.k), yb(three.n * three.k, 1.0);
  for (size_t i = 0; i < three.m; ++i) ya[3 * i] = -25456, ya[3 * i + 1] = 65504, ya[3 * i + 2] = 1;
  expect_equals_dot(three, ya, yb, model(AccumKind::Kahan, DType::float16));
  EXPECT_EQ((*gemm(three, ya, yb, model(AccumKind::Kahan, DType::float16)))[0], -INFINITY);
}

// A float32 accumulator with float32 operands whose products are not float32 numbers runs on
// float32 hardware: one fused multiply-add a product (the model rounds a b + s once), and for
// Kahan a plain multiply (the model rounds the product first). Operands over 135 binades, so
// that products land in float32's subnormals, its normal range, and past it (those sums go to
// the general code); and a sum a separate multiply and add would get wrong: 2^24 + a b with
// a b = 1 + 2^-36 is 2^24 + 2, where rounding a b to 1 first makes a tie that goes to 2^24.
TEST(Gemm, Float32OperandsOnFusedMultiplyAddEqualTheirDotProducts) {
  const GemmShape s{13, 19, 40};
  std::mt19937_64 rng(31);
  std::uniform_int_distribution<int> exponent(-75, 60);
  std::uniform_real_distribution<double> frac(-2.0, 2.0);
  std::vector<double> a(s.m * s.k), b(s.n * s.k), small_a(s.m * s.k);
  for (double& x : a) x = static_cast<float>(std::ldexp(frac(rng), exponent(rng)));
  for (double& x : b) x = static_cast<float>(std::ldexp(frac(rng), exponent(rng)));
  for (double& x : small_a) x = static_cast<float>(frac(rng));  // sums that stay finite
  std::vector<Accumulation> models = {model(AccumKind::Sequential, DType::float32),
                                      model(AccumKind::Chunked, DType::float32),
                                      model(AccumKind::Kahan, DType::float32)};
  for (int block : {4, 7, 64}) {
    models.push_back(model(AccumKind::Pairwise, DType::float32));
    models.back().block = block;
  }
  std::vector<double> a64 = small_a;  // float64 operands: not float32 numbers, the float64 lanes
  for (double& x : a64) x += 0x1p-40;
  for (const Accumulation& m : models) {
    expect_equals_dot(s, a, b, m);
    expect_equals_dot(s, small_a, b, m);
    expect_equals_dot(s, a64, b, m);
  }
  std::vector<double> ta(s.m * s.k, 0.0), tb(s.n * s.k, 0.0);
  for (size_t i = 0; i < s.m; ++i) ta[i * s.k] = 0x1p24, ta[i * s.k + 1] = 1 + 0x1p-12;
  for (size_t j = 0; j < s.n; ++j) tb[j * s.k] = 1.0, tb[j * s.k + 1] = 1 - 0x1p-12 + 0x1p-24;
  for (const Accumulation& m : models) expect_equals_dot(s, ta, tb, m);
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::float32)))[0], 0x1p24 + 2);
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Kahan, DType::float32)))[0], 0x1p24);  // product rounded: a tie
}

// Narrow accumulators on float32 lanes (products exact in float32): every format the path
// takes, at magnitudes that reach the accumulator's subnormals and its overflow, and sums whose
// float32 value is a tie of the accumulator while the exact sum is not -- rounding to odd first
// decides them (8192 + (4 + 2^-19) in float16 is 8200, not 8192; 256 + (1 + 2^-20) in bfloat16
// is 258, not 256).
TEST(Gemm, NarrowAccumulatorsOnFloat32LanesEqualTheirDotProducts) {
  const GemmShape s{13, 19, 40};
  for (const double scale : {1.0, 0x1p-14, 0x1p-20, 64.0}) {
    auto a = draw(s.m * s.k, DType::float8_e4m3fn, 11), b = draw(s.n * s.k, DType::float16, 12);
    for (double& x : a) x *= scale;
    for (const Accumulation& m :
         {model(AccumKind::Sequential, DType::float16), model(AccumKind::Sequential, DType::bfloat16),
          model(AccumKind::Sequential, DType::float8_e5m2), model(AccumKind::Sequential, DType::float8_e4m3fn),
          model(AccumKind::Chunked, DType::bfloat16), model(AccumKind::Chunked, DType::float16)}) {
      SCOPED_TRACE(scale);
      expect_equals_dot(s, a, b, m);
    }
  }
  std::vector<double> ta(s.m * s.k, 0.0), tb(s.n * s.k, 0.0);
  for (size_t j = 0; j < s.n; ++j) tb[j * s.k] = 1.0, tb[j * s.k + 1] = 1.0;
  for (size_t i = 0; i < s.m; ++i)
    ta[i * s.k] = (i % 2 ? -1.0 : 1.0) * 8192, ta[i * s.k + 1] = (i % 2 ? -1.0 : 1.0) * (4 + 0x1p-19);
  expect_equals_dot(s, ta, tb, model(AccumKind::Sequential, DType::float16));
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::float16)))[0], 8200.0);
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::float16)))[s.n], -8200.0);
  for (size_t i = 0; i < s.m; ++i) ta[i * s.k] = 256, ta[i * s.k + 1] = 1 + 0x1p-20;
  expect_equals_dot(s, ta, tb, model(AccumKind::Sequential, DType::bfloat16));
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::bfloat16)))[0], 258.0);
  // A tie in float16's subnormals: 2^-24 + 2^-25 is 1.5 quanta and rounds to 2 (even).
  for (size_t i = 0; i < s.m; ++i) ta[i * s.k] = 0x1p-24, ta[i * s.k + 1] = 0x1p-25;
  expect_equals_dot(s, ta, tb, model(AccumKind::Sequential, DType::float16));
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::float16)))[0], 0x1p-23);
  // Past float16's largest finite value: those elements go to the general code.
  for (size_t i = 0; i < s.m; ++i) ta[i * s.k] = 60000, ta[i * s.k + 1] = 8000;
  expect_equals_dot(s, ta, tb, model(AccumKind::Sequential, DType::float16));
  // ... also when later products bring the float32 lanes' sum back below it (the lanes watch
  // every step's magnitude, not just the last): the model's sum is Inf from the overflow on.
  for (size_t j = 0; j < s.n; ++j) tb[j * s.k + 2] = 1.0, tb[j * s.k + 3] = 1.0;
  for (size_t i = 0; i < s.m; ++i) ta[i * s.k + 2] = -30000, ta[i * s.k + 3] = -30000;
  expect_equals_dot(s, ta, tb, model(AccumKind::Sequential, DType::float16));
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::float16)))[0], INFINITY);
  for (size_t i = 0; i < s.m; ++i)
    ta[i * s.k] = 0x1.1p127, ta[i * s.k + 1] = 0x1.1p127, ta[i * s.k + 2] = -0x1.1p127, ta[i * s.k + 3] = -0x1.1p127;
  expect_equals_dot(s, ta, tb, model(AccumKind::Sequential, DType::bfloat16));
  EXPECT_EQ((*gemm(s, ta, tb, model(AccumKind::Sequential, DType::bfloat16)))[0], INFINITY);
}

// Narrow accumulators of products that are not float32 numbers (float32 operands): float64
// product and sum, rounded to float32, then to the format, each step watched for a float32 value
// on a midpoint of the format, and such a step redone exactly. Random operands over wide ranges
// (subnormals of the formats, overflow; float64 operands once), every model the kernels serve;
// then sums whose float32 value is a midpoint although the exact sum is not -- above it (8192 +
// 4 + 2^-20 in float16 is 8200, not 8192; 256 + 1 + 2^-20 in bfloat16 is 258; 16 + 1 + 2^-21 in
// float8_e4m3fn is 18), below it (8192 + 4 - 2^-44 is 8192), in float16's subnormals (2^-24 +
// 2^-25 - 2^-71 is 2^-24), and a product alone, sequential and Kahan.
TEST(Gemm, NarrowAccumulatorsOfWideProductsEqualTheirDotProducts) {
  const GemmShape s{13, 19, 40};
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> frac(-2.0, 2.0);
  for (const int spread : {2, 12, 40}) {
    std::uniform_int_distribution<int> exponent(-spread, spread / 4);
    std::vector<double> a(s.m * s.k), b(s.n * s.k);
    for (double& x : a) x = static_cast<float>(std::ldexp(frac(rng), exponent(rng)));
    for (double& x : b) x = static_cast<float>(std::ldexp(frac(rng), exponent(rng)));
    if (spread == 12)  // float64 operands too: their products are rounded to float64, as dot() does
      for (double& x : a) x = std::ldexp(frac(rng), exponent(rng));
    for (DType f : {DType::float16, DType::bfloat16, DType::float8_e5m2, DType::float8_e4m3fn}) {
      SCOPED_TRACE(spread);
      for (const Accumulation& m : {model(AccumKind::Sequential, f), model(AccumKind::Chunked, f),
                                    model(AccumKind::Pairwise, f), model(AccumKind::Kahan, f)})
        expect_equals_dot(s, a, b, m);
    }
  }
  struct Tie {
    DType format;
    double first, a, b, want;  // first * 1 + a * b
  };
  const Tie ties[] = {
      {DType::float16, 8192, 2 + 0x1p-22, 2 + 0x1p-22, 8200},
      {DType::float16, 8192, 2 - 0x1p-22, 2 + 0x1p-22, 8192},
      {DType::bfloat16, 256, 1 + 0x1p-21, 1 + 0x1p-21, 258},
      {DType::float8_e4m3fn, 16, 1 + 0x1p-22, 1 + 0x1p-22, 18},
      {DType::float16, 0x1p-24, 0x1p-13 * (1 + 0x1p-23), 0x1p-12 * (1 - 0x1p-23), 0x1p-24},
      // A product alone on a midpoint once in float32 (Kahan rounds it before adding):
      // (1 + 2^-16)(1 + 2^-11 - 2^-16) = 1 + 2^-11 + 2^-27 - 2^-32, and the like.
      {DType::float16, 0, 1 + 0x1p-16, 1 + 0x1p-11 - 0x1p-16, 1 + 0x1p-10},
      {DType::bfloat16, 0, 1 + 0x1p-16, 1 + 0x1p-8 - 0x1p-16, 1 + 0x1p-7},
      {DType::float8_e4m3fn, 0, 1 + 0x1p-20, 1 + 0x1p-4 - 0x1p-20, 1.125},
      // ... and among float16's subnormals: (1 + 2^-21)(0x1.7ffffap-24) is just below 1.5 * 2^-24,
      // float32 rounds it onto that midpoint, float16's nearest even from there is 2^-23.
      {DType::float16, 0, 0x1.000004p+0, 0x1.7ffffap-24, 0x1p-24},
      // ... and a product the float16 kernel's midpoint test marks without its being one: below
      // 2^-14, rounded to float32 (0x1.488p-23) it ends in twelve zero bits; redone, it is still
      // 1.5 * 2^-23 rounded to even, 3 * 2^-24 (found by search).
      {DType::float16, 0, 0x1.991a12p+0, 0x1.9b2p-24, 0x1.8p-23},
      // Sums whose product rounded to float32 first would round differently, and not onto a
      // midpoint (the fused multiply-add is the model there; found by random search).
      {DType::float16, -0x1.4a4p+1, 0x1.92904cp+0, 0x1.a404dcp+0, -0x1.cf8p-15},
      {DType::float16, 0x1.378p+2, 0x1.60d564p+0, -0x1.c40d2ap+1, -0x1.5d4p-12},
  };
  for (const Tie& tie : ties) {
    std::vector<double> ta(s.m * s.k, 0.0), tb(s.n * s.k, 0.0);
    for (size_t i = 0; i < s.m; ++i) {
      const double sign = i % 2 ? -1.0 : 1.0;
      ta[i * s.k] = sign * tie.first, ta[i * s.k + 1] = sign * tie.a;
    }
    for (size_t j = 0; j < s.n; ++j) tb[j * s.k] = 1.0, tb[j * s.k + 1] = tie.b;
    for (AccumKind kind : {AccumKind::Sequential, AccumKind::Kahan}) {
      if (kind == AccumKind::Kahan && tie.first != 0) continue;  // Kahan's sums of two values are exact routes
      const Accumulation m = model(kind, tie.format);
      expect_equals_dot(s, ta, tb, m);
      const auto c = gemm(s, ta, tb, m);
      EXPECT_EQ((*c)[0], tie.want) << describe(m);
      EXPECT_EQ((*c)[s.n + 5], -tie.want) << describe(m);
    }
  }
}

// Kahan's narrow kernel watches less when the products bound its steps (kahan_watch: nothing when
// K (P + 2u) + u < L, t alone when P + 3u <= L). Float16 (L = 65504, u = 32), eight rows of the
// same products along K (rows alternating in sign), on each side of those bounds: sums of 64000
// (nothing watched); reaching 65504; passing it to Inf; 65400, just over the bound; and passing
// L then coming back (t alone watched: only the watch can tell). Float16 and float32 operands
// (times 1 + 2^-20: products that are not float32 numbers), equal to dot().
TEST(Gemm, KahansWatchFollowsTheProductsBound) {
  const std::vector<std::vector<double>> cases = {{32000, 32000},
                                                  {32752, 32752},
                                                  {20000, 20000, 20000, 20000},
                                                  {21800, 21800, 21800},
                                                  {40000, 40000, -40000, -40000}};
  for (const auto& products : cases)
    for (const double wide : {1.0, 1 + 0x1p-20}) {
      const GemmShape s{8, 8, products.size()};
      std::vector<double> a(s.m * s.k), b(s.n * s.k, 128);
      for (size_t i = 0; i < s.m; ++i)
        for (size_t k = 0; k < s.k; ++k) a[i * s.k + k] = (i % 2 ? -1.0 : 1.0) * products[k] / 128 * wide;
      const Accumulation m = model(AccumKind::Kahan, DType::float16);
      expect_equals_dot(s, a, b, m);
      const auto got = gemm(s, a, b, m);
      ASSERT_TRUE(got);
      const double want = dot(std::span(a).first(s.k), std::span(b).first(s.k), m, 0);
      SCOPED_TRACE(products[0]);
      if (products[1] == 20000 || products[1] == 40000) {
        EXPECT_FALSE(std::isfinite(want));  // the sums pass the largest value
      }
      EXPECT_EQ(std::bit_cast<uint64_t>((*got)[0]), std::bit_cast<uint64_t>(want));
    }
}

// What Kahan's narrow kernel stands on (narrow_sum_of_values): the sum of two values of a format
// of at most 11 bits, rounded to float32 and then to the format, is the exact sum rounded once
// (Figueroa: innocuous when 24 >= 2p + 1). Every pair of every format of 8 bits or fewer; for the
// 16-bit ones every value against 163 others (binade edges, float16's largest and smallest
// subnormal, random ones); tf32 sampled. And at 12 bits it is not so: a pair found by search.
TEST(Gemm, SumsOfTwoNarrowValuesRoundCorrectlyThroughFloat32) {
  auto same = [](double a, double b) {
    return std::isnan(a) ? std::isnan(b) : std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
  };
  auto once = [](const FloatFormat& f, double x, double y) {  // the exact sum rounded once
    const double hi = x + y, bb = hi - x, lo = (x - (hi - bb)) + (y - bb);
    return std::isfinite(hi) ? round_exact_sum(f, hi, lo, {}, 0) : round_to(f, hi, {});
  };
  auto twice = [](const FloatFormat& f, double x, double y) {
    return round_to(f, static_cast<double>(static_cast<float>(x) + static_cast<float>(y)), {});
  };
  std::mt19937_64 rng(51);
  size_t checked = 0;
  for (const DTypeInfo& d : all_dtypes()) {
    if (d.kind != DTypeKind::Float || d.format.precision() > 11 || d.format.mantissa_bits < 1) continue;
    const FloatFormat& f = d.format;
    std::vector<double> values;  // every finite value (a sample of 2^16 codes for tf32)
    for (uint64_t c = 0; c < 65536 && c <= f.code_mask(); ++c) {
      const uint64_t code = f.total_bits() <= 16 ? c : rng() & f.code_mask();
      if (const double v = decode(f, code); std::isfinite(v)) values.push_back(v);
    }
    std::vector<double> partners = values;
    if (values.size() > 4096) {
      std::vector<double> edges;
      for (int e = f.emin() - f.mantissa_bits; e <= f.emax(); ++e)
        for (double v : {std::ldexp(1.0, e), -std::ldexp(1.0, e), std::ldexp(1.5, e)})
          if (round_to(f, v, {}) == v) edges.push_back(v);
      partners.assign({0x1p-24, -0x1p-24, f.emin() == -14 ? 65504.0 : 0.0});
      for (int n = 0; n < 64; ++n) partners.push_back(edges[rng() % edges.size()]);
      for (int n = 0; n < 96; ++n) partners.push_back(values[rng() % values.size()]);
    }
    for (double x : partners)
      for (double y : values) {
        if (!same(once(f, x, y), twice(f, x, y))) FAIL() << d.name << ": " << std::hexfloat << x << " + " << y;
        ++checked;
      }
  }
  EXPECT_GT(checked, 20'000'000u);
  auto e5m11 = make_custom_format(5, 11, 15, Specials::IEEE);
  ASSERT_TRUE(e5m11);
  EXPECT_EQ(once(*e5m11, 0x1.d76p+0, -0x1.ffep-13), 1.84130859375);
  EXPECT_EQ(twice(*e5m11, 0x1.d76p+0, -0x1.ffep-13), 1.8408203125);
}

// The rounding to odd the lanes use (truncation with the last bit set when inexact) equals
// the definition -- the odd one of the two neighbours of hi + lo, or hi when exact -- for
// TwoSum pairs of every sign, at binade edges and next to zero.
TEST(Gemm, RoundingToOddMatchesItsDefinition) {
  std::mt19937_64 rng(21);
  // y at most 28 binades below x, so that hi + lo is exact in float64 (24 + 28 bits)
  std::uniform_int_distribution<int> exponent(-30, 30), shift(-2, 28);
  std::uniform_real_distribution<float> frac(1.0f, 2.0f);
  size_t checked = 0;
  for (int n = 0; n < 200000; ++n) {
    const int ex = exponent(rng);
    float x = n % 7 == 0 ? std::ldexp(1.0f, ex) : std::ldexp(frac(rng), ex);  // binade edges too
    if (rng() & 1) x = -x;
    float y = std::ldexp(frac(rng), ex - shift(rng));
    if (rng() & 1) y = -y;
    const float hi = x + y, bb = hi - x, lo = (x - (hi - bb)) + (y - bb);
    const double exact = double(hi) + double(lo);  // exact: TwoSum
    float want = hi;
    if (lo != 0) {
      const float below = std::nextafter(hi, lo > 0 ? hi : -INFINITY),
                  above = std::nextafter(hi, lo > 0 ? INFINITY : hi);
      const float a = lo > 0 ? hi : below, b = lo > 0 ? above : hi;  // a < exact < b
      ASSERT_TRUE(double(a) < exact && exact < double(b));
      want = (std::bit_cast<uint32_t>(a) & 1) ? a : b;
    }
    ASSERT_EQ(round_to_odd_bits<uint32_t>(hi, lo), std::bit_cast<uint32_t>(want)) << std::hexfloat << x << " + " << y;
    ++checked;
  }
  EXPECT_EQ(checked, 200000u);
}

TEST(Gemm, EveryModelEqualsItsDotProducts) {
  const GemmShape s{5, 19, 23};  // 19 columns: two lanes of eight, then three one by one
  const auto a = draw(s.m * s.k, DType::bfloat16, 1), b = draw(s.n * s.k, DType::float16, 2);
  const std::vector<Accumulation> models = {
      model(AccumKind::Float64, DType::float64),
      model(AccumKind::Sequential, DType::float16),
      model(AccumKind::Sequential, DType::bfloat16),
      model(AccumKind::Sequential, DType::float8_e5m2),
      model(AccumKind::Sequential, DType::float16, Rounding::TowardZero),
      model(AccumKind::Sequential, DType::bfloat16, Rounding::Stochastic),
      model(AccumKind::Pairwise, DType::float16),
      model(AccumKind::Kahan, DType::bfloat16),
      model(AccumKind::Chunked, DType::float16),
      model(AccumKind::Chunked, DType::float8_e4m3fnuz),  // no fast path: dot() itself
  };
  for (const Accumulation& m : models) {
    auto c = gemm(s, a, b, m);
    ASSERT_TRUE(c) << describe(m) << ": " << c.error();
    for (size_t i = 0; i < s.m; ++i)
      for (size_t j = 0; j < s.n; ++j) {
        const double want = dot(std::span(a).subspan(i * s.k, s.k), std::span(b).subspan(j * s.k, s.k), m,
                                gemm_stream_offset(i, j, s.n));
        const double got = (*c)[i * s.n + j];
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got));
        } else {
          EXPECT_EQ(got, want) << describe(m) << " at " << i << "," << j;
        }
      }
  }
}

// A stream base (ProductSpec::stream_offset) moves every element's draws by the same amount:
// element (i, j) of the product draws from base + gemm_stream_offset(i, j, n).
TEST(Gemm, AStreamBaseShiftsEveryElementsDraws) {
  const GemmShape s{3, 5, 40};
  const auto a = draw(s.m * s.k, DType::bfloat16, 3), b = draw(s.n * s.k, DType::bfloat16, 4);
  const Accumulation m = model(AccumKind::Sequential, DType::bfloat16, Rounding::Stochastic);
  const uint64_t base = uint64_t{7} << 32;
  auto shifted = gemm(s, a, b, m, {}, nullptr, base), plain = gemm(s, a, b, m);
  ASSERT_TRUE(shifted && plain);
  size_t differ = 0;
  for (size_t i = 0; i < s.m; ++i)
    for (size_t j = 0; j < s.n; ++j) {
      const double want = dot(std::span(a).subspan(i * s.k, s.k), std::span(b).subspan(j * s.k, s.k), m,
                              base + gemm_stream_offset(i, j, s.n));
      EXPECT_EQ((*shifted)[i * s.n + j], want) << i << "," << j;
      differ += (*shifted)[i * s.n + j] != (*plain)[i * s.n + j];
    }
  EXPECT_GT(differ, 0u);  // other draws, other sums
}

// The library picks its kernel and summation order by shape: a 1 x 1 product (dot()) and an
// element of a 5 x 19 GEMM differ in the last bits of float32 (seen with OpenBLAS 0.3.21), so
// the BLAS models are held to their error bound, not to dot().
TEST(Gemm, BlasModelsStayWithinTheirBound) {
  const GemmShape s{5, 19, 23};
  const auto a = draw(s.m * s.k, DType::bfloat16, 1), b = draw(s.n * s.k, DType::float16, 2);
  for (DType f : {DType::float32, DType::float64}) {
    const Accumulation m = model(AccumKind::Blas, f);
    auto c = gemm(s, a, b, m);
    ASSERT_TRUE(c) << c.error();
    const double bound = accumulation_bounds(m, s.k).deterministic;
    for (size_t i = 0; i < s.m; ++i)
      for (size_t j = 0; j < s.n; ++j) {
        double exact = 0, magnitude = 0;
        for (size_t k = 0; k < s.k; ++k) {
          exact += a[i * s.k + k] * b[j * s.k + k];  // exact here: 8 + 11 bits, |sum| small
          magnitude += std::fabs(a[i * s.k + k] * b[j * s.k + k]);
        }
        EXPECT_LE(std::fabs((*c)[i * s.n + j] - exact), bound * magnitude) << describe(m);
      }
  }
}

TEST(Gemm, BlasFloat32RefusesValuesItCannotHold) {
  const GemmShape s{1, 1, 2};
  const std::vector<double> a = {1.0, 0.1}, b = {1.0, 1.0};  // 0.1 is no float32
  auto c = gemm(s, a, b, model(AccumKind::Blas, DType::float32));
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().find("not a float32 number"), std::string::npos);
}

TEST(Gemm, ReferenceMatchesDgemmAndDoubleDouble) {
  const GemmShape s{4, 6, 300};
  const auto a = draw(s.m * s.k, DType::float32, 3), b = draw(s.n * s.k, DType::float32, 4);
  const auto fast = reference_gemm(s, a, b, false).value(), exact = reference_gemm(s, a, b, true).value();
  for (size_t e = 0; e < fast.size(); ++e) EXPECT_NEAR(fast[e], exact[e], 1e-12);
}

// The double-double reference stops when cancelled (minutes at 4096^3): an error, never a
// partial product; a cancelled experiment's reference is not kept for the next run.
TEST(Gemm, TheDoubleDoubleReferenceStopsWhenCancelled) {
  const GemmShape s{64, 8, 8};
  const std::vector<double> a(s.m * s.k, 1.0), b(s.n * s.k, 1.0);
  const std::atomic<bool> cancel{true};
  auto r = reference_gemm(s, a, b, true, &cancel);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "cancelled");
  EXPECT_TRUE(reference_gemm(s, a, b, false, &cancel).ok());  // one dgemm call: nothing to stop
  clear_reference_cache();
  EXPECT_EQ(reference_product(BackendChoice::Cpu, s, a, b, true, &cancel).values, nullptr);
  const CachedReference whole = reference_product(BackendChoice::Cpu, s, a, b, true);
  ASSERT_NE(whole.values, nullptr);
  EXPECT_EQ(whole.method, "double-double dot products (Dot2)");  // made anew, not "(cached)"
  EXPECT_EQ(test::values_of(whole.values)[0], 8.0);
}

TEST(Gemm, CancelledRunSaysSo) {
  const GemmShape s{64, 8, 8};
  const std::vector<double> a(s.m * s.k, 1.0), b(s.n * s.k, 1.0);
  std::atomic<bool> cancel{true};
  auto c = gemm(s, a, b, model(AccumKind::Sequential, DType::float16), {}, &cancel);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error(), "cancelled");
}

TEST(Blas, ReportsTheCoreItRuns) {
  const blas::Info i = blas::info();
  EXPECT_FALSE(i.core.empty());
  EXPECT_NE(i.config.find("OpenBLAS"), std::string::npos);
  EXPECT_GE(i.threads, 1);
}

// A call under a ThreadLimit lowers OpenBLAS's process-wide thread count for that call only
// (blas.cpp): the count is what it was afterwards, and info() says what a capped call uses.
TEST(Blas, ACappedCallUsesItsCapAndPutsTheCountBack) {
  const int all = blas::info().threads;
  const size_t n = 96;
  std::vector<double> a(n * n, 1.0), c(n * n);
  {
    const ThreadLimit one(1);
    EXPECT_EQ(blas::info().threads, 1);
    EXPECT_NE(blas::describe(blas::info()).find(", 1 thread"), std::string::npos) << blas::describe(blas::info());
    blas::gemm_nt(n, n, n, a.data(), a.data(), c.data());
    EXPECT_EQ(c[5], double(n));
  }
  EXPECT_EQ(blas::info().threads, all);
  EXPECT_EQ(openblas_get_num_threads(), all);
}

// CPU time the calling thread, and the process's other threads, have run: ns (Linux's schedstat).
struct ThreadsCpu {
  double caller = 0, others = 0;
};
ThreadsCpu threads_cpu_ns() {
  const std::string self = std::to_string(gettid());
  ThreadsCpu t;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream in(task.path() / "schedstat");
    double run = 0;
    if (in >> run) (task.path().filename() == self ? t.caller : t.others) += run;
  }
  return t;
}

// And OpenBLAS really runs a capped call on that many threads: its workers do next to none of
// a 1-thread dgemm's work, and a good share of an uncapped one's. (Which threads ran, measured
// as each thread's CPU time, not how fast.)
TEST(Blas, ACallCappedAtOneThreadLeavesOpenBlasWorkersIdle) {
  if (blas::info().threads < 2) GTEST_SKIP() << "one OpenBLAS thread: no worker";
  if (!std::filesystem::exists("/proc/self/task")) GTEST_SKIP() << "no /proc: cannot see the threads";
  const size_t n = 512;
  std::vector<double> a(n * n, 1.0), c(n * n);
  // The workers' share of the CPU time of four dgemms.
  auto workers_share = [&](unsigned cap) {
    const ThreadLimit limit(cap);
    blas::gemm_nt(n, n, n, a.data(), a.data(), c.data());        // wakes (or not) the workers
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // until they sleep again
    const ThreadsCpu before = threads_cpu_ns();
    for (int rep = 0; rep < 4; ++rep) blas::gemm_nt(n, n, n, a.data(), a.data(), c.data());
    const ThreadsCpu after = threads_cpu_ns();
    const double caller = after.caller - before.caller, others = after.others - before.others;
    return others / (caller + others);
  };
  const double all = workers_share(0), one = workers_share(1);
  // (Half the work is the worker's, but a caller that spins while a busy machine keeps the worker
  // waiting adds CPU time of its own: 0.24 under ThreadSanitizer beside another test on 2 cores.)
  EXPECT_GT(all, 0.1) << "the workers' share of four uncapped dgemms";
  EXPECT_LT(one, 0.05) << "the workers' share of four 1-thread dgemms (uncapped: " << all << ")";
  EXPECT_EQ(c[9], double(n));
}

// OpenBLAS's workers, started at its load, spin for about 0.1 s of a two-core machine's second
// core before they sleep, so main() stops them at its start. Here: a product starts them, and
// quieting them leaves the process with fewer threads until the next product. (Counted, not
// timed.)
TEST(Blas, QuietingTheIdleWorkersStopsThemUntilTheNextProduct) {
  if (blas::info().threads < 2) GTEST_SKIP() << "one OpenBLAS thread: no worker";
  if (!dlsym(RTLD_DEFAULT, "blas_thread_shutdown_")) GTEST_SKIP() << "a BLAS without OpenBLAS's blas_thread_shutdown_";
  if (!std::filesystem::exists("/proc/self/task")) GTEST_SKIP() << "no /proc: cannot see the threads";
  const auto threads = [] {
    size_t n = 0;
    for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) ++n;
    return n;
  };
  const size_t n = 256;
  std::vector<double> a(n * n, 1.0), c(n * n);
  blas::gemm_nt(n, n, n, a.data(), a.data(), c.data());
  const size_t working = threads();
  blas::quiet_idle_workers();
  // A joined thread can stay listed in /proc/self/task for a moment on a busy machine (1 run in
  // 60 beside two spinning processes): the count is read again until it drops, for up to 2 s.
  size_t quiet = threads();
  for (int tries = 0; quiet >= working && tries < 400; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    quiet = threads();
  }
  EXPECT_LT(quiet, working);
  blas::gemm_nt(n, n, n, a.data(), a.data(), c.data());
  EXPECT_EQ(threads(), working) << "the next product starts them again";
  EXPECT_EQ(c[7], double(n));
}

// Read as OpenBLAS reads it: an empty or zero value is its default (so not the user's choice
// to keep), and a value outside [4, 30] is clamped. Before, an empty OPENBLAS_THREAD_TIMEOUT=
// counted as set by the user: the workers spun 2^28 cycles and the statistics after an sgemm
// ran at two thirds of their speed.
TEST(Blas, ReadsTheUsersThreadTimeoutAsOpenBlasDoes) {
  EXPECT_EQ(blas::user_thread_timeout(nullptr), std::nullopt);
  EXPECT_EQ(blas::user_thread_timeout(""), std::nullopt);
  EXPECT_EQ(blas::user_thread_timeout("0"), std::nullopt);
  EXPECT_EQ(blas::user_thread_timeout("-3"), std::nullopt);
  EXPECT_EQ(blas::user_thread_timeout("fast"), std::nullopt);
  EXPECT_EQ(blas::user_thread_timeout("1"), 4);
  EXPECT_EQ(blas::user_thread_timeout("16"), 16);
  EXPECT_EQ(blas::user_thread_timeout("99"), 30);
}

// The lent H100 machine's OpenBLAS ran its Prescott (SSE3) kernels on a Xeon (its CPUID hid
// the model): the CPU device says which family to name instead, and only when there is one.
TEST(Blas, AdvisesACoreTypeWhenOpenBlasPicksAnOlderFamilyThanTheCpuHas) {
  const blas::CpuVectors avx2{true, true, false}, avx512{true, true, true}, sse{false, false, false};
  EXPECT_NE(blas::core_advice("Prescott", avx2).find("OPENBLAS_CORETYPE=Haswell"), std::string::npos);
  EXPECT_NE(blas::core_advice("Prescott", avx512).find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos);
  EXPECT_NE(blas::core_advice("Sandybridge", avx2).find("Sandybridge kernels"), std::string::npos);
  EXPECT_EQ(blas::core_advice("Prescott", sse), "");  // nothing better to run
  for (const char* modern : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"})
    EXPECT_EQ(blas::core_advice(modern, avx512), "") << modern;
  // This machine's own answer appears in the CPU device's runtime line when there is one (and
  // OPENBLAS_CORETYPE did not pick the family). (The line names OPENBLAS_CORETYPE when it is set,
  // as some machines' environments do, so the advice is looked for by its own words.)
  const blas::Info i = blas::info();
  const std::string here = i.coretype_env.empty() ? blas::core_advice(i.core, blas::cpu_vectors()) : "";
  const std::string runtime = make_cpu_backend()->device_info().runtime;
  EXPECT_EQ(runtime.find("start the program with OPENBLAS_CORETYPE=") != std::string::npos, !here.empty()) << runtime;
  if (!i.coretype_env.empty()) {
    EXPECT_NE(runtime.find("(OPENBLAS_CORETYPE=" + i.coretype_env + ")"), std::string::npos) << runtime;
  }
}

// The idle workers sleep soon after a call instead of spinning ~0.1 s (blas.cpp says why): the
// process uses almost no CPU while it sleeps right after a multi-threaded dgemm. (Checks CPU
// time used, not speed: without the timeout the spinning worker uses all of the 60 ms.)
TEST(Blas, IdleWorkersSleepAfterACall) {
  const blas::Info i = blas::info();
  if (i.threads < 2) GTEST_SKIP() << "one OpenBLAS thread: no worker to spin";
  if (i.thread_timeout.empty()) GTEST_SKIP() << "this BLAS build cannot re-read its thread timeout";
  if (std::stoi(i.thread_timeout) > 22)
    GTEST_SKIP() << "OPENBLAS_THREAD_TIMEOUT set to " << i.thread_timeout << " here";
  const size_t n = 512;
  std::vector<double> a(n * n, 1.0), c(n * n);
  blas::gemm_nt(n, n, n, a.data(), a.data(), c.data());
  EXPECT_EQ(c[7], double(n));
  auto cpu_seconds = [] {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + 1e-6 * double(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
  };
  const double before = cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_LT(cpu_seconds() - before, 0.030);
}

}  // namespace
}  // namespace pl::experiment

namespace pl::experiment {
namespace {

TEST(Int32Accumulation, ExactThenWrapsLikeTwosComplement) {
  Accumulation i32;
  i32.kind = AccumKind::Int32;
  i32.format = DType::int32;
  EXPECT_EQ(check(i32).error(), "");
  const size_t k = 140000;  // 127 * 127 * 140000 = 2,258,060,000 > 2^31 - 1
  const std::vector<double> a(k, 127.0), b(k, 127.0);
  EXPECT_EQ(dot(a, b, i32), 2258060000.0 - 4294967296.0);
  auto c = gemm({1, 1, k}, a, b, i32);
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ((*c)[0], 2258060000.0 - 4294967296.0);
  const std::vector<double> small = {-128, 127, 3}, w = {-128, -128, 5};
  EXPECT_EQ(dot(small, w, i32), 16384.0 - 16256.0 + 15.0);
  // Non-integers are refused, not rounded.
  EXPECT_FALSE(gemm({1, 1, 1}, std::vector<double>{0.5}, std::vector<double>{1.0}, i32));
  EXPECT_EQ(parse_accumulation("i32")->kind, AccumKind::Int32);
}

}  // namespace
}  // namespace pl::experiment
