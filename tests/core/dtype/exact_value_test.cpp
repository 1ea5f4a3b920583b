// encode_exact: a quotient, a product or a sum float64 cannot hold, rounded once. Each answer is
// checked against the exact value without forming it: the sign of r * B - A (or r - a * b) is
// exact in one fma, so "r <= A/B < r's next value up" and the midpoints' sides are exact tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/dtype/codec.h"
#include "core/dtype/dtype.h"
#include "core/dtype/neighbourhood.h"

namespace pl {
namespace {

// The sign of v - x, x the exact value: v * B - A for a quotient (B > 0), v - a * b for a product.
struct Exact {
  double a, b;
  char op;
  int side(double v) const {
    const double d = op == '/' ? std::fma(v, b, -a) * (b < 0 ? -1 : 1) : -std::fma(a, b, -v);
    return (d > 0) - (d < 0);
  }
  ExactValue value() const {
    if (op == '/') {
      const double hi = a / b;
      return {hi, std::fma(-hi, b, a), b};
    }
    const double hi = a * b;
    return {hi, std::fma(a, b, -hi), 1};
  }
};

TEST(ExactValue, QuotientsAndProductsRoundOnceInEveryMode) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  const DType targets[] = {DType::float64, DType::float32, DType::bfloat16, DType::float16, DType::float8_e4m3fn};
  const Rounding modes[] = {Rounding::NearestEven, Rounding::NearestAway, Rounding::TowardZero, Rounding::Up,
                            Rounding::Down};
  int checked = 0, differs_from_twice = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const double a = std::ldexp(mantissa(rng), exponent(rng)) * (trial % 2 ? -1 : 1);
    const double b = std::ldexp(mantissa(rng), exponent(rng) / 4);
    for (const char op : {'/', '*'}) {
      const Exact x{a, b, op};
      const ExactValue v = x.value();
      if (v.rest == 0) continue;
      for (const DType t : targets) {
        const FloatFormat& f = info(t).format;
        for (const Rounding m : modes) {
          CastOptions o;
          o.rounding = m;
          o.overflow = Overflow::Saturate;
          const uint64_t code = encode_exact(f, v, o).code;
          const double r = decode(f, code);
          if (std::fabs(r) == decode(f, f.max_finite_code())) continue;  // saturated: no neighbour to test
          const auto up = next_up(f, code), down = next_down(f, code);
          ASSERT_TRUE(up && down);
          const double above = decode(f, *up), below = decode(f, *down);
          ++checked;
          // r's place: between its neighbours, on the side the mode asks.
          EXPECT_LT(x.side(below), 0);
          EXPECT_GT(x.side(above), 0);
          const bool toward_zero = m == Rounding::TowardZero;
          if (m == Rounding::Down || (toward_zero && r > 0)) {
            EXPECT_LE(x.side(r), 0);
          }
          if (m == Rounding::Up || (toward_zero && r < 0)) {
            EXPECT_GE(x.side(r), 0);
          }
          if ((m == Rounding::NearestEven || m == Rounding::NearestAway) && t != DType::float64) {
            // Nearest: x within the midpoints either side (exact doubles for these formats).
            EXPECT_LE(x.side((below + r) / 2), 0) << a << op << b;
            EXPECT_GE(x.side((r + above) / 2), 0) << a << op << b;
          }
          if (r != decode(f, encode(f, v.hi, o).code)) ++differs_from_twice;
        }
      }
    }
  }
  EXPECT_GT(checked, 100000);
  EXPECT_GT(differs_from_twice, 100);  // the cases rounding the float64 value would get wrong
}

// Divisors of every size and sign (a divisor past 2^1015 overflowed the rest's rescaling), into
// float64 and float16 in the directed modes.
TEST(ExactValue, DivisorsOfAnySizeAndSign) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-1000, 1020);
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const double b = std::ldexp(mantissa(rng), exponent(rng)) * (trial % 3 ? 1 : -1);
    const double a = std::ldexp(mantissa(rng), std::clamp(std::ilogb(b) + exponent(rng) / 40, -960, 1020));
    const Exact x{a, b, '/'};
    const ExactValue v = x.value();
    if (v.rest == 0 || !std::isfinite(v.hi) || std::fabs(v.hi) < 0x1p-960) continue;
    for (const DType t : {DType::float64, DType::float16})
      for (const Rounding m : {Rounding::Up, Rounding::Down, Rounding::TowardZero}) {
        const FloatFormat& f = info(t).format;
        CastOptions o;
        o.rounding = m;
        o.overflow = Overflow::Saturate;
        const uint64_t code = encode_exact(f, v, o).code;
        const double r = decode(f, code);
        if (r == 0 || std::fabs(r) == decode(f, f.max_finite_code())) continue;
        const auto up = next_up(f, code), down = next_down(f, code);
        ASSERT_TRUE(up && down);
        ++checked;
        EXPECT_LT(x.side(decode(f, *down)), 0) << a << "/" << b;
        EXPECT_GT(x.side(decode(f, *up)), 0) << a << "/" << b;
        if (m == Rounding::Down || (m == Rounding::TowardZero && r > 0)) {
          EXPECT_LE(x.side(r), 0) << a << "/" << b;
        } else {
          EXPECT_GE(x.side(r), 0) << a << "/" << b;
        }
      }
  }
  EXPECT_GT(checked, 5000);
}

// Ties into float64 itself, where the rest's size decides: 0x1.0000000000003p+0 * 1.5 is
// 1.5 + 4.5 * 2^-52, halfway between 1.5 + 4 * 2^-52 (even) and 1.5 + 5 * 2^-52.
TEST(ExactValue, ATieIntoFloat64GoesToEvenOrAway) {
  const FloatFormat& f64 = info(DType::float64).format;
  const Exact x{0x1.0000000000003p+0, 1.5, '*'};
  CastOptions even, away;
  away.rounding = Rounding::NearestAway;
  EXPECT_EQ(decode(f64, encode_exact(f64, x.value(), even).code), 1.5 + 4 * 0x1p-52);
  EXPECT_EQ(decode(f64, encode_exact(f64, x.value(), away).code), 1.5 + 5 * 0x1p-52);
}

// Through float32 first: the exact value rounded to float32 once, then into the format (not the
// float64 value's rounding, a third). And e8m0's powers of two: 1/3 lies between 2^-2 and 2^-1.
TEST(ExactValue, ThroughFloat32AndIntoE8m0) {
  const FloatFormat& bf16 = info(DType::bfloat16).format;
  CastOptions via;
  via.path = CastPath::ViaFloat32;
  const Exact x{0x1.8p+1, 0x1.c15556aaaaaabp-2, '*'};
  const double f32 = decode(info(DType::float32).format, encode_exact(info(DType::float32).format, x.value(), {}).code);
  EXPECT_EQ(decode(bf16, encode_exact(bf16, x.value(), via).code), decode(bf16, encode(bf16, f32, {}).code));
  EXPECT_EQ(decode(bf16, encode_exact(bf16, x.value(), via).code), 1.3203125);
  const FloatFormat& e8m0 = info(DType::float8_e8m0fnu).format;
  CastOptions up, down;
  up.rounding = Rounding::Up;
  down.rounding = Rounding::Down;
  const Exact third{1, 3, '/'};
  EXPECT_EQ(decode(e8m0, encode_exact(e8m0, third.value(), up).code), 0.5);
  EXPECT_EQ(decode(e8m0, encode_exact(e8m0, third.value(), down).code), 0.25);
}

// A sum's rest (TwoSum) the same way: 1 + 2^-60 rounded up into float64 is 1 + 2^-52.
TEST(ExactValue, ASumsRestDecidesADirectedRounding) {
  const FloatFormat& f64 = info(DType::float64).format;
  CastOptions up;
  up.rounding = Rounding::Up;
  EXPECT_EQ(decode(f64, encode_exact(f64, {1.0, 0x1p-60, 1}, up).code), 1 + 0x1p-52);
  CastOptions down;
  down.rounding = Rounding::Down;
  EXPECT_EQ(decode(f64, encode_exact(f64, {1.0, -0x1p-60, 1}, down).code), 1 - 0x1p-53);  // the binade below
  EXPECT_EQ(decode(f64, encode_exact(f64, {1.0, 0x1p-60, 1}, down).code), 1.0);
  // A tie to nearest is a tie only when the rest is exactly half an ulp.
  const FloatFormat& f16 = info(DType::float16).format;
  EXPECT_EQ(decode(f16, encode_exact(f16, {1 + 0x1p-11, 0x1p-60, 1}, CastOptions{}).code), 1 + 0x1p-10);
  EXPECT_EQ(decode(f16, encode_exact(f16, {1 + 0x1p-11, -0x1p-60, 1}, CastOptions{}).code), 1.0);
  EXPECT_EQ(decode(f16, encode_exact(f16, {1 + 0x1p-11, 0, 1}, CastOptions{}).code), 1.0);  // ties to even
}

}  // namespace
}  // namespace pl
