#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/dtype/codec.h"
#include "core/dtype/dtype.h"
#include "core/dtype/shortest_decimal.h"
#include "core/util/number_text.h"
#include "core/util/printable.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

TEST(NumberText, ParsesEveryAcceptedForm) {
  EXPECT_EQ(*parse_number("0.1"), 0.1);
  EXPECT_EQ(*parse_number("0x1.8p+3"), 12.0);
  EXPECT_EQ(*parse_number("-0x1p-2"), -0.25);
  EXPECT_TRUE(std::isnan(*parse_number("nan")));
  EXPECT_EQ(*parse_number("inf"), INFINITY);
  EXPECT_EQ(*parse_number("-inf"), -INFINITY);
  EXPECT_TRUE(std::signbit(*parse_number("-0")));
  EXPECT_EQ(*parse_number("1e400"), INFINITY);
  EXPECT_EQ(*parse_number("-1e-400"), -0.0);
  EXPECT_EQ(*parse_number("65504"), 65504.0);
}

TEST(NumberText, RejectsMalformed) {
  for (const char* bad : {"", "abc", "1.2.3", "0x", "--1", "1e", "12abc", " 1", "+-1"})
    EXPECT_FALSE(parse_number(bad).ok()) << bad;
  EXPECT_NE(parse_number("1.2.3").error().find("malformed number '1.2.3'"), std::string::npos);
}

// The Formats panel said "1 + 2^-4 + 2^-40 as float64 is 1.0625000000009095" over a float64 row
// of 1.0625000000009094...: the shortest decimal that reads back, not the value. float64_text
// gives the value's own digits.
TEST(NumberText, AFloat64IsWrittenByItsOwnDigits) {
  EXPECT_EQ(float64_text(0x1.1000000001p+0), "1.0625000000009094...");
  EXPECT_EQ(float64_text(0.1), "0.100000000000000005...");
  EXPECT_EQ(float64_text(1.0), "1");
  EXPECT_EQ(float64_text(-2.5), "-2.5");
  EXPECT_EQ(float64_text(INFINITY), "inf");
}

TEST(NumberText, ShortestDecimalIsPerFormat) {
  const FloatFormat& f16 = info(DType::float16).format;
  EXPECT_EQ(shortest_decimal(f16, 0.0999755859375), "0.1");  // float16(0.1)
  EXPECT_EQ(shortest_decimal(info(DType::float64).format, 0.1), "0.1");
  EXPECT_EQ(shortest_decimal(f16, INFINITY), "inf");
  // Plain decimals where %g would switch to an exponent for a few digits (it wrote 4.5e+02).
  EXPECT_EQ(shortest_decimal(info(DType::float8_e4m3fn).format, 448), "450");
  EXPECT_EQ(shortest_decimal(info(DType::float8_e5m2).format, 57344), "60000");  // one digit: 60000 rounds to 57344
  EXPECT_EQ(shortest_decimal(f16, std::ldexp(1.0, -16)), "0.00001526");          // 1.52587890625e-05
  EXPECT_EQ(shortest_decimal(info(DType::float32).format, 3.4028234663852886e38), "3.4028235e+38");
}

// An fnuz format's one NaN, 0x80, has its sign bit set: scenario 12's check of 250 in
// float8_e4m3fnuz must read "nan", as Python and NumPy print it, not "-nan".
TEST(NumberText, EveryNanPrintsAsNan) {
  EXPECT_EQ(shortest_double(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(shortest_double(-std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(shortest_double(decode(info(DType::float8_e4m3fnuz).format, 0x80)), "nan");
  // The Formats panel's value column, 300 in float8_e4m3fnuz: it read "-nan" through %.10g.
  EXPECT_EQ(significant_text(decode(info(DType::float8_e4m3fnuz).format, 0x80), 10), "nan");
  EXPECT_EQ(significant_text(-std::numeric_limits<double>::infinity(), 10), "-inf");
  EXPECT_EQ(significant_text(0.0999755859375, 10), "0.09997558594");
}

TEST(NumberText, ExpressionsAreAQuotientOrAProduct) {
  EXPECT_EQ(*parse_number_expression("50/49"), 50.0 / 49.0);
  EXPECT_EQ(*parse_number_expression("1e-8*1024"), 1e-8 * 1024);
  EXPECT_EQ(*parse_number_expression("0x1.1000000001p+0"), 1 + std::ldexp(1.0, -4) + std::ldexp(1.0, -40));
  EXPECT_FALSE(parse_number_expression("1/x"));
  EXPECT_FALSE(parse_number_expression("abc"));
}

TEST(NumberText, ExactDecimalHasEveryDigit) {
  EXPECT_EQ(exact_decimal(0.1), "0.1000000000000000055511151231257827021181583404541015625");
  EXPECT_EQ(exact_decimal(0.5), "0.5");
  EXPECT_EQ(hex_float(12.0), "0x1.8p+3");
}

// A shape is whole numbers from 1 to 2^31, comma-separated; anything else names the bad part.
TEST(ParseDimensions, AcceptsShapesAndNamesTheBadPart) {
  EXPECT_EQ(*parse_dimensions("2,3,8,8"), (std::vector<int64_t>{2, 3, 8, 8}));
  EXPECT_EQ(*parse_dimensions("2147483648"), (std::vector<int64_t>{2147483648}));
  for (const char* bad : {"", "2,,3", "2,", "-1", "+2", "0", "1 2", " 1", "2147483649", "1e3", "0x10"})
    EXPECT_FALSE(parse_dimensions(bad)) << bad;
  EXPECT_NE(parse_dimensions("2,x,3").error().find("'x' in '2,x,3'"), std::string::npos);
  EXPECT_EQ(dimensions_text({2, 3, 8, 8}), "2,3,8,8");
}

// File-supplied text reaches the terminal escaped: an OSC sequence in a tensor name retitled it.
TEST(Printable, EscapesControlsAndCutsLongText) {
  EXPECT_EQ(printable("model.layers.0.weight"), "model.layers.0.weight");
  EXPECT_EQ(printable("\x1b]0;x\x07\\"), "\\x1b]0;x\\x07\\\\");
  EXPECT_EQ(printable(std::string(100, 'a'), 10), "aaaaaaaaaa...");
  EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 kept
}

}  // namespace
}  // namespace pl

namespace pl {
namespace {

// Bug: the Formats table showed every stored value to 10 digits, so float64's 1 + 2^-4 + 2^-40
// (scenario 19's value) read "1.0625", as if the float64 had rounded the 2^-40 away.
TEST(NumberText, AStoredValueShowsTheDigitsItsFormatHolds) {
  auto shown = [](double v, int precision) { return stored_value_text(v, exact_decimal(v), precision); };
  EXPECT_EQ(shown(1.0 + 0x1p-4 + 0x1p-40, 53), "1.0625000000009094...");
  EXPECT_EQ(shown(1.125, 4), "1.125");                        // exact and short
  EXPECT_EQ(shown(0.0999755859375, 11), "0.0999755859375");   // float16's 0.1, exact
  EXPECT_EQ(shown(-0.0999755859375, 11), "-0.0999755859375"); // its sign costs no digits
  EXPECT_EQ(shown(1.0 / 0.0, 53), "inf");
}

// Bug: float32's 0.1 read "0.1000000015", rounded at the tenth digit, beside float16's exact
// 0.0999755859375: nothing said which were exact. Cut values show the value's own digits, then
// "...".
TEST(NumberText, ACutValueShowsItsOwnDigitsAndSaysItIsCut) {
  auto shown = [](double v, int precision) { return stored_value_text(v, exact_decimal(v), precision); };
  EXPECT_EQ(shown(double(0.1f), 24), "0.1000000014...");        // 0.100000001490116..., not ...15
  EXPECT_EQ(shown(0.1, 53), "0.100000000000000005...");         // on to its first non-zero digit
  EXPECT_EQ(shown(-double(0.1f), 24), "-0.1000000014...");
  EXPECT_EQ(shown(double(1e-5f), 24), "9.999999747...e-06");     // exponent kept
  EXPECT_EQ(shown(double(3.4028234663852886e38f), 24), "3.402823466...e+38");           // a cut whole part
  EXPECT_EQ(exact_digits_text(0.10009765625, "0.10009765625", 10), "0.1000976562...");  // bfloat16's 0.1
  EXPECT_EQ(exact_digits_text(0.125, "0.125", 10), "0.125");
}

// Bug: a value whose whole part was cut was rounded to nearest by printf, which can round up: 2^70
// (1180591620717411303424) read "1.180591621e+21" to ten digits, and float64's largest to five digits read
// 1.7977e+308, a number that overflows float64. The leading digits are the value's own.
TEST(NumberText, ACutWholePartKeepsTheValuesOwnDigits) {
  EXPECT_EQ(leading_digits_text(0x1p70, 10), "1.1805916207...e+21");  // on past a kept zero
  EXPECT_EQ(leading_digits_text(-0x1p70, 4), "-1.1805...e+21");       // on past the zero, as in a fraction
  EXPECT_EQ(leading_digits_text(std::numeric_limits<double>::max(), 5), "1.7976...e+308");
  EXPECT_EQ(leading_digits_text(1048576.0, 3), "1.04...e+06");  // printf's %.3g: 1.05e+06
  EXPECT_EQ(leading_digits_text(1048576.0, 1), "1...e+06");
  EXPECT_EQ(leading_digits_text(1048576.5, 7), "1048576.5");  // exact when nothing is left off
  EXPECT_EQ(leading_digits_text(1000000.0, 3), "1000000");
  EXPECT_EQ(leading_digits_text(123450000.0, 5), "1.2345e+08");  // only zeros left off: no "..."
  EXPECT_EQ(float64_text(720575940379279360.0), "7.2057594037927936e+17");
  EXPECT_EQ(leading_digits_text(10.0, 1), "1e+01");
  EXPECT_EQ(leading_digits_text(1000.5, 1), "1...e+03");
  EXPECT_EQ(leading_digits_text(65504.0, 5), "65504");
  EXPECT_EQ(leading_digits_text(0x1p-14, 5), "6.1035...e-05");  // float16's smallest normal
  EXPECT_EQ(leading_digits_text(0x1p-10, 5), "0.00097656...");
  EXPECT_EQ(leading_digits_text(0x1p-6, 5), "0.015625");
  for (int e = 0; e < 1024; ++e) {  // every power of two: the digits shown never exceed the value
    const double v = std::ldexp(1.0, e);
    std::string t = leading_digits_text(v, 5);
    if (const size_t dots = t.find("..."); dots != std::string::npos) t.erase(dots, 3);
    EXPECT_LE(std::strtod(t.c_str(), nullptr), v) << e;
  }
}

// Bug: a saturated cast's error in ulps was written to three places whatever its size: 3e38 into
// float6_e2m3fn read -6000000000000000024271790803693365886976.000, wider than the table.
TEST(NumberText, AnUlpErrorKeepsToTheTablesWidth) {
  EXPECT_EQ(ulp_error_text(0.2), "+0.200");
  EXPECT_EQ(ulp_error_text(-0.4), "-0.400");
  EXPECT_EQ(ulp_error_text(0), "+0.000");
  EXPECT_EQ(ulp_error_text(-1e-5), "-1e-05");  // never "-0.000"
  EXPECT_EQ(ulp_error_text(-6e38), "-6e+38");
  EXPECT_EQ(ulp_error_text(123456.5), "+123456.500");
  EXPECT_EQ(ulp_error_text(1234567.0), "+1.235e+06");
}

// Bug: the Formats table's error columns mixed "1.49e-09", "2.441e-05" and "0.001562" (printf's
// %.4g): neither their digits nor their orders of magnitude lined up. Every row is written alike.
TEST(NumberText, ErrorSizesInAColumnAreWrittenAlike) {
  EXPECT_EQ(error_size_text(1.4901161193847656e-09, 4), "1.490e-09");
  EXPECT_EQ(error_size_text(2.44140625e-05, 4), "2.441e-05");
  EXPECT_EQ(error_size_text(0.1015625 - 0.1, 4), "1.562e-03");  // float8_e4m3fn's 0.1: 0.00156249999...
  EXPECT_EQ(error_size_text(0.00625, 4), "6.250e-03");
  EXPECT_EQ(error_size_text(0.015625, 3), "1.56e-02");
  EXPECT_EQ(error_size_text(0, 4), "0");  // exact
  EXPECT_EQ(error_size_text(3e38, 3), "3.00e+38");
}

}  // namespace
}  // namespace pl

namespace pl {
namespace {

// A share to a tenth of a percent never reads as all or none when it is not: 16383 of 16384
// within a bound read "100.0% within", as if no element were past it.
TEST(NumberText, AShareIsNeverRoundedToAllOrNone) {
  EXPECT_EQ(share_text(16384, 16384), "100.0%");
  EXPECT_EQ(share_text(16383, 16384), ">99.9%");
  EXPECT_EQ(share_text(0, 16384), "0.0%");
  EXPECT_EQ(share_text(1, 1000000), "<0.1%");
  EXPECT_EQ(share_text(992, 1000), "99.2%");
  EXPECT_EQ(share_text(0, 0), "-");
}

// Bug: a scan of a small file said "2.56e-07 GB". A size is in the largest unit it reaches.
TEST(BytesText, ASizeIsInTheLargestUnitItReaches) {
  EXPECT_EQ(bytes_text(256), "256 bytes");
  EXPECT_EQ(bytes_text(236000), "236 kB");
  EXPECT_EQ(bytes_text(33554432), "33.6 MB");
  EXPECT_EQ(bytes_text(2014000000), "2.01 GB");
}

}  // namespace
}  // namespace pl
