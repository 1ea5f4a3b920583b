#include "core/promote/py_value.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace pl::promote {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The largest magnitude a Python int literal may have here: int128 holds it exactly.
constexpr __int128 kIntLimit = static_cast<__int128>((static_cast<unsigned __int128>(1) << 127) - 1);

// Decimal digits (underscores allowed, as in Python) into a non-negative int128 of at most
// kIntLimit; nullopt when they are not digits, or with *too_large set when they are but exceed it.
std::optional<__int128> parse_digits(std::string_view s, bool* too_large) {
  // 0x, 0o and 0b as in Python.
  int radix = 10;
  if (s.size() > 2 && s[0] == '0') {
    const char p = static_cast<char>(s[1] | 0x20);
    radix = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
    if (radix != 10) s.remove_prefix(2);
  }
  // An underscore only between digits, or right after a base's prefix ("0x_ff"), as Python
  // allows: "0x_", "1_", "1__0" and "_1" are not ints.
  if (s.empty() || (s.front() == '_' && radix == 10) || s.back() == '_' ||
      s.find("__") != std::string_view::npos)
    return std::nullopt;
  __int128 v = 0;
  bool big = false;
  for (char c : s) {
    if (c == '_') continue;
    const int lower = c | 0x20;
    const int d = c >= '0' && c <= '9' ? c - '0' : lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : 99;
    if (d >= radix) return std::nullopt;
    if (big || v > (kIntLimit - d) / radix) big = true;
    else v = v * radix + d;
  }
  if (big) {
    *too_large = true;
    return std::nullopt;
  }
  return v;
}

// N, -N or (-)B**E as an int128; nullopt when malformed, or with *too_large set when the
// value's magnitude is past kIntLimit.
std::optional<__int128> parse_int(std::string_view s, bool* too_large) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  std::optional<__int128> v;
  if (auto pow = s.find("**"); pow != std::string_view::npos) {
    bool base_big = false, exp_big = false;
    const auto base = parse_digits(s.substr(0, pow), &base_big), exp = parse_digits(s.substr(pow + 2), &exp_big);
    if ((!base && !base_big) || (!exp && !exp_big)) return std::nullopt;  // not digits
    if (exp && *exp == 0) {
      v = 1;  // (0**0 too, as in Python)
    } else if (base && *base <= 1) {
      v = *base;  // 0 or 1 to any power past 0
    } else if (base_big || exp_big) {
      *too_large = true;
      return std::nullopt;
    } else {
      __int128 r = 1;
      for (__int128 i = 0; i < *exp; ++i) {  // (at most 127 steps before the limit)
        if (r > kIntLimit / *base) {
          *too_large = true;
          return std::nullopt;
        }
        r *= *base;
      }
      v = r;
    }
  } else {
    v = parse_digits(s, too_large);
  }
  if (!v) return std::nullopt;
  return neg ? -*v : *v;
}

std::optional<double> parse_real(std::string_view s) {
  std::string text(s);
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;  // overflow gives +-inf, which is what Python's float("1e999") gives too
}

}  // namespace

std::string_view py_type_name(PyType t) {
  switch (t) {
    case PyType::Bool: return "bool";
    case PyType::Int: return "int";
    case PyType::Float: return "float";
    case PyType::Complex: return "complex";
  }
  return "?";
}

PyType py_type_of(DType t) {
  if (t == DType::bool_) return PyType::Bool;
  if (is_integer(t)) return PyType::Int;
  return info(t).kind == DTypeKind::Complex ? PyType::Complex : PyType::Float;
}

PyValue default_py_value(PyType t) {
  PyValue v;
  v.type = t;
  switch (t) {
    case PyType::Bool:
      v.integer = 1;
      v.real = 1;
      break;
    case PyType::Int:
      v.integer = 2;
      v.real = 2;
      break;
    case PyType::Float: v.real = 2.5; break;
    case PyType::Complex:
      v.real = 2.5;
      v.imag = 1;
      break;
  }
  return v;
}

std::string_view default_literal(PyType t) {
  switch (t) {
    case PyType::Bool: return "True";
    case PyType::Int: return "2";
    case PyType::Float: return "2.5";
    case PyType::Complex: return "2.5+1j";
  }
  return "?";
}

Expected<PyValue> scalar_operand_value(std::string_view literal, DType t) {
  if (literal.empty()) return default_py_value(py_type_of(t));
  auto v = parse_py_value(literal);
  if (v && v->type != py_type_of(t))
    return Error{"a Python scalar's type comes from its value: " + std::string(literal) + " is a Python " +
                 std::string(py_type_name(v->type)) + ", which " + std::string(name(t)) + " does not name"};
  return v;
}

__int128 int_lo(DType t) {
  return info(t).kind == DTypeKind::UnsignedInt ? 0 : -(static_cast<__int128>(1) << (value_bits(t) - 1));
}
__int128 int_hi(DType t) {
  const int bits = value_bits(t) - (info(t).kind == DTypeKind::UnsignedInt ? 0 : 1);
  return (static_cast<__int128>(1) << bits) - 1;
}

std::string int128_to_string(__int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : v;
  std::string out;
  for (; u; u /= 10) out.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
  if (neg) out.push_back('-');
  return {out.rbegin(), out.rend()};
}

Expected<PyValue> parse_py_value(std::string_view text) {
  const std::string_view s = trim(text);
  PyValue v;
  if (s == "True" || s == "False") {
    v.type = PyType::Bool;
    v.integer = s == "True";
    v.real = static_cast<double>(v.integer);
    return v;
  }
  const std::string_view unsigned_part = s.substr(!s.empty() && (s[0] == '-' || s[0] == '+'));
  const bool radix_int = unsigned_part.size() > 2 && unsigned_part[0] == '0' &&
                         std::string_view("xXoObB").find(unsigned_part[1]) != std::string_view::npos;
  const bool looks_float = !radix_int && s.find_first_of(".eEn") != std::string_view::npos;  // n: inf, nan
  if (!s.empty() && (s.back() == 'j' || s.back() == 'J')) {
    // a+bj, a-bj or bj
    const std::string_view body = s.substr(0, s.size() - 1);
    size_t split = std::string_view::npos;
    for (size_t i = body.size(); i-- > 1;)
      if ((body[i] == '+' || body[i] == '-') && body[i - 1] != 'e' && body[i - 1] != 'E') {
        split = i;
        break;
      }
    std::optional<double> re = 0.0, im;
    if (split == std::string_view::npos) {
      im = body.empty() || body == "+" ? 1.0 : body == "-" ? -1.0 : parse_real(body);
    } else {
      re = parse_real(body.substr(0, split));
      const std::string_view ib = body.substr(split);
      im = ib == "+" ? 1.0 : ib == "-" ? -1.0 : parse_real(ib);
    }
    if (re && im) {
      v.type = PyType::Complex;
      v.real = *re;
      v.imag = *im;
      return v;
    }
  } else if (!looks_float || s.find("**") != std::string_view::npos) {
    bool too_large = false;
    const auto i = parse_int(s, &too_large);
    if (too_large)
      return Error{"the integer " + std::string(s) + " lies past 2**127 in magnitude, beyond what is modelled"};
    if (i) {
      v.type = PyType::Int;
      v.integer = *i;
      v.real = static_cast<double>(*i);
      return v;
    }
  } else if (auto r = parse_real(s)) {
    v.type = PyType::Float;
    v.real = *r;
    return v;
  }
  std::string why(1, '\'');  // built piecewise: GCC 12 misreports "literal" + std::string (-Wrestrict)
  why.append(s).append("' is not a Python bool, int, float or complex literal");
  return Error{std::move(why)};
}

}  // namespace pl::promote
