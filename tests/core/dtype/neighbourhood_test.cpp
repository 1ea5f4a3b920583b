// The float explorer's neighbours and rounding intervals. The intervals are derived from the
// rounding rules in neighbourhood.cpp; here the codec (itself checked bit for bit against
// ml_dtypes) must agree on both sides of every end, for every code of every format of 16 bits
// or fewer, in every deterministic rounding and overflow policy. Neighbours are checked against
// a plain sort of every value.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/dtype/format_lookup.h"
#include "core/dtype/neighbourhood.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

FloatFormat fmt(const char* name) { return parse_float_format(name)->format; }

// Whether x rounds to `code` (the codec's answer).
bool rounds_to(const FloatFormat& f, double x, uint64_t code, Rounding r, Overflow o) {
  CastOptions opt;
  opt.rounding = r;
  opt.overflow = o;
  return encode(f, x, opt).code == code;
}

class EveryInterval : public ::testing::TestWithParam<DType> {};

TEST_P(EveryInterval, CodecAgreesOnBothSidesOfEveryEnd) {
  const FloatFormat f = info(GetParam()).format;
  for (int ri = 0; ri < kRoundingCount; ++ri) {
    const auto r = static_cast<Rounding>(ri);
    if (r == Rounding::Stochastic) continue;
    for (int oi = 0; oi < kOverflowCount; ++oi) {
      const auto o = static_cast<Overflow>(oi);
      for (uint64_t c = 0; c <= f.code_mask(); ++c) {
        const ValueClass vc = classify(f, c);
        if (vc == ValueClass::NaN || vc == ValueClass::Infinite) continue;
        const Neighbourhood n = neighbourhood(f, decode(f, c), r, o);
        ASSERT_EQ(n.rounded.code, c);
        ASSERT_TRUE(n.interval);
        const RoundingInterval& iv = *n.interval;
        auto where = [&] {  // built on failure only: printing every interval is slow
          return std::string(info(GetParam()).name) + " code " + std::to_string(c) + " " + rounding_name(r) + " " +
                 overflow_name(o) + " " + interval_text(iv);
        };
        for (const Endpoint* e : {&iv.lo, &iv.hi}) {
          const bool upper = e == &iv.hi;
          const double inward = upper ? -kInf : kInf;
          if (e->unbounded) {
            // Everything out to the end of float64 rounds here; +-inf too when closed.
            const double far = upper ? std::numeric_limits<double>::max() : -std::numeric_limits<double>::max();
            EXPECT_TRUE(rounds_to(f, far, c, r, o)) << where();
            EXPECT_EQ(rounds_to(f, upper ? kInf : -kInf, c, r, o), e->closed) << where();
            continue;
          }
          const double end = static_cast<double>(e->value);
          ASSERT_EQ(static_cast<long double>(end), e->value) << where();  // exact below 52 bits
          EXPECT_EQ(rounds_to(f, end, c, r, o), e->closed) << where() << (upper ? " hi" : " lo");
          if (iv.lo.value != iv.hi.value) {  // [+0, +0] under rounding up has no inside
            EXPECT_TRUE(rounds_to(f, std::nextafter(end, inward), c, r, o)) << where();
          }
          const double outside = std::nextafter(end, -inward);
          if (e->closed) {
            EXPECT_FALSE(rounds_to(f, outside, c, r, o)) << where() << " beyond";
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Small, EveryInterval, ::testing::ValuesIn(test::small_float_dtypes()),
                         [](const auto& p) { return test::param_name(p.param); });

// Bug: a NaN into float4 (no NaN: it becomes the zero of its sign) was shown with that zero's
// neighbours, its ulp and its interval [0, 0.25], as if x were a number that rounds there.
TEST(Neighbours, ANanIntoAFormatWithoutNanHasNoNeighboursOrInterval) {
  for (const double x : {std::nan(""), -std::nan("")}) {
    const Neighbourhood n = neighbourhood(fmt("float4_e2m1fn"), x, Rounding::NearestEven, Overflow::FormatDefault);
    EXPECT_TRUE(n.rounded.flags.nan_to_zero);
    EXPECT_EQ(n.value, 0.0);
    EXPECT_EQ(std::signbit(n.value), std::signbit(x));  // the zero of the NaN's sign
    EXPECT_FALSE(n.below);
    EXPECT_FALSE(n.above);
    EXPECT_FALSE(n.interval);
    EXPECT_TRUE(std::isnan(n.ulp));
    ASSERT_TRUE(n.centre);  // (the number line still shows the zero it becomes)
    EXPECT_EQ(*n.centre, n.rounded.code);
  }
}

TEST(Neighbours, NextUpAndDownFollowTheSortedValues) {
  for (DType t : test::small_float_dtypes()) {
    const FloatFormat f = info(t).format;
    std::vector<std::pair<double, uint64_t>> values;
    for (uint64_t c = 0; c <= f.code_mask(); ++c)
      if (classify(f, c) != ValueClass::NaN && !(decode(f, c) == 0 && std::signbit(decode(f, c))))
        values.push_back({decode(f, c), c});
    std::sort(values.begin(), values.end());
    for (size_t i = 0; i < values.size(); ++i) {
      const auto up = next_up(f, values[i].second), down = next_down(f, values[i].second);
      if (i + 1 < values.size()) {
        ASSERT_TRUE(up) << info(t).name << " " << values[i].first;
        EXPECT_EQ(*up, values[i + 1].second) << info(t).name << " " << values[i].first;
      } else {
        EXPECT_FALSE(up) << info(t).name;
      }
      if (i > 0) {
        ASSERT_TRUE(down) << info(t).name << " " << values[i].first;
        EXPECT_EQ(*down, values[i - 1].second) << info(t).name << " " << values[i].first;
      } else {
        EXPECT_FALSE(down) << info(t).name;
      }
    }
  }
}

TEST(Neighbours, BothZerosSitBetweenTheSmallestSubnormals) {
  const FloatFormat h = fmt("float16");
  EXPECT_EQ(*next_up(h, 0x8000), 0x0001u);  // -0 -> 2^-24, as IEEE nextUp
  EXPECT_EQ(*next_down(h, 0x0000), 0x8001u);
  EXPECT_EQ(*next_up(h, 0x7bff), 0x7c00u);  // max finite -> Inf
  EXPECT_FALSE(next_up(h, 0x7c00));
  EXPECT_FALSE(next_up(h, 0x7e00));                   // NaN has no neighbours
  EXPECT_FALSE(next_up(fmt("float8_e4m3fn"), 0x7e));  // 448: the next code is NaN
  EXPECT_FALSE(next_down(fmt("float8_e8m0fnu"), 0x00));
}

TEST(Neighbours, ToggleBitFlipsOneBitInsideTheFormat) {
  const FloatFormat h = fmt("float16");
  EXPECT_EQ(toggle_bit(h, 0x3c00, 15), 0xbc00u);  // 1 -> -1
  EXPECT_EQ(toggle_bit(h, 0x3c00, 0), 0x3c01u);   // 1 -> 1 + 2^-10
  EXPECT_EQ(toggle_bit(h, 0x3c00, 16), 0x3c00u);  // outside the format: unchanged
  EXPECT_EQ(toggle_bit(fmt("float4_e2m1fn"), 0x1, 3), 0x9u);
}

// Hand-derived: float16's 0.1 is 0x2e66 = 1638 * 2^-14, ulp 2^-14; the midpoints are 2^-15
// away and 1638 is even, so both ties round here.
TEST(Interval, Float16PointOne) {
  const Neighbourhood n = neighbourhood(fmt("float16"), 0.1, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(n.rounded.code, 0x2e66u);
  EXPECT_EQ(n.ulp, std::ldexp(1.0, -14));
  EXPECT_EQ(n.gap_below, std::ldexp(1.0, -14));
  EXPECT_EQ(interval_text(*n.interval), "[0.099945068359375, 0.100006103515625]");
  EXPECT_EQ(n.line.size(), 17u);
  EXPECT_EQ(n.line[8], 0x2e66u);
}

// Bug: the Explorer said "x is not a finite number" wherever there was no interval, also for 0
// in float8_e8m0fnu, which has no zero: 0 is finite and rounds to NaN.
TEST(Interval, NoIntervalSaysWhy) {
  const Neighbourhood zero = neighbourhood(fmt("float8_e8m0fnu"), 0.0, Rounding::NearestEven, Overflow::FormatDefault);
  ASSERT_FALSE(zero.interval);
  EXPECT_EQ(no_interval_text(fmt("float8_e8m0fnu"), zero), "0 rounds to nan");
  const Neighbourhood inf = neighbourhood(fmt("float16"), INFINITY, Rounding::NearestEven, Overflow::FormatDefault);
  ASSERT_FALSE(inf.interval);
  EXPECT_EQ(no_interval_text(fmt("float16"), inf), "inf is not a finite number");
  const Neighbourhood tenth = neighbourhood(fmt("float16"), 0.1, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(no_interval_text(fmt("float16"), tenth), "");
}

// Bug: float8_e8m0fnu's rule said a tie "goes to the neighbour whose last significand bit is 0
// (ties to even)", but it has no significand bit: 3 goes to 4 (code 0x81, odd) and 6 to 8, as in
// ml_dtypes. The rule says what happens for a format without stored significand bits.
TEST(Interval, TiesWithoutSignificandBitsGoToTheLarger) {
  const Neighbourhood e8m0 = neighbourhood(fmt("float8_e8m0fnu"), 3, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(e8m0.rounded.code, 0x81u);  // 2^(129 - 127) = 4
  EXPECT_EQ(interval_text(*e8m0.interval), "[3, 6)");
  EXPECT_EQ(e8m0.interval->rule.find("last significand bit"), std::string::npos) << e8m0.interval->rule;
  EXPECT_NE(e8m0.interval->rule.find("a tie goes to the larger"), std::string::npos) << e8m0.interval->rule;
  const Neighbourhood e3m0 = neighbourhood(fmt("e3m0:finite"), 0.25, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(interval_text(*e3m0.interval), "(0.125, 0.375)");  // ties: 0.125 to zero, 0.375 up to 0.5
  EXPECT_NE(e3m0.interval->rule.find("one with zero to zero"), std::string::npos) << e3m0.interval->rule;
  const Neighbourhood f16 = neighbourhood(fmt("float16"), 0.1, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_NE(f16.interval->rule.find("last significand bit is 0 (ties to even)"), std::string::npos);
}

// Bug: rounded to 8 digits for presentation mode's explorer, float32's 0.1 showed the interval
// (0.099999998, 0.10000001): its upper end, 0.1000000052, read as past the next float32 value,
// 0.1000000089, shown beside it. An end takes the digits that keep it near its true value.
TEST(Interval, RoundedEndsStayBetweenTheValueAndItsNeighbours) {
  const Neighbourhood n = neighbourhood(fmt("float32"), 0.1, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(interval_text(*n.interval, 8), "(0.099999998, 0.100000005)");
  EXPECT_EQ(interval_text(*n.interval, 9), "(0.0999999978, 0.100000005)");
  // Short ends keep their digits as they are.
  const FloatFormat e4 = fmt("float8_e4m3fn");
  EXPECT_EQ(interval_text(*neighbourhood(e4, 448, Rounding::NearestEven, Overflow::Saturate).interval, 8),
            "[432, +inf]");
}

// Bug: rounded to nearest, an end could fall outside the interval: float32's 1e-40 rounds to
// 9.999946101...e-41, and so does every x up to 1.0000016166...e-40, but the Explorer's nine
// digits said 1.00000162e-40, which rounds to the next value.
TEST(Interval, RoundedEndsRoundTowardTheInside) {
  const FloatFormat f32 = fmt("float32");
  const Neighbourhood n = neighbourhood(f32, 1e-40, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(interval_text(*n.interval, 9), "[9.99987604e-41, 1.00000161e-40]");
  const Neighbourhood m = neighbourhood(f32, -1e-40, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(interval_text(*m.interval, 9), "[-1.00000161e-40, -9.99987604e-41]");
  // A carry that moves the exponent: float16's 0.001 (0.00100040435791015625) takes every x from
  // 0.000999927520751953125; at three digits that end goes up to 0.001.
  const Neighbourhood c = neighbourhood(fmt("float16"), 0.001, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(interval_text(*c.interval, 3).substr(1, 6), "0.001,") << interval_text(*c.interval, 3);
}

// A directed rounding's interval ends at the value itself, closed: that end is written as the
// value is, by its own digits and "...". Rounded inward, float32's 0.1 rounded up read
// (0.0999999941, 0.100000001], a bracket closing on a number that is not the value
// 0.1000000014901..., and 1234567.89 toward zero [1.23e+06, 1234568), below the value.
TEST(Interval, AnEndThatIsTheValueIsWrittenAsTheValue) {
  const FloatFormat f32 = fmt("float32");
  auto text = [&](double x, Rounding r, int digits) {
    const Neighbourhood n = neighbourhood(f32, x, r, Overflow::FormatDefault);
    return interval_text(*n.interval, digits, decode(f32, n.rounded.code));
  };
  EXPECT_EQ(text(0.1, Rounding::Up, 9), "(0.0999999941, 0.100000001...]");
  EXPECT_EQ(text(0.1, Rounding::TowardZero, 9), "[0.09999999403..., 0.100000001)");
  EXPECT_EQ(text(-0.1, Rounding::TowardZero, 9), "(-0.100000001, -0.09999999403...]");
  EXPECT_EQ(text(1234567.89, Rounding::TowardZero, 3), "[1234567.8..., 1234568)");
  EXPECT_EQ(text(0.5, Rounding::Down, 9), "[0.5, 0.500000059)");
}

// For every format, values across their range and both signs, every rounding with a finite
// interval and every label precision: the ends as written lie inside the true interval, so every
// x between them rounds to the value, and the value lies between them; an end written with "..."
// is the value itself.
TEST(Interval, EveryRoundedEndLiesInsideTheInterval) {
  size_t checked = 0, value_ends = 0;
  for (const char* name : {"float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float64"}) {
    const FloatFormat f = fmt(name);
    for (const Rounding rounding :
         {Rounding::NearestEven, Rounding::NearestAway, Rounding::TowardZero, Rounding::Up, Rounding::Down})
      for (int e = -330; e <= 40; e += 7)
        for (const double m : {1.0, 1.2345678901234567, 3.14159, 9.87654321, 7.0000001})
          for (const double sign : {1.0, -1.0}) {
            const double x = sign * m * std::pow(10.0, e);
            const Neighbourhood n = neighbourhood(f, x, rounding, Overflow::FormatDefault);
            if (!n.interval || n.interval->lo.unbounded || n.interval->hi.unbounded) continue;
            const double v = decode(f, n.rounded.code);
            if (!std::isfinite(v)) continue;
            for (const int digits : {3, 6, 8, 9, 10, 21}) {
              const std::string t = interval_text(*n.interval, digits, v);
              const std::string what =
                  std::string(name) + " " + std::to_string(x) + " " + std::to_string(digits) + ": " + t;
              const size_t comma = t.find(", ");
              ASSERT_NE(comma, std::string::npos) << t;
              const std::string lo_text = t.substr(1, comma - 1), hi_text = t.substr(comma + 2, t.size() - comma - 3);
              const bool lo_is_value = lo_text.find("...") != std::string::npos;
              const bool hi_is_value = hi_text.find("...") != std::string::npos;
              if (lo_is_value) {
                EXPECT_EQ(n.interval->lo.value, static_cast<long double>(v)) << what;
              }
              if (hi_is_value) {
                EXPECT_EQ(n.interval->hi.value, static_cast<long double>(v)) << what;
              }
              value_ends += lo_is_value + hi_is_value;
              const long double lo = lo_is_value ? v : std::strtold(lo_text.c_str(), nullptr);
              const long double hi = hi_is_value ? v : std::strtold(hi_text.c_str(), nullptr);
              EXPECT_GE(lo, n.interval->lo.value) << what;
              EXPECT_LE(hi, n.interval->hi.value) << what;
              EXPECT_LE(lo, static_cast<long double>(v)) << what;
              EXPECT_GE(hi, static_cast<long double>(v)) << what;
              ++checked;
            }
          }
  }
  EXPECT_GT(checked, 5000u);
  EXPECT_GT(value_ends, 100u);  // (the directed roundings' closed ends)
}

// OCP FP8: 448 = 1.110b * 2^8 is E4M3's largest; with an unbounded exponent the next would be
// 480 (1.111b, odd), so the tie at 464 goes to 448 and anything above overflows to NaN.
// float16's 65504 (odd significand) gives its tie at 65520 to Inf, and its tie at 65488 to
// 65472 (even): numpy.float16(65488.0) is 65472.
TEST(Interval, TopOfTheRangeAndOverflow) {
  const FloatFormat e4 = fmt("float8_e4m3fn"), h = fmt("float16");
  EXPECT_EQ(interval_text(*neighbourhood(e4, 448, Rounding::NearestEven, Overflow::FormatDefault).interval),
            "[432, 464]");
  EXPECT_EQ(interval_text(*neighbourhood(e4, 448, Rounding::NearestEven, Overflow::Saturate).interval), "[432, +inf]");
  EXPECT_EQ(interval_text(*neighbourhood(h, 65504, Rounding::NearestEven, Overflow::FormatDefault).interval),
            "(65488, 65520)");
  const Neighbourhood over = neighbourhood(h, 70000, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_TRUE(std::isinf(over.value));
  EXPECT_EQ(interval_text(*over.interval), "[65520, +inf]");
  EXPECT_EQ(*over.below, 0x7bffu);
  EXPECT_EQ(interval_text(*neighbourhood(e4, 500, Rounding::NearestEven, Overflow::FormatDefault).interval),
            "(464, +inf]");
  // An overflow to NaN: max finite is the neighbour toward zero -- below a positive x, above a
  // negative one.
  const Neighbourhood up = neighbourhood(e4, 500, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(*up.below, 0x7eu);
  EXPECT_FALSE(up.above);
  const Neighbourhood down = neighbourhood(e4, -500, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(*down.above, 0xfeu);
  EXPECT_FALSE(down.below);
  EXPECT_EQ(interval_text(*down.interval), "[-inf, -464)");
  EXPECT_EQ(interval_text(*neighbourhood(h, 65504, Rounding::TowardZero, Overflow::FormatDefault).interval),
            "[65504, +inf)");
  EXPECT_FALSE(neighbourhood(h, std::nan(""), Rounding::NearestEven, Overflow::FormatDefault).interval);
}

TEST(Interval, SignedZerosAndFnuz) {
  const FloatFormat h = fmt("float16"), fnuz = fmt("float8_e4m3fnuz");
  EXPECT_EQ(interval_text(*neighbourhood(h, 0.0, Rounding::NearestEven, Overflow::FormatDefault).interval),
            "[0, 0.0000000298023223876953125]");
  EXPECT_EQ(interval_text(*neighbourhood(h, -0.0, Rounding::NearestEven, Overflow::FormatDefault).interval),
            "[-0.0000000298023223876953125, -0]");
  // fnuz has one zero: both signs' ties go to it.
  EXPECT_EQ(interval_text(*neighbourhood(fnuz, 0.0, Rounding::NearestEven, Overflow::FormatDefault).interval),
            "[-0.00048828125, 0.00048828125]");
}

// A float64 midpoint needs 54 bits: 1 - 2^-54 and 1 + 2^-53, both ties going to 1 (even).
TEST(Interval, Float64EndsAreExact) {
  const Neighbourhood n = neighbourhood(fmt("float64"), 1.0, Rounding::NearestEven, Overflow::FormatDefault);
  EXPECT_EQ(interval_text(*n.interval),
            "[0.999999999999999944488848768742172978818416595458984375, "
            "1.00000000000000011102230246251565404236316680908203125]");
  EXPECT_EQ(n.gap_below, std::ldexp(1.0, -53));
  EXPECT_EQ(n.gap_above, std::ldexp(1.0, -52));
}

TEST(Interval, StochasticReachesBothNeighbours) {
  const Neighbourhood n = neighbourhood(fmt("bfloat16"), 1.0, Rounding::Stochastic, Overflow::FormatDefault);
  EXPECT_EQ(interval_text(*n.interval), "(0.99609375, 1.0078125)");
}

}  // namespace
}  // namespace pl
