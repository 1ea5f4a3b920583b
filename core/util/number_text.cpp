#include "core/util/number_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/util/printable.h"

namespace pl {

Expected<double> parse_number(std::string_view text) {
  auto bad = [&] {
    return Error{"malformed number '" + printable_whole(text) +
                 "' (expected decimal, hex-float like 0x1.8p+3, nan, inf, -inf or -0)"};
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s[0] == '-' || s[0] == '+') return bad();
  auto fmt = std::chars_format::general;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    fmt = std::chars_format::hex;
  }
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, fmt);
  if (end != s.data() + s.size()) return bad();
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves v untouched here; strtod gives the correctly signed inf or 0.
    std::string copy(text);
    v = std::fabs(std::strtod(copy.c_str(), nullptr));
  } else if (ec != std::errc()) {
    return bad();
  }
  return negative ? -v : v;
}

std::string shortest_double(double v) {
  // A NaN's sign bit carries no sign of a value (an fnuz format's one NaN has it set): "nan",
  // as Python and NumPy print every NaN.
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string significant_text(double v, int digits) {
  if (!std::isfinite(v)) return shortest_double(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string stored_value_text(double v, std::string_view exact, int precision) {
  const size_t digits = exact.size() - (exact.starts_with('-') ? 1 : 0);  // -0.1 as 0.1
  if (digits <= 15) return std::string(exact);
  const int max_digits10 = int(std::ceil(precision * std::log10(2.0))) + 1;
  return exact_digits_text(v, exact, std::clamp(max_digits10, 10, 17));
}

std::string float64_text(double v) { return std::isfinite(v) ? stored_value_text(v, exact_decimal(v), 53) : shortest_double(v); }

namespace {

// `mantissa` (an exact fixed-point decimal) cut before its character `cut`, which lies in its whole
// part, written in scientific notation: 2^70, 1180591620717411303424, cut after 10 digits reads
// "1.1805916207...e+21" (on past the kept zero), never printf's "1.180591621e+21", which is not
// the value. Without "..." where only zeros are left off: 123450000 to five digits is 1.2345e+08.
std::string cut_whole_part_text(std::string_view mantissa, size_t cut) {
  std::string out = mantissa.starts_with('-') ? "-" : "";
  std::string kept;
  size_t whole = 0;
  for (size_t i = 0; i < mantissa.size() && mantissa[i] != '.'; ++i) {
    if (mantissa[i] < '0' || mantissa[i] > '9' || (whole == 0 && mantissa[i] == '0')) continue;
    ++whole;
    if (i < cut) kept += mantissa[i];
  }
  out += kept.substr(0, 1);
  if (kept.size() > 1) out.append(".").append(kept, 1);  // appended: GCC 12 bug 105329
  char e[16];
  const bool left_off = mantissa.find_first_not_of("0.", cut) != std::string_view::npos;
  std::snprintf(e, sizeof e, "%se+%02zu", left_off ? "..." : "", whole - 1);
  return out + e;
}

}  // namespace

std::string exact_digits_text(double v, std::string_view exact, int digits) {
  if (!std::isfinite(v)) return shortest_double(v);
  digits = std::max(digits, 1);
  const size_t e = exact.find_first_of("eE");
  const std::string_view mantissa = exact.substr(0, e), exponent = e == std::string_view::npos ? "" : exact.substr(e);
  const size_t point = mantissa.find('.');
  std::string out;
  int significant = 0;
  for (size_t i = 0; i < mantissa.size(); ++i) {
    const char c = mantissa[i];
    if (c >= '0' && c <= '9' && (significant > 0 || c != '0')) {
      // Past `digits`, on to the first non-zero digit: float64's 0.1 is 0.100000000000000005...,
      // not 0.10000000000000000...
      if (significant >= digits && out.back() != '0' && out.back() != '.') {
        if (point == std::string_view::npos || i < point) return cut_whole_part_text(mantissa, i);
        return out + "..." + std::string(exponent);
      }
      ++significant;
    }
    out += c;
  }
  return std::string(exact);
}

std::string directed_digits(const std::string& exact, int digits, bool away) {
  digits = std::max(digits, 1);
  const bool negative = !exact.empty() && exact[0] == '-';
  const size_t e = exact.find_first_of("eE");  // exact_decimal's text below 1e-4 has an exponent
  const std::string body = exact.substr(negative ? 1 : 0, e == std::string::npos ? e : e - (negative ? 1 : 0));
  const int shift = e == std::string::npos ? 0 : std::atoi(exact.c_str() + e + 1);
  const size_t point = std::min(body.find('.'), body.size());
  std::string all = body.substr(0, point) + (point < body.size() ? body.substr(point + 1) : "");
  const size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) return negative ? "-0" : "0";
  int exponent = static_cast<int>(point) - static_cast<int>(first) - 1 + shift;  // of the first digit
  std::string kept = all.substr(first);
  const size_t n = static_cast<size_t>(digits);
  if (kept.size() > n) {
    const bool dropped = kept.find_first_not_of('0', n) != std::string::npos;
    kept.resize(n);
    if (dropped && away) {  // add one in the last place kept, carrying
      size_t i = n;
      while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
      if (i == 0) {
        kept.insert(kept.begin(), '1'), kept.pop_back(), ++exponent;
      } else {
        ++kept[i - 1];
      }
    }
  }
  while (kept.size() > 1 && kept.back() == '0') kept.pop_back();
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= digits) {
    out += kept.substr(0, 1);
    if (kept.size() > 1) out.append(".").append(kept, 1);  // appended: GCC 12 bug 105329
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + e;
  }
  if (exponent < 0) return out + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + kept;
  const size_t whole = static_cast<size_t>(exponent) + 1;
  if (kept.size() <= whole) return out + kept + std::string(whole - kept.size(), '0');
  return out + kept.substr(0, whole) + "." + kept.substr(whole);
}

std::string inward_end_text(const std::string& exact, long double value, bool upper, int digits, long double width) {
  const bool away = upper == std::signbit(value);
  std::string t = directed_digits(exact, digits, away);
  for (int d = digits + 1;
       d <= 40 && std::isfinite(width) && std::fabs(std::strtold(t.c_str(), nullptr) - value) >= width / 8; ++d)
    t = directed_digits(exact, d, away);
  return t;
}

std::string leading_digits_text(double v, int digits) { return exact_digits_text(v, exact_decimal(v), digits); }

std::string exact_decimal(double v) {
  if (!std::isfinite(v)) return shortest_double(v);
  // 767 significant digits cover the longest binary64 expansion; glibc prints them exactly.
  std::vector<char> buf(1200);
  std::snprintf(buf.data(), buf.size(), "%.767g", v);
  return buf.data();
}

std::string ulp_error_text(double ulps) {
  const double a = std::fabs(ulps);
  char buf[64];
  std::snprintf(buf, sizeof buf, (a < 5e-4 && a != 0) ? "%+.2g" : a >= 1e6 ? "%+.4g" : "%+.3f", ulps);
  return buf;
}

std::string error_size_text(double value, int digits) {
  if (value == 0) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", std::max(digits, 1) - 1, value);
  return buf;
}

std::string power_of_two_text(double v) {
  int e = 0;
  if (!(v > 0) || !std::isfinite(v) || std::frexp(v, &e) != 0.5) return "";
  return "2^" + std::to_string(e - 1);
}

std::string hex_float(double v) {
  if (!std::isfinite(v)) return shortest_double(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

Expected<std::vector<int64_t>> parse_dimensions(std::string_view text) {
  constexpr int64_t kLargest = int64_t{1} << 31;  // past any tensor this app models
  std::vector<int64_t> dims;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view part =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || v < 1 || v > kLargest) {
      std::string why = "'";
      why.append(part.substr(0, 40)).append("' in '").append(text.substr(0, 80));
      why.append("' is not a dimension (a whole number from 1 to 2^31; dimensions are separated by commas)");
      return Error{why};
    }
    dims.push_back(v);
    if (comma == std::string_view::npos) return dims;
    start = comma + 1;
  }
}

std::string dimensions_text(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(dims[i]);
  }
  return s;
}

Expected<NumberTerms> parse_number_terms(const std::string& text) {
  for (char op : {'/', '*'}) {
    const size_t at = text.find(op);
    if (at == std::string::npos) continue;
    auto a = parse_number(text.substr(0, at));
    auto b = parse_number(text.substr(at + 1));
    if (!a || !b) return Error{"'" + text + "' is not NUMBER" + std::string(1, op) + "NUMBER"};
    return NumberTerms{*a, *b, op};
  }
  auto x = parse_number(text);
  if (!x) return Error{x.error()};
  return NumberTerms{*x, 1, 0};
}

Expected<double> parse_number_expression(const std::string& text) {
  auto t = parse_number_terms(text);
  if (!t) return Error{t.error()};
  if (t->op == '/') return t->a / t->b;
  if (t->op == '*') return t->a * t->b;
  return t->a;
}

std::string share_text(size_t part, size_t whole) {
  if (whole == 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  if (part != whole && std::string_view(text) == "100.0%") return ">99.9%";
  if (part != 0 && std::string_view(text) == "0.0%") return "<0.1%";
  return text;
}

std::string bytes_text(uint64_t bytes) {
  char s[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) std::snprintf(s, sizeof s, "%.3g GB", b / 1e9);
  else if (b >= 1e6) std::snprintf(s, sizeof s, "%.3g MB", b / 1e6);
  else if (b >= 1e3) std::snprintf(s, sizeof s, "%.3g kB", b / 1e3);
  else std::snprintf(s, sizeof s, "%llu bytes", static_cast<unsigned long long>(bytes));
  return s;
}

}  // namespace pl
