// The arithmetic nearest-even path (round_nearest.h) against the general codec, bit for bit:
// random doubles across each format's whole range, every midpoint between neighbouring codes
// (the ties), values next to those midpoints, zeros and the overflow threshold.
#include <bit>
#include <cmath>
#include <random>

#include "core/dtype/codec.h"
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
    for (int i = 0; i < 200000; ++i) {
      const uint64_t bits = (uint64_t(rng() & 1) << 63) |
                            (uint64_t(exponent(rng) + 1023) << 52) | mantissa(rng);
      agrees(f, std::bit_cast<double>(bits), d.name);
    }
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

}  // namespace
}  // namespace pl
