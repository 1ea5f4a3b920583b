// The bulk fast path must equal the scalar codec bit for bit, for every format, mode and policy.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "core/dtype/bulk_convert.h"
#include "core/dtype/codec.h"
#include "core/dtype/format_lookup.h"
#include "core/util/parallel.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

// Every code's value and its float32 neighbours, specials, and random bit patterns.
std::vector<float> probe_inputs(const FloatFormat& f) {
  std::vector<float> xs;
  const uint64_t step = f.total_bits() > 16 ? (f.code_mask() >> 14) | 1 : 1;
  for (uint64_t k = 0, c = 0; k <= f.code_mask() / step; ++k, c += step) {
    double v = decode(f, c);
    if (std::fabs(v) > 3.4e38) continue;
    float x = static_cast<float>(v);
    xs.insert(xs.end(), {x, std::nextafter(x, INFINITY), std::nextafter(x, -INFINITY)});
    double next = decode(f, c + 1 <= f.code_mask() ? c + 1 : c);
    if (std::isfinite(next) && std::fabs(next) < 3.4e38) xs.push_back(static_cast<float>((v + next) / 2));
  }
  std::mt19937 rng(1234);
  for (int i = 0; i < 20000; ++i) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  for (float s : {1.0f, -1.0f})
    xs.insert(xs.end(),
              {s * std::numeric_limits<float>::infinity(), std::copysign(std::numeric_limits<float>::quiet_NaN(), s),
               s * std::numeric_limits<float>::denorm_min(), s * 0.0f, s * std::numeric_limits<float>::max()});
  return xs;
}

// roundtrip_f32_array against the codec on every input, in every mode, overflow policy and
// flush setting.
void expect_every_option_matches_codec(const FloatFormat& f, const std::vector<float>& xs, std::string_view what) {
  std::vector<float> out(xs.size());
  for (int r = 0; r < kRoundingCount; ++r)
    for (int p = 0; p < kOverflowCount; ++p)
      for (int flush = 0; flush < 4; ++flush) {
        CastOptions o;
        o.rounding = static_cast<Rounding>(r);
        o.overflow = static_cast<Overflow>(p);
        o.flush_input_subnormals = flush & 1;
        o.flush_output_subnormals = flush & 2;
        o.seed = 11;
        roundtrip_f32_array(f, o, xs.data(), out.data(), xs.size(), 2);
        for (size_t i = 0; i < xs.size(); ++i) {
          float want = static_cast<float>(decode(f, encode_f32(f, xs[i], o, i).code));
          ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(want))
              << what << " x=" << std::hexfloat << xs[i] << " mode " << rounding_name(o.rounding) << " policy "
              << overflow_name(o.overflow) << " flush " << flush << " got " << out[i] << " want " << want;
        }
      }
}

class BulkMatchesScalar : public ::testing::TestWithParam<DType> {};

TEST_P(BulkMatchesScalar, EveryModePolicyAndFlush) {
  const FloatFormat f = info(GetParam()).format;
  expect_every_option_matches_codec(f, probe_inputs(f), info(GetParam()).name);
}

std::vector<DType> float_dtypes() {
  std::vector<DType> out;
  for (const auto& row : all_dtypes())
    if (row.kind == DTypeKind::Float) out.push_back(row.id);
  return out;
}
INSTANTIATE_TEST_SUITE_P(All, BulkMatchesScalar, ::testing::ValuesIn(float_dtypes()),
                         [](const auto& p) { return test::param_name(p.param); });

// A strided walk over every float32 bit pattern (both signs, all exponents, subnormals,
// Inf, NaN payloads): the vectorised loop handles 8 lanes at once, so lane mixes matter.
TEST(Bulk, StridedSweepOfAllFloat32MatchesScalar) {
  std::vector<float> xs;
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 9973) xs.push_back(std::bit_cast<float>(uint32_t(u)));
  std::vector<float> out(xs.size());
  for (DType t : {DType::float16, DType::bfloat16, DType::float8_e4m3fn, DType::float8_e5m2fnuz, DType::float4_e2m1fn,
                  DType::float8_e8m0fnu, DType::float64}) {
    const FloatFormat& f = info(t).format;
    for (int r = 0; r < kRoundingCount; ++r) {
      CastOptions o;
      o.rounding = static_cast<Rounding>(r);
      o.seed = 5;
      roundtrip_f32_array(f, o, xs.data(), out.data(), xs.size(), 2);
      for (size_t i = 0; i < xs.size(); ++i) {
        float want = static_cast<float>(decode(f, encode_f32(f, xs[i], o, i).code));
        ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(want))
            << info(t).name << " x=" << std::hexfloat << xs[i] << " mode " << rounding_name(o.rounding);
      }
    }
  }
}

// Arrays above 4 MiB take the streaming (non-temporal store) path, in blocks after an
// unaligned head; start one float past an aligned address and end mid-block. In place too.
TEST(Bulk, StreamingPathMatchesScalarInPlaceAndUnaligned) {
  const size_t n = (size_t{5} << 20) / sizeof(float) + 1001;
  std::vector<float> storage(n + 1), copy(n);
  std::mt19937 rng(99);
  for (float& x : storage) x = std::bit_cast<float>(static_cast<uint32_t>(rng()));
  float* xs = storage.data() + 1;
  for (DType t : {DType::bfloat16, DType::float8_e4m3fnuz}) {  // symmetric, and not
    const FloatFormat& f = info(t).format;
    for (Rounding r : {Rounding::NearestEven, Rounding::Stochastic}) {
      CastOptions o;
      o.rounding = r;
      std::copy(xs, xs + n, copy.begin());
      roundtrip_f32_array(f, o, xs, xs, n, 2);
      for (size_t i = 0; i < n; ++i) {
        float want = static_cast<float>(decode(f, encode_f32(f, copy[i], o, i).code));
        ASSERT_EQ(std::bit_cast<uint32_t>(xs[i]), std::bit_cast<uint32_t>(want))
            << info(t).name << " i=" << i << " mode " << rounding_name(r);
      }
      std::copy(copy.begin(), copy.end(), xs);
    }
  }
}

// Data the short-path blocks take (bulk_convert.cpp's short_span: few misses a block): the
// conversion benchmark's values, ±650 in steps of 1.3e-3, mostly normal in every format and
// past the narrow ones' range, with a subnormal-heavy stretch near zero, in every mode but
// nearest-even and every overflow policy, against the codec.
TEST(Bulk, ShortPathBlocksMatchTheCodecInEveryMode) {
  std::vector<float> xs(200000), out(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = float((double(i * 5) - 500000.0) * 1.3e-3);
  for (size_t i = 100000; i < 101000; ++i) xs[i] = float(double(i - 100500) * 0x1p-20);  // near zero
  for (DType t : {DType::float16, DType::bfloat16, DType::float8_e4m3fn, DType::float8_e5m2fnuz, DType::float6_e3m2fn,
                  DType::float4_e2m1fn}) {
    const FloatFormat& f = info(t).format;
    for (Rounding r : {Rounding::NearestAway, Rounding::TowardZero, Rounding::Up, Rounding::Down, Rounding::Stochastic})
      for (int policy = 0; policy < kOverflowCount; ++policy) {
        CastOptions o;
        o.rounding = r;
        o.overflow = static_cast<Overflow>(policy);
        o.seed = 8;
        roundtrip_f32_array(f, o, xs.data(), out.data(), xs.size(), 2);
        for (size_t i = 0; i < xs.size(); ++i)
          ASSERT_EQ(std::bit_cast<uint32_t>(out[i]),
                    std::bit_cast<uint32_t>(static_cast<float>(decode(f, encode_f32(f, xs[i], o, i).code))))
              << info(t).name << " x=" << std::hexfloat << xs[i] << " mode " << rounding_name(r) << " policy "
              << overflow_name(o.overflow);
      }
  }
}

TEST(Bulk, ResultsDoNotDependOnThreadCount) {
  const FloatFormat& f = info(DType::float8_e5m2).format;
  CastOptions o;
  o.rounding = Rounding::Stochastic;
  std::vector<float> in(100000), a(in.size()), b(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(double(i)) * 100;
  roundtrip_f32_array(f, o, in.data(), a.data(), in.size(), 1);
  roundtrip_f32_array(f, o, in.data(), b.data(), in.size(), 2);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
}

TEST(Bulk, EncodeArrayStoresCodes) {
  const FloatFormat& f = info(DType::float16).format;
  std::vector<float> in{1.0f, -2.0f, 65504.0f};
  std::vector<uint16_t> codes(3);
  encode_f32_array(f, {}, in.data(), codes.data(), 2, in.size());
  EXPECT_EQ(codes[0], 0x3C00);
  EXPECT_EQ(codes[1], 0xC000);
  EXPECT_EQ(codes[2], 0x7BFF);
}

// Every float format of the table has the fast path -- so the CUDA backend, which runs the same
// element functions, has a round-trip kernel for each (e8m0 its own; float64 holds every
// float32). Custom formats finer than float32 in part keep the scalar codec, and still agree.
TEST(Bulk, EveryTableFormatHasTheFastPathAndCustomOnesFallBack) {
  for (const auto& row : all_dtypes()) {
    if (row.kind == DTypeKind::Float) {
      EXPECT_TRUE(make_roundtrip_params(row.format, {}).supported) << row.name;
    }
  }
  std::mt19937 rng(3);
  std::vector<float> xs(20000), out(xs.size());
  for (float& x : xs) x = std::bit_cast<float>(static_cast<uint32_t>(rng()));
  for (const char* custom : {"e9m10", "e7m30", "e8m30:finite", "e8m30"}) {
    auto f = parse_float_format(custom);
    ASSERT_TRUE(f.ok()) << custom;
    // Every float32 is a value of these two: float32's own shape, where nothing rounds.
    const bool whole = std::string_view(custom) == "e8m30" || std::string_view(custom) == "e8m30:finite";
    EXPECT_EQ(make_roundtrip_params(f->format, {}).supported, whole) << custom;
    for (Rounding r : {Rounding::NearestEven, Rounding::Up, Rounding::Stochastic}) {
      CastOptions o;
      o.rounding = r;
      o.flush_output_subnormals = true;
      roundtrip_f32_array(f->format, o, xs.data(), out.data(), xs.size(), 2);
      for (size_t i = 0; i < xs.size(); ++i)
        ASSERT_EQ(
            std::bit_cast<uint32_t>(out[i]),
            std::bit_cast<uint32_t>(static_cast<float>(decode(f->format, encode_f32(f->format, xs[i], o, i).code))))
            << custom << " x=" << std::hexfloat << xs[i] << " mode " << rounding_name(r);
    }
  }
}

// float8_e8m0fnu's own element function (roundtrip_f32_e8m0) against the codec around every
// power of two it holds and past both ends -- each power, its neighbours, the tie 1.5 x 2^k
// and its neighbours, float32's subnormals below 2^-126 -- in every mode, overflow policy and
// flush setting. PL_EXHAUSTIVE=1 takes every float32 bit pattern in every mode (4.3 billion
// each; 8 minutes on two cores).
TEST(Bulk, E8M0MatchesScalarAtEveryPowerAndEveryPatternWhenExhaustive) {
  const FloatFormat& f = info(DType::float8_e8m0fnu).format;
  std::vector<float> xs;
  for (int k = -149; k <= 127; ++k)
    for (float m : {1.0f, 1.5f, 1.25f, 1.75f}) {
      const float x = std::ldexp(m, k);
      if (x == 0) continue;
      for (float s : {1.0f, -1.0f})
        xs.insert(xs.end(), {s * x, s * std::nextafter(x, 0.0f), s * std::nextafter(x, INFINITY)});
    }
  for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::denorm_min()})
    xs.push_back(x);
  expect_every_option_matches_codec(f, xs, "float8_e8m0fnu");
  if (::testing::Test::HasFatalFailure() || !std::getenv("PL_EXHAUSTIVE")) return;
  constexpr size_t kChunk = size_t{1} << 24;
  std::vector<float> in(kChunk), got(kChunk);
  for (int r = 0; r < kRoundingCount; ++r) {
    CastOptions o;
    o.rounding = static_cast<Rounding>(r);
    o.seed = 9;
    for (uint64_t base = 0; base <= 0xFFFFFFFFull; base += kChunk) {
      for (size_t j = 0; j < kChunk; ++j) in[j] = std::bit_cast<float>(static_cast<uint32_t>(base + j));
      roundtrip_f32_array(f, o, in.data(), got.data(), kChunk, 2);
      std::atomic<uint64_t> first_bad{~uint64_t{0}};
      parallel_for(kChunk, 2, [&](size_t b, size_t e) {
        for (size_t j = b; j < e; ++j) {
          // The stream index is the element's place in this call's array, as the fast path's.
          const float want = static_cast<float>(decode(f, encode_f32(f, in[j], o, j).code));
          if (std::bit_cast<uint32_t>(got[j]) != std::bit_cast<uint32_t>(want)) {
            first_bad = base + j;
            return;
          }
        }
      });
      ASSERT_EQ(first_bad.load(), ~uint64_t{0})
          << "float32 pattern 0x" << std::hex << first_bad.load() << " mode " << rounding_name(o.rounding);
    }
  }
}

}  // namespace
}  // namespace pl

#include "core/dtype/device/roundtrip_f32.h"

namespace pl {
namespace {

// The short paths (roundtrip_f32.h's short_magnitude / short_result, where short_covers) against
// the function every mode's CPU loop falls back to (the generic one, nearest-even's own), bit
// for bit: every mode, every float format of the table with a round-trip path and six custom ones,
// every overflow policy and flush setting, on every code's neighbourhood, every float32 exponent
// with its first, last and random mantissas, through the GPU kernels' own function
// (roundtrip_f32_short_first); for stochastic rounding with draws that sit on the format's cut
// and beside it, at the ends, and random ones.
// Mode R's short-first function and its generic one on x with this draw, as bits: {got, want}.
template <Rounding R>
std::pair<uint32_t, uint32_t> short_and_generic(float x, const RoundtripF32Params& p, uint32_t draw) {
  const float full = R == Rounding::NearestEven ? roundtrip_f32_nearest_even<true>(x, p)
                                                : roundtrip_f32_generic_drawn<R, true>(x, p, draw);
  return {std::bit_cast<uint32_t>(roundtrip_f32_short_first<R, true>(x, p, draw)), std::bit_cast<uint32_t>(full)};
}
using ShortAndGeneric = std::pair<uint32_t, uint32_t> (*)(float, const RoundtripF32Params&, uint32_t);
constexpr std::pair<Rounding, ShortAndGeneric> kShortModes[] = {
    {Rounding::NearestEven, short_and_generic<Rounding::NearestEven>},
    {Rounding::NearestAway, short_and_generic<Rounding::NearestAway>},
    {Rounding::TowardZero, short_and_generic<Rounding::TowardZero>},
    {Rounding::Up, short_and_generic<Rounding::Up>},
    {Rounding::Down, short_and_generic<Rounding::Down>},
    {Rounding::Stochastic, short_and_generic<Rounding::Stochastic>}};

TEST(RoundtripF32, ShortPathsAreTheGenericFunctions) {
  std::mt19937 rng(29);
  std::vector<uint32_t> random_draws;
  for (int i = 0; i < 16; ++i) random_draws.push_back(static_cast<uint32_t>(rng()));
  // A format's stochastic draws: the ends, those on its own cut and the ones beside it (for s
  // bits below the cut, the largest draw whose top s bits are clear and the smallest set), random.
  auto draws_for = [&](int mantissa_bits) {
    std::vector<uint32_t> d = {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFEu};
    const int s = 23 - mantissa_bits;
    for (int b = std::max(1, s - 1); b <= std::min(23, s + 1); ++b) {
      d.push_back((uint32_t{1} << (32 - b)) - 1);
      d.push_back(uint32_t{1} << (32 - b));
    }
    d.insert(d.end(), random_draws.begin(), random_draws.end());
    return d;
  };
  // The table's formats, and custom ones: float32's exponent range (e8m10's largest value lies
  // past float32's, so the rounding can carry into Inf's bits), shifted biases, no negative
  // zero, no specials at all.
  std::vector<FormatRef> formats = table_float_formats();
  for (const char* custom : {"e8m3", "e8m10:fnuz", "e7m9b100", "e5m4b3:fn", "e3m2:finite", "e6m4:fnuz"}) {
    auto f = parse_float_format(custom);
    ASSERT_TRUE(f) << custom;
    formats.push_back(*f);
  }
  for (const auto& row : formats) {
    std::vector<float> xs = probe_inputs(row.format);
    for (uint32_t e = 0; e < 256; ++e)
      for (uint32_t m :
           {0u, 1u, 2u, 0x3FFFFFu, 0x400000u, 0x7FFFFEu, 0x7FFFFFu, static_cast<uint32_t>(rng()) & 0x7FFFFFu})
        for (uint32_t sign : {0u, 0x80000000u}) xs.push_back(std::bit_cast<float>(sign | e << 23 | m));
    for (int policy = 0; policy < kOverflowCount; ++policy)
      for (int flush = 0; flush < 4; ++flush) {
        CastOptions o;
        o.overflow = static_cast<Overflow>(policy);
        o.flush_input_subnormals = flush & 1;
        o.flush_output_subnormals = flush & 2;
        for (const auto& [r, short_and_generic_of] : kShortModes) {
          o.rounding = r;
          const RoundtripF32Params p = make_roundtrip_params(row.format, o);
          if (!p.supported || p.e8m0) continue;
          size_t short_path = 0;
          const std::vector<uint32_t> draws =
              r == Rounding::Stochastic ? draws_for(p.mantissa_bits) : std::vector<uint32_t>{0u};
          for (float x : xs) {
            const uint32_t a = std::bit_cast<uint32_t>(x) & 0x7FFFFFFFu;
            short_path += p.mantissa_bits < 23 && a >= p.min_normal_bits && a < 0x7F800000u;
            for (uint32_t d : draws) {
              const auto [got, want] = short_and_generic_of(x, p, d);
              ASSERT_EQ(got, want) << row.name << " x=" << std::hexfloat << x << " draw " << std::hex << d << " mode "
                                   << rounding_name(r) << " policy " << policy << " flush " << flush;
            }
          }
          if (p.mantissa_bits < 23) {
            EXPECT_GT(short_path, 1000u) << row.name;  // taken, not only the fallback
          }
        }
      }
  }
}

}  // namespace
}  // namespace pl
