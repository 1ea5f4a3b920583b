// Reading and writing numbers as text without losing a bit: decimal and
// hex-float input, shortest round-tripping and exact decimal output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/expected.h"

namespace pl {

// Accepts decimal ("0.1", "-2.5e-3"), hex-float ("0x1.8p+3"), "nan", "inf", "-inf", "-0".
// Correctly rounded to float64 (std::from_chars). Values beyond float64 read as +-inf,
// values below its smallest subnormal as +-0, as Python's float() does.
Expected<double> parse_number(std::string_view text);
// "50/49" or "1e-8*1024": the quotient or product of two numbers in float64 (one rounding), or a
// plain number (parse_number's spellings). What the Formats and Explorer panels, `cast` and
// `explore` and the scenarios take as a value.
Expected<double> parse_number_expression(const std::string& text);
// The same expression's parts, for a caller that forms it exactly: op '/' or '*', or 0 for a plain
// number (a, with b 1).
struct NumberTerms {
  double a = 0, b = 1;
  char op = 0;
};
Expected<NumberTerms> parse_number_terms(const std::string& text);

// Every digit of the binary value (all binary floats have finite decimal expansions).
std::string exact_decimal(double value);
// Hex-float, e.g. 0x1.8p+3.
std::string hex_float(double value);
// "nan", "inf", "-inf" or the shortest float64 decimal.
std::string shortest_double(double value);
// "nan", "inf", "-inf" or the value to `digits` significant digits, as printf's %g writes it.
std::string significant_text(double value, int digits);
// A format's stored value in a table cell: exact when that is short (1.125, 0.0999755859375),
// else its first 10 significant digits or as many as a format of `precision` bits tells apart
// (max_digits10: 17 for float64), and "..." (exact_digits_text), so a float64 that differs from
// 1.0625 by 2^-40 never reads "1.0625".
std::string stored_value_text(double value, std::string_view exact, int precision);
// A float64 by its own digits: stored_value_text of its exact decimal ("1.0625000000009094..." for
// 0x1.1000000001p+0, whose shortest decimal "1.0625000000009095" is not its value).
std::string float64_text(double value);
// `exact` (exact_decimal's text) cut after `digits` significant digits, or after the first
// non-zero one past them, with "..." where digits are left off: every digit shown is the
// value's own, never rounded up ("0.1000000014..." for float32's 0.1, whose exact value is
// 0.100000001490116...: rounded, "0.1000000015" would read as exact beside float16's exact
// 0.0999755859375). A value whose whole part would be cut is written in scientific notation, by
// its own leading digits and "...": "3.4028...e+38" for float32's largest, where printf's "%.5g"
// writes 3.4028e+38, past it, and float64's largest to five digits, 1.7977e+308, is past its
// overflow threshold.
std::string exact_digits_text(double value, std::string_view exact, int digits);
// exact_digits_text of the value's exact decimal: a format's limits in tables and tooltips
// (float16's smallest normal 6.1035...e-05, its largest 65504).
std::string leading_digits_text(double value, int digits);
// `exact` (a value's exact decimal: endpoint_exact's or exact_decimal's text) to `digits` significant digits, rounded
// away from zero when `away` and toward it otherwise, written as printf's %g writes a number of that precision: the
// ends of an interval shortened toward its inside, so that every number the text encloses lies in the interval.
std::string directed_digits(const std::string& exact, int digits, bool away);
// An end of an interval `width` wide (its value and `exact`, its exact decimal), shortened toward
// the interval's inside (the lower end up, the upper down) to `digits` significant digits, or to
// more, up to 40, where that many leave it an eighth of the width or more from the end: every
// number the text encloses lies in the interval, and the two ends still read apart.
std::string inward_end_text(const std::string& exact, long double value, bool upper, int digits, long double width);
// A tensor shape as people write it, "2,3,8,8": comma-separated whole numbers from 1 to 2^31,
// without signs, spaces or empty parts. The error names the part that is not one.
Expected<std::vector<int64_t>> parse_dimensions(std::string_view text);
// "2,3,8,8".
std::string dimensions_text(const std::vector<int64_t>& dims);
// part / whole as a percentage to a tenth ("99.2%"), never rounded to "100.0%" while some are
// left out (">99.9%") nor to "0.0%" while some are in ("<0.1%"): "100.0% within" a bound would
// read as no element past it where one of 16384 is past it.
std::string share_text(size_t part, size_t whole);
// An error in ulps as the Formats table shows it: to three places ("+0.200"); a part in a thousand
// or less in significant digits ("-0.000" would read as a negative zero); a million or more in
// four (float6_e2m3fn's 7.5 for 3e38 would read "-6000000000000000024271790803693365886976.000",
// wider than the table).
std::string ulp_error_text(double ulps);
// An error's size in a table's column: in scientific notation to `digits` significant digits,
// every row alike ("1.490e-09" over "1.562e-03"), or "0". printf's %g would write "1.49e-09",
// "2.441e-05" and "0.001562" in one column of the Formats table, their digits and orders of
// magnitude out of line.
std::string error_size_text(double value, int digits);
// A size in bytes to three significant digits in the largest unit it reaches: "236 kB", "2.01 GB"
// (not "2.56e-07 GB" for a small file).
std::string bytes_text(uint64_t bytes);
// "2^-14" when value is a positive power of two (an ulp, a gap, a scale), else "".
std::string power_of_two_text(double value);

}  // namespace pl
