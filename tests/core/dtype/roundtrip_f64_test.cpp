// roundtrip_f64.h's element function against the codec (encode + decode), bit for bit, for
// every format it covers, mode, overflow policy, flush setting and cast path; and round_each,
// which runs it, likewise.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/dtype/codec.h"
#include "core/dtype/device/roundtrip_f64.h"
#include "core/dtype/format_lookup.h"
#include "core/dtype/round_nearest.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

uint64_t bits(double x) { return std::bit_cast<uint64_t>(x); }

std::string describe(const FloatFormat& f) {
  char text[64];
  std::snprintf(text, sizeof text, "e%dm%db%d:%s", f.exponent_bits, f.mantissa_bits, f.bias, specials_name(f.specials));
  return text;
}

// Every code's value (a sample of them past 16 bits), its float64 neighbours, the midpoint to
// the next code and its neighbours (the ties), values past the largest and below the smallest,
// float64 subnormals, specials and random bit patterns (all binades, both signs).
std::vector<double> probe_inputs(const FloatFormat& f) {
  std::vector<double> xs;
  const uint64_t step = f.total_bits() > 16 ? (f.code_mask() >> 14) | 1 : 1;
  for (uint64_t c = 0; c <= f.code_mask() - std::min(step, f.code_mask()); c += step) {
    const double v = decode(f, c), next = decode(f, c + 1);
    if (!std::isfinite(v)) continue;
    xs.insert(xs.end(), {v, std::nextafter(v, INFINITY), std::nextafter(v, -INFINITY)});
    if (std::isfinite(next) && std::signbit(next) == std::signbit(v)) {
      const double mid = v / 2 + next / 2;  // exact: both are multiples of twice the quantum
      xs.insert(xs.end(), {mid, std::nextafter(mid, INFINITY), std::nextafter(mid, -INFINITY)});
    }
  }
  const double top = max_finite(f);
  for (double s : {1.0, -1.0}) {
    xs.insert(xs.end(), {s * top * 1.0625, s * top * 2, s * std::numeric_limits<double>::max(),
                         s * std::numeric_limits<double>::infinity(), std::copysign(NAN, s), s * 0.0,
                         s * std::numeric_limits<double>::denorm_min(), s * 0x1.8p-1070, s * 3e-39, s * 0x1p-126,
                         s * 0x1.fffffep127, s * 0x1.ffffffp127, s * min_normal(f) / 2});
  }
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 20000; ++i) xs.push_back(std::bit_cast<double>(rng()));
  // Near the format's range, where the random patterns hardly fall.
  std::uniform_real_distribution<double> exponent(std::log2(min_normal(f)) - f.mantissa_bits - 2, std::log2(top) + 1);
  for (int i = 0; i < 20000; ++i) xs.push_back((i & 1 ? -1 : 1) * std::exp2(exponent(rng)));
  return xs;
}

std::vector<FloatFormat> formats() {
  std::vector<FloatFormat> out;
  for (const auto& row : all_dtypes())
    if (row.kind == DTypeKind::Float && row.format.has_zero()) out.push_back(row.format);
  for (const char* custom : {"e5m7", "e4m3b11:fnuz", "e3m0", "e9m10", "e2m1:finite"}) {
    auto f = parse_float_format(custom);
    if (f.ok()) out.push_back(f->format);
  }
  return out;
}

TEST(RoundtripF64, EveryFormatModePolicyFlushAndPathMatchesTheCodec) {
  size_t checked = 0;
  for (const FloatFormat& f : formats()) {
    const std::vector<double> xs = probe_inputs(f);
    for (int r = 0; r < kRoundingCount; ++r)
      for (int policy = 0; policy < kOverflowCount; ++policy)
        for (int flush = 0; flush < 4; ++flush)
          for (CastPath path : {CastPath::Direct, CastPath::ViaFloat32}) {
            CastOptions o;
            o.rounding = static_cast<Rounding>(r);
            o.overflow = static_cast<Overflow>(policy);
            o.flush_input_subnormals = flush & 1;
            o.flush_output_subnormals = flush & 2;
            o.path = path;
            o.seed = 17;
            const RoundtripF64Params p = make_roundtrip_f64_params(f, o);
            ASSERT_TRUE(p.supported) << describe(f);
            for (size_t i = 0; i < xs.size(); ++i) {
              const double want = decode(f, encode(f, xs[i], o, i + 5).code), got = roundtrip_f64(xs[i], p, i + 5);
              ++checked;
              ASSERT_EQ(bits(got), bits(want))
                  << describe(f) << std::hexfloat << " x=" << xs[i] << " mode " << rounding_name(o.rounding)
                  << " policy " << overflow_name(o.overflow) << " flush " << flush << " path "
                  << (path == CastPath::Direct ? "direct" : "via-float32") << " got " << got << " want " << want;
            }
          }
  }
  EXPECT_GT(checked, size_t{100'000'000});
}

// e8m0 (no zero, no sign) and formats past float64's range are the codec's alone.
TEST(RoundtripF64, FormatsWithoutZeroOrSignAreLeftToTheCodec) {
  EXPECT_FALSE(make_roundtrip_f64_params(info(DType::float8_e8m0fnu).format, {}).supported);
  EXPECT_TRUE(make_roundtrip_f64_params(info(DType::float64).format, {}).supported);
}

// round_each takes the element in every mode but nearest-even's own block, and draws
// stochastic element i at index0 + i; in place too.
TEST(RoundtripF64, RoundEachMatchesTheCodecInEveryModeInPlaceAndOffset) {
  const FloatFormat& f = info(DType::float8_e4m3fn).format;
  std::vector<double> xs = probe_inputs(f), out(xs.size());
  for (int r = 0; r < kRoundingCount; ++r) {
    CastOptions o;
    o.rounding = static_cast<Rounding>(r);
    o.flush_output_subnormals = r % 2;
    o.seed = 3;
    round_each(f, xs, out, o, 1000);
    std::vector<double> in_place = xs;
    round_each(f, in_place, in_place, o, 1000);
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = decode(f, encode(f, xs[i], o, 1000 + i).code);
      ASSERT_EQ(bits(out[i]), bits(want)) << std::hexfloat << xs[i] << " " << rounding_name(o.rounding);
      ASSERT_EQ(bits(in_place[i]), bits(want)) << std::hexfloat << xs[i] << " " << rounding_name(o.rounding);
    }
  }
}

// round_each's nearest-even block leaves Inf, NaN and values rounding past the largest to the
// codec's answers, the last asked once per sign: every format and overflow policy, on values
// around and far past each format's largest.
TEST(RoundtripF64, RoundEachNearestEvenGivesEachPolicysOverflow) {
  for (const FloatFormat& f : formats()) {
    if (!nearest_fast_path_applies(f)) continue;
    const std::vector<double> xs = probe_inputs(f);
    std::vector<double> out(xs.size());
    for (int policy = 0; policy < kOverflowCount; ++policy) {
      CastOptions o;
      o.overflow = static_cast<Overflow>(policy);
      round_each(f, xs, out, o);
      for (size_t i = 0; i < xs.size(); ++i)
        ASSERT_EQ(bits(out[i]), bits(decode(f, encode(f, xs[i], o).code)))
            << describe(f) << std::hexfloat << " x=" << xs[i] << " policy " << overflow_name(o.overflow);
    }
  }
}

}  // namespace
}  // namespace pl
