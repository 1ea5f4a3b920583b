// The roundings Kahan's narrow kernel stands on (core/accumulate/narrow_lanes.h), checked as
// themselves -- the GEMM tests check the kernels end to end against dot():
// - Veltkamp's split rounds a float32 value to p bits, to nearest even, wherever the kernel
//   lets it (and gives NaN where it stops: the overflows that stick);
// - applied to the float32 sum of two values of a format, it is that format's rounding of the
//   exact sum, or a value the kernel's watch sends back (at least the largest, or NaN);
// - Kahan's last difference needs no rounding at all.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/accumulate/narrow_lanes.h"
#include "core/dtype/codec.h"
#include "core/dtype/format_lookup.h"
#include "tests/core/test_util.h"

namespace pl::experiment {
namespace {

// Splits eight values at a time, for a format of `mantissa_bits`.
class Splitter {
 public:
  explicit Splitter(int32_t mantissa_bits) : split_(NarrowFormat{-126, mantissa_bits, 0, false, false}) {}
  float operator()(float x) const {
    const LaneF v = {x, x, x, x, x, x, x, x};  // not LaneF{} + x: +0 + -0 is +0
    return split_(std::bit_cast<LaneU>(v))[3];
  }

 private:
  RoundSplit<false> split_;
};

// x rounded to p significant bits, to nearest even, in float64, on a grid no finer than
// `smallest_quantum` (a format's subnormals; 0: none) -- x / q is exact, nearbyint rounds ties to
// even.
double nearest_even_bits(double x, int p, double smallest_quantum = 0) {
  const double q = std::max(smallest_quantum, std::ldexp(1.0, std::ilogb(x == 0 ? 1.0 : x) - (p - 1)));
  return std::nearbyint(x / q) * q;
}

bool same_bits(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

TEST(NarrowLanes, VeltkampSplitRoundsToNearestEven) {
  std::mt19937_64 rng(7);
  for (int32_t m = 1; m <= 10; ++m) {
    const int p = m + 1;
    const Splitter split(m);
    const float exact_below = std::ldexp(1.0f, 103 + p), nan_from = std::ldexp(1.0f, 104 + p);
    size_t checked = 0;
    auto check = [&](float x) {
      const float got = split(x);
      if (std::fabs(x) < exact_below) {
        if (!same_bits(got, static_cast<float>(nearest_even_bits(x, p))))
          FAIL() << "p=" << p << ": " << std::hexfloat << x << " -> " << got;
      } else if (std::fabs(x) >= nan_from && !std::isnan(got)) {
        FAIL() << "p=" << p << ": " << std::hexfloat << x << " -> " << got << ", not NaN";
      }
      ++checked;
    };
    // Every 61st pattern of [1, 2) (ties included: the stride is odd), both signs; the first and
    // last 64 patterns of every normal binade; 2^16 random normal patterns; the largest float32.
    for (uint32_t bits = 0x3f800000; bits < 0x40000000; bits += 61)
      for (float s : {1.0f, -1.0f}) check(s * std::bit_cast<float>(bits));
    for (uint32_t e = 1; e < 255; ++e)
      for (uint32_t i = 0; i < 64; ++i) {
        check(std::bit_cast<float>((e << 23) | i));
        check(-std::bit_cast<float>((e << 23) | (0x7fffff - i)));
        check(std::bit_cast<float>((e << 23) | ((uint32_t{1} << (22 - m)) + i - 32)));  // near ties
      }
    for (int n = 0; n < 65536; ++n) {
      const uint32_t bits = static_cast<uint32_t>(rng()) & 0xffffffff;
      const float x = std::bit_cast<float>(bits);
      if (std::isnormal(x)) check(x);
    }
    check(std::numeric_limits<float>::max());
    check(std::numeric_limits<float>::infinity());
    if (HasFatalFailure()) return;
    EXPECT_GT(checked, 300'000u);
  }
  // Below 2^-126 (bfloat16's subnormals): multiples of the smallest bfloat16 quantum are exact.
  const Splitter bf16_split(7);
  for (int n = -127; n <= 127; ++n) {
    const float x = static_cast<float>(n) * 0x1p-133f;
    EXPECT_TRUE(same_bits(bf16_split(x), x)) << n;
  }
}

// Which formats let their overflows stick (NaN past 2^(104 + p), at or below their largest).
TEST(NarrowLanes, OnlyFormatsReachingTheSplitsLimitStick) {
  EXPECT_TRUE(split_sums_stick(narrow_format(info(DType::bfloat16).format)));
  for (DType d : {DType::float16, DType::float8_e4m3fn, DType::float8_e5m2, DType::float6_e3m2fn})
    EXPECT_FALSE(split_sums_stick(narrow_format(info(d).format))) << info(d).name;
}

// The split of the float32 sum of two values of a format of at most 11 bits is the exact sum
// rounded once to the format (nearest even), wherever that is below the largest value; where it
// is not (an overflow, or the largest itself), the split reaches the largest or is NaN, and the
// kernel's watch sends the lane back. Every pair of every such format of 8 bits or fewer; for the
// 16-bit ones, every value against 160 others (binade edges, random).
TEST(NarrowLanes, SplitOfTwoValuesSumIsTheFormatsRounding) {
  std::mt19937_64 rng(13);
  size_t checked = 0;
  for (const DTypeInfo& d : all_dtypes()) {
    const FloatFormat& f = d.format;
    if (d.kind != DTypeKind::Float || f.precision() > 11 || f.mantissa_bits < 1 || f.emin() < -126 || f.emax() > 127)
      continue;
    SCOPED_TRACE(d.name);
    const NarrowFormat nf = narrow_format(f);
    const Splitter split(nf.mantissa_bits);
    std::vector<float> values;  // every finite value
    for (uint64_t c = 0; c <= f.code_mask() && c < 65536; ++c)
      if (const double v = decode(f, c); std::isfinite(v)) values.push_back(static_cast<float>(v));
    std::vector<float> partners = values;
    if (values.size() > 4096) {
      partners.clear();
      for (int e = f.emin() - f.mantissa_bits; e <= f.emax(); e += 3)
        for (float v : {std::ldexp(1.0f, e), -std::ldexp(1.5f, e)})
          if (round_to(f, v, {}) == v) partners.push_back(v);
      partners.push_back(nf.largest);
      while (partners.size() < 160) partners.push_back(values[rng() % values.size()]);
    }
    for (float x : partners)
      for (float y : values) {
        const double hi = static_cast<double>(x) + y, bb = hi - x, lo = (x - (hi - bb)) + (y - bb);  // TwoSum
        const double want = round_exact_sum(f, hi, lo, {}, 0);
        const float got = split(x + y);
        // Past 2^(103 + p) a format whose overflows stick (tf32, bfloat16) may get NaN below its
        // largest value: sent back too.
        const bool nan_allowed = std::fabs(want) >= std::ldexp(1.0, 104 + nf.mantissa_bits) && std::isnan(got);
        if (std::fabs(want) < nf.largest) {
          if (!same_bits(got, static_cast<float>(want)) && !nan_allowed)
            FAIL() << std::hexfloat << x << " + " << y << ": " << got << ", want " << want;
        } else if (!(std::isnan(got) || std::fabs(got) >= nf.largest)) {
          FAIL() << std::hexfloat << x << " + " << y << ": " << got << " would not be sent back";
        }
        ++checked;
      }
  }
  EXPECT_GT(checked, 5'000'000u);
}

// Kahan's kernel leaves out its last rounding (narrow_kahan_steps): for values s, y of a format,
// t = round(s + y) and d = round(t - s), d - y is a value of the format wherever |y| and |t| are
// below its largest (elsewhere the lane is watched, or sticks). Checked, against the codec's
// rounding, on every pair of every such format of the table of 8 bits or fewer and every value
// of the 16-bit ones against 160 others; and, against a rounding written here, on every pair of
// values of formats of precision 2 to 9 with a 4-bit exponent. PL_EXHAUSTIVE=1 takes every pair
// of the 16-bit formats too (8.3 billion: a few minutes) and precisions 10 and 11.
TEST(NarrowLanes, KahansLastDifferenceIsAValueOfTheFormat) {
  const bool exhaustive = std::getenv("PL_EXHAUSTIVE") != nullptr;
  size_t checked = 0;
  // Every pair (s, y) of `partners` x `values` under `round` (float64 to the format, nearest even).
  auto check = [&](const std::vector<double>& partners, const std::vector<double>& values, double largest,
                   const auto& round) {
    for (double s : partners)
      for (double y : values) {
        if (!(std::fabs(y) < largest)) continue;
        const double t = round(s + y);  // s + y, t - s and d - y are exact in float64
        if (!(std::fabs(t) < largest)) continue;
        const double d = round(t - s), c = d - y;
        ++checked;
        if (round(c) != c || static_cast<double>(static_cast<float>(d) - static_cast<float>(y)) != c)
          FAIL() << std::hexfloat << "s=" << s << " y=" << y << ": t=" << t << " d=" << d << ", d - y not held";
      }
  };
  std::mt19937_64 rng(17);
  for (const DTypeInfo& d : all_dtypes()) {
    const FloatFormat& f = d.format;
    if (d.kind != DTypeKind::Float || f.precision() > 11 || f.mantissa_bits < 1 || f.emin() < -126 || f.emax() > 127 ||
        f.code_mask() >= 65536)
      continue;
    SCOPED_TRACE(d.name);
    std::vector<double> values;
    for (uint64_t c = 0; c <= f.code_mask(); ++c)
      if (const double v = decode(f, c); std::isfinite(v)) values.push_back(v);
    std::vector<double> partners = values;
    if (values.size() > 4096 && !exhaustive) {
      partners.clear();
      while (partners.size() < 160) partners.push_back(values[rng() % values.size()]);
    }
    check(partners, values, max_finite(f), [&](double x) { return round_to(f, x, {}); });
    if (HasFatalFailure()) return;
  }
  for (int p = 2; p <= (exhaustive ? 11 : 9); ++p) {
    SCOPED_TRACE(p);
    constexpr int kEmin = -6, kEmax = 7;
    const double quantum = std::ldexp(1.0, kEmin - (p - 1));
    auto round = [&](double x) { return nearest_even_bits(x, p, quantum); };
    std::vector<double> values;
    for (double v = 0; v < std::ldexp(2.0, kEmax);
         v += std::max(quantum, std::ldexp(1.0, std::ilogb(v == 0 ? 1.0 : v) - (p - 1))))
      if (round(v) == v) values.push_back(v), values.push_back(-v);
    check(values, values, std::ldexp(2.0 - std::ldexp(1.0, 1 - p), kEmax), round);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(checked, 10'000'000u);
}

}  // namespace
}  // namespace pl::experiment
