// The arithmetic nearest-even path (round_nearest.h) against the general codec, bit for bit:
// random doubles across each format's whole range, every midpoint between neighbouring codes
// (the ties), values next to those midpoints, zeros and the overflow threshold.
#include "core/dtype/round_nearest.h"
#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "core/dtype/codec.h"
#include "core/dtype/format_lookup.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

double general(const FloatFormat& f, double x) { return decode(f, encode(f, x, {}).code); }

// Checks one value: where the fast path answers, it must equal the codec bit for bit.
// Returns whether it answered.
bool agrees(const FloatFormat& f, double x, std::string_view name) {
  double fast = 0;
  if (!round_nearest_even_fast(f, x, &fast)) return false;
  const double want = general(f, x);
  EXPECT_EQ(std::bit_cast<uint64_t>(fast), std::bit_cast<uint64_t>(want))
      << name << " x=" << std::hexfloat << x << " fast=" << fast << " codec=" << want;
  return true;
}

TEST(RoundNearestFast, AgreesWithCodecOnEveryTieAndItsNeighbours) {
  for (const DTypeInfo& d : all_dtypes()) {
    if (d.kind != DTypeKind::Float || !nearest_fast_path_applies(d.format)) continue;
    const FloatFormat& f = d.format;
    // Walk up to 2^16 positive codes (all of them for formats of 16 bits or fewer).
    const uint64_t max_code = f.max_finite_code();
    const uint64_t step = std::max<uint64_t>(1, max_code >> 16);
    size_t answered = 0;
    for (uint64_t c = 0; c < max_code; c += step) {
      const double lo = decode(f, c), hi = decode(f, c + 1);
      const double mid = lo + (hi - lo) / 2;  // exact: one more bit than the format
      for (double x : {lo, mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY), hi}) {
        answered += agrees(f, x, d.name);
        answered += agrees(f, -x, d.name);
      }
    }
    EXPECT_GT(answered, 0u) << d.name;
  }
}

TEST(RoundNearestFast, AgreesWithCodecOnRandomDoubles) {
  std::mt19937_64 rng(7);
  for (const DTypeInfo& d : all_dtypes()) {
    if (d.kind != DTypeKind::Float || !nearest_fast_path_applies(d.format)) continue;
    const FloatFormat& f = d.format;
    std::uniform_int_distribution<int> exponent(f.emin() - f.mantissa_bits - 4, f.emax() + 2);
    std::uniform_int_distribution<uint64_t> mantissa(0, (uint64_t{1} << 52) - 1);
    constexpr int kDraws = 200000;
    int answered = 0;
    for (int i = 0; i < kDraws; ++i) {
      const uint64_t bits = (uint64_t(rng() & 1) << 63) | (uint64_t(exponent(rng) + 1023) << 52) | mantissa(rng);
      answered += agrees(f, std::bit_cast<double>(bits), d.name);
    }
    // Only the draws past the largest finite value are the codec's (a quarter at most, in
    // float4_e2m1fn's ten binades): a fast path that declined everything would pass unseen.
    EXPECT_GT(answered, kDraws / 2) << d.name;
  }
}

TEST(RoundNearestFast, LeavesSpecialsAndOverflowToTheCodec) {
  const FloatFormat& h = info(DType::float16).format;
  double out = 0;
  EXPECT_FALSE(round_nearest_even_fast(h, INFINITY, &out));
  EXPECT_FALSE(round_nearest_even_fast(h, NAN, &out));
  EXPECT_FALSE(round_nearest_even_fast(h, 65520, &out));  // rounds past 65504: policy decides
  EXPECT_TRUE(round_nearest_even_fast(h, 65519.99, &out));
  EXPECT_EQ(out, 65504);
  EXPECT_TRUE(round_nearest_even_fast(h, -0.0, &out));
  EXPECT_TRUE(std::signbit(out));
  EXPECT_TRUE(round_nearest_even_fast(h, -1e-30, &out));  // underflow keeps the sign
  EXPECT_TRUE(std::signbit(out) && out == 0);
  // Formats without negative zero or subnormals never take the fast path.
  EXPECT_FALSE(nearest_fast_path_applies(info(DType::float8_e4m3fnuz).format));
  EXPECT_FALSE(nearest_fast_path_applies(info(DType::float8_e8m0fnu).format));
}

// The vectorised block (NearestEvenRounder::block) answers exactly where operator() does, with
// the same bits, and defers exactly where it declines: random doubles across the range with
// NaN, +-Inf, zeros, float64 subnormals and overflowing values planted, for every format.
TEST(RoundNearestFast, BlockAgreesWithOneAtATime) {
  std::mt19937_64 rng(11);
  for (const DTypeInfo& d : all_dtypes()) {
    if (d.kind != DTypeKind::Float || !nearest_fast_path_applies(d.format)) continue;
    const FloatFormat& f = d.format;
    const NearestEvenRounder nearest(f);
    std::uniform_int_distribution<int> exponent(-1023, f.emax() + 3);
    std::uniform_int_distribution<uint64_t> mantissa(0, (uint64_t{1} << 52) - 1);
    std::vector<double> x(4099);
    for (double& v : x) {
      const int e = std::max(exponent(rng), std::max(-1023, f.emin() - f.mantissa_bits - 6));
      v = std::bit_cast<double>((uint64_t(rng() & 1) << 63) | (uint64_t(e + 1023) << 52) | mantissa(rng));
    }
    const double planted[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 0x1p-1074, -0x1p-1060, 1e308};
    for (size_t i = 0; i < std::size(planted); ++i) x[i * 397] = planted[i];
    std::vector<double> out(x.size());
    std::vector<uint8_t> defer(x.size());
    const bool any = nearest.block(x.data(), x.size(), out.data(), defer.data());
    bool deferred = false;
    for (size_t i = 0; i < x.size(); ++i) {
      double one = 0;
      const bool answered = nearest(x[i], &one);
      ASSERT_EQ(defer[i], answered ? 0 : 1) << d.name << " x=" << std::hexfloat << x[i];
      deferred |= !answered;
      if (answered) {
        ASSERT_EQ(std::bit_cast<uint64_t>(out[i]), std::bit_cast<uint64_t>(one))
            << d.name << " x=" << std::hexfloat << x[i];
      }
    }
    EXPECT_EQ(any, deferred) << d.name;
    EXPECT_TRUE(deferred) << d.name;  // the planted NaN at least
  }
}

// Every format, custom ones too (no mantissa bits, 11 exponent bits), over float64's whole
// exponent range: where the fast path or the block answers it is the codec's result, and
// round_each is round_to element by element. Values near float64's largest are where a format
// without mantissa bits once rounded to 0 (nearest_fast_path_applies says why): the other
// tests draw only up to a few binades past each format's largest.
TEST(RoundNearestFast, AgreesWithCodecAcrossFloat64sWholeRange) {
  std::vector<FormatRef> formats = table_float_formats();
  for (const char* spelling :
       {"e2m0:finite", "e3m0b1:finite", "e5m0:finite", "e10m0:finite", "e11m1", "e2m1", "e10m1:fn", "e11m40b1023"}) {
    auto r = parse_float_format(spelling);
    ASSERT_TRUE(r.ok()) << spelling << ": " << r.error();
    formats.push_back(*r);
  }
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int> biased(0, 2046);
  std::uniform_int_distribution<uint64_t> mantissa(0, (uint64_t{1} << 52) - 1);
  for (const FormatRef& r : formats) {
    const FloatFormat& f = r.format;
    std::vector<double> x(6000);
    for (double& v : x)
      v = std::bit_cast<double>((uint64_t(rng() & 1) << 63) | (uint64_t(biased(rng)) << 52) | mantissa(rng));
    const double planted[] = {
        0x1.d30ced0bfe4a3p+1023, 0x1p+1023, -0x1.fffffffffffffp+1023, 0x1.8p+1022, 0x1p-1074, 1.0};
    for (size_t i = 0; i < std::size(planted); ++i) x[i * 7] = planted[i];
    if (nearest_fast_path_applies(f)) {
      const NearestEvenRounder nearest(f);
      std::vector<double> block(x.size());
      std::vector<uint8_t> defer(x.size());
      nearest.block(x.data(), x.size(), block.data(), defer.data());
      for (size_t i = 0; i < x.size(); ++i) {
        agrees(f, x[i], r.name);
        if (!defer[i]) {
          ASSERT_EQ(std::bit_cast<uint64_t>(block[i]), std::bit_cast<uint64_t>(general(f, x[i])))
              << r.name << " block x=" << std::hexfloat << x[i];
        }
      }
    }
    std::vector<double> out(x.size());
    round_each(f, x, out, {});
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(std::bit_cast<uint64_t>(out[i]), std::bit_cast<uint64_t>(general(f, x[i])))
          << r.name << " round_each x=" << std::hexfloat << x[i];
  }
}

// round_each (which uses the block) equals round_to element by element, in place or not.
TEST(RoundNearestFast, RoundEachMatchesRoundToInPlace) {
  std::mt19937_64 rng(12);
  std::normal_distribution<double> normal(0, 3e4);
  const FloatFormat& h = info(DType::float16).format;
  std::vector<double> x(5000);
  for (double& v : x) v = normal(rng);
  x[17] = NAN, x[18] = INFINITY, x[19] = 1e6;  // deferred to the codec (1e6 overflows to inf)
  std::vector<double> copy = x, out(x.size());
  round_each(h, x, out, {});
  round_each(h, copy, copy, {});
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = round_to(h, x[i], {});
    ASSERT_EQ(std::bit_cast<uint64_t>(out[i]), std::bit_cast<uint64_t>(want)) << i;
    ASSERT_EQ(std::bit_cast<uint64_t>(copy[i]), std::bit_cast<uint64_t>(want)) << i;
  }
}

}  // namespace
}  // namespace pl
