// Every code of every format of 16 bits or fewer, decoded and re-encoded in every rounding mode
// and overflow policy, must come back as itself (NaNs as the canonical NaN of their sign).
#include <cmath>

#include "core/dtype/codec.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

uint64_t canonical(const FloatFormat& f, uint64_t code) {
  if (classify(f, code) != ValueClass::NaN) return code;
  uint64_t nan = f.nan_code();
  if (f.specials == Specials::IEEE || f.specials == Specials::FN) nan |= code & f.sign_mask();
  return nan;
}

class EveryCode : public ::testing::TestWithParam<DType> {};

TEST_P(EveryCode, DecodeThenEncodeIsIdentityInEveryMode) {
  const FloatFormat f = info(GetParam()).format;
  for (int r = 0; r < kRoundingCount; ++r)
    for (int p = 0; p < kOverflowCount; ++p) {
      CastOptions o;
      o.rounding = static_cast<Rounding>(r);
      o.overflow = static_cast<Overflow>(p);
      o.seed = 7;
      for (uint64_t c = 0; c <= f.code_mask(); ++c) {
        double v = decode(f, c);
        if (std::isinf(v) && o.overflow == Overflow::Saturate) continue;  // Inf saturates by design
        Encoded e = encode(f, v, o, c);
        ASSERT_EQ(e.code, canonical(f, c)) << info(GetParam()).name << " code " << c << " mode "
                                           << rounding_name(o.rounding) << " policy " << overflow_name(o.overflow);
        EXPECT_FALSE(e.flags.inexact);
        if (std::isfinite(v) && std::fabs(v) <= 3.4e38) {  // float32 input path too
          ASSERT_EQ(encode_f32(f, static_cast<float>(v), o, c).code, canonical(f, c));
        }
      }
    }
}

TEST_P(EveryCode, FlushToZeroTakesEverySubnormalToZeroAndKeepsTheRest) {
  const FloatFormat f = info(GetParam()).format;
  CastOptions o;
  o.flush_output_subnormals = true;
  for (uint64_t c = 0; c <= f.code_mask(); ++c) {
    double v = decode(f, c);
    Encoded e = encode(f, v, o);
    if (classify(f, c) == ValueClass::Subnormal) {
      EXPECT_EQ(decode(f, e.code), 0.0) << c;
      EXPECT_EQ(std::signbit(decode(f, e.code)), std::signbit(v) && f.has_negative_zero());
      EXPECT_TRUE(e.flags.flushed_output);
    } else {
      EXPECT_EQ(e.code, canonical(f, c)) << c;
    }
  }
}

TEST_P(EveryCode, CodesAreOrderedByValue) {
  // Within one sign, a larger code is a larger magnitude (the property hardware comparators use).
  const FloatFormat f = info(GetParam()).format;
  double prev = -1;
  uint64_t positive_end = f.is_signed() ? f.sign_mask() : f.code_mask() + 1;
  for (uint64_t c = 0; c < positive_end; ++c) {
    double v = decode(f, c);
    if (std::isnan(v)) continue;
    EXPECT_GT(v, prev) << c;
    prev = v;
  }
}

INSTANTIATE_TEST_SUITE_P(Small, EveryCode, ::testing::ValuesIn(test::small_float_dtypes()),
                         [](const auto& p) { return test::param_name(p.param); });

}  // namespace
}  // namespace pl
