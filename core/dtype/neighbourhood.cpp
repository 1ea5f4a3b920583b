#include "core/dtype/neighbourhood.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/dtype/describe.h"
#include "core/util/number_text.h"

namespace pl {
namespace {

static_assert(std::numeric_limits<long double>::digits >= 54,
              "rounding-interval endpoints of float64 need a wider long double");

// Codes in value order: a signed ordinal, monotone in the value, with -0 and +0 both 0.
int64_t ordinal(const FloatFormat& f, uint64_t code) {
  const uint64_t magnitude = code & f.code_mask() & ~f.sign_mask();
  return (code & f.sign_mask()) ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
}

std::optional<uint64_t> from_ordinal(const FloatFormat& f, int64_t o) {
  const uint64_t magnitude_field = f.code_mask() & ~f.sign_mask();
  const uint64_t magnitude = o < 0 ? uint64_t(-o) : uint64_t(o);
  if (magnitude > magnitude_field || (o < 0 && !f.is_signed())) return std::nullopt;
  const uint64_t code = o < 0 ? f.sign_mask() | magnitude : magnitude;
  if (classify(f, code) == ValueClass::NaN) return std::nullopt;
  return code;
}

// The significand a code keeps in units of its binade's quantum; round-to-nearest-even sends a
// tie to the neighbour whose kept significand is even.
bool kept_even(const FloatFormat& f, uint64_t code) {
  if (f.specials == Specials::E8M0) return false;  // kept = 1, the implicit bit alone
  const uint64_t mantissa = code & f.mantissa_mask();
  const uint64_t exponent = (code >> f.mantissa_bits) & uint64_t(f.max_exponent_field());
  const uint64_t kept = exponent != 0 ? (uint64_t{1} << f.mantissa_bits) | mantissa : mantissa;
  return (kept & 1) == 0;
}

// A neighbour of the value explored: a representable value, or the one an unbounded exponent
// would give beyond max finite (where overflow begins).
struct Side {
  long double value = 0;
  std::optional<uint64_t> code;  // empty: the virtual value beyond max finite, or none at all
  bool exists = true;            // false: nothing on this side (E8M0 below its smallest scale)
};

Side side_of(const FloatFormat& f, std::optional<uint64_t> code, bool upward) {
  const long double beyond = static_cast<long double>(max_finite(f)) + exp2i(f.emax() - f.mantissa_bits);
  if (code && classify(f, *code) != ValueClass::Infinite) return {decode(f, *code), code, true};
  if (!upward && !f.is_signed()) return {0, std::nullopt, false};
  return {upward ? beyond : -beyond, std::nullopt, true};
}

// Does a value exactly halfway between v and neighbour w round to v?
bool tie_goes_to_v(const FloatFormat& f, Rounding r, uint64_t v_code, double v, const Side& w) {
  const bool v_smaller = std::fabs(static_cast<long double>(v)) < std::fabs(w.value);
  if (r == Rounding::NearestAway) return !v_smaller;
  // Nearest-even: the smaller magnitude wins when its kept significand is even. The virtual
  // value beyond max finite is never the smaller one.
  const uint64_t smaller = v_smaller ? v_code : *w.code;
  return kept_even(f, smaller) == v_smaller;
}

long double midpoint(double v, long double w) { return v + (w - v) / 2; }

Endpoint unbounded(bool upward, bool closed) {
  const long double inf = std::numeric_limits<long double>::infinity();
  return {upward ? inf : -inf, closed, true};
}

RoundingInterval interval_of(const FloatFormat& f, uint64_t code, Rounding r, Overflow overflow) {
  const double v = decode(f, code);
  const bool negative = std::signbit(v);
  const Side p = side_of(f, next_down(f, code), false), s = side_of(f, next_up(f, code), true);
  const bool sat = overflow_saturates(f, overflow);
  RoundingInterval iv;
  switch (r) {
    case Rounding::NearestEven:
    case Rounding::NearestAway:
      iv.lo = {midpoint(v, p.value), tie_goes_to_v(f, r, code, v, p), false};
      iv.hi = {midpoint(v, s.value), tie_goes_to_v(f, r, code, v, s), false};
      // (With no significand bits stored, "the last bit is 0" chooses nothing between two
      // nonzero values, each a lone implicit 1: float8_e8m0fnu's 3 goes to 4, as in ml_dtypes.)
      iv.rule = r == Rounding::NearestAway
                    ? "round to nearest: the ends are the midpoints to the neighbours, and a tie "
                      "goes to the larger magnitude (ties away from zero)"
                : f.mantissa_bits > 0
                    ? "round to nearest: the ends are the midpoints to the neighbours, and a tie "
                      "goes to the neighbour whose last significand bit is 0 (ties to even)"
                : f.has_zero()
                    ? "round to nearest: the ends are the midpoints to the neighbours; a tie between two "
                      "nonzero values goes to the larger (with no significand bits stored, each is a lone "
                      "1, neither even), one with zero to zero"
                    : "round to nearest: the ends are the midpoints to the neighbours, and a tie goes to "
                      "the larger (with no significand bits stored, each is a lone 1, neither even)";
      break;
    case Rounding::TowardZero:
      if (v == 0 && !f.has_negative_zero()) iv.lo = {p.value, false, false}, iv.hi = {s.value, false, false};
      else if (!negative) iv.lo = {v, true, false}, iv.hi = {s.value, false, false};
      else iv.lo = {p.value, false, false}, iv.hi = {v, true, false};
      iv.rule =
          "toward zero (truncation): every value from this one up to, not including, the "
          "next one away from zero";
      break;
    case Rounding::Down:
      iv.lo = {v, true, false};
      iv.hi = v == 0 && negative ? Endpoint{v, true, false} : Endpoint{s.value, false, false};
      iv.rule = "toward -inf: every value from this one up to, not including, the next one above";
      break;
    case Rounding::Up:
      iv.lo = v == 0 && !negative && f.has_negative_zero() ? Endpoint{v, true, false} : Endpoint{p.value, false, false};
      iv.hi = {v, true, false};
      iv.rule = "toward +inf: every value above the next one below, up to and including this one";
      break;
    case Rounding::Stochastic:
      iv.lo = {p.value, false, false};
      iv.hi = {s.value, false, false};
      iv.rule =
          "stochastic: any value strictly between the neighbours may round here, with "
          "probability 1 - |x - value| / gap";
      break;
  }
  // Signed zeros: -x rounds to -0 and +x to +0, so +0 takes no negative values and -0 no
  // positive ones (formats without -0 give both to the one zero).
  if (v == 0 && f.has_negative_zero() && r != Rounding::Down && r != Rounding::Up) {
    if (!negative) iv.lo = {0.0L, true, false};
    else iv.hi = {-0.0L, true, false};
  }
  // E8M0 has no zero: every positive value below its smallest scale rounds up to it.
  if (!p.exists) iv.lo = {0.0L, false, false};
  // At max finite the far side is where overflow begins. A rounding toward zero (down for
  // positives, up for negatives) never overflows (IEEE 754-2019 section 7.4); saturation
  // takes everything beyond, +-inf included.
  const bool to_zero_up = r == Rounding::Down || (r == Rounding::TowardZero && !negative);
  const bool to_zero_down = r == Rounding::Up || (r == Rounding::TowardZero && negative);
  if (!s.code && s.exists && (sat || to_zero_up)) iv.hi = unbounded(true, sat);
  if (!p.code && p.exists && f.is_signed() && (sat || to_zero_down)) iv.lo = unbounded(false, sat);
  return iv;
}

}  // namespace

std::optional<uint64_t> next_up(const FloatFormat& f, uint64_t code) {
  code &= f.code_mask();
  if (classify(f, code) == ValueClass::NaN) return std::nullopt;
  return from_ordinal(f, ordinal(f, code) + 1);
}

std::optional<uint64_t> next_down(const FloatFormat& f, uint64_t code) {
  code &= f.code_mask();
  if (classify(f, code) == ValueClass::NaN) return std::nullopt;
  return from_ordinal(f, ordinal(f, code) - 1);
}

uint64_t toggle_bit(const FloatFormat& f, uint64_t code, int bit) {
  if (bit < 0 || bit >= f.total_bits()) return code;
  return (code ^ (uint64_t{1} << bit)) & f.code_mask();
}

Neighbourhood neighbourhood(const FloatFormat& f, double x, Rounding rounding, Overflow overflow, int radius) {
  radius = std::clamp(radius, 0, 64);
  Neighbourhood n;
  n.x = x;
  CastOptions o;
  o.rounding = rounding;
  o.overflow = overflow;
  n.rounded = encode(f, x, o);
  const uint64_t code = n.rounded.code;
  n.value = decode(f, code);
  const ValueClass vc = classify(f, code);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  n.gap_below = n.gap_above = nan;
  n.ulp = ulp_at(f, n.value);
  const bool finite = vc != ValueClass::NaN && vc != ValueClass::Infinite;
  const bool overflowed = std::isfinite(x) && std::fabs(x) > max_finite(f);
  // Max finite on x's side: an overflow's neighbour toward zero and its number line's centre.
  const uint64_t top = (x < 0 ? f.sign_mask() : 0) | f.max_finite_code();
  // A NaN into a format without one becomes a zero (nan_to_zero): that zero has neighbours and an
  // interval of numbers, none of which is the NaN's.
  const bool number = !std::isnan(x);
  if (vc != ValueClass::NaN && number) {
    n.below = next_down(f, code);
    n.above = next_up(f, code);
  }
  if (finite) {
    if (n.below) n.gap_below = n.value - decode(f, *n.below);
    if (n.above) n.gap_above = decode(f, *n.above) - n.value;
    if (number) n.interval = interval_of(f, code, rounding, overflow);
    else n.ulp = nan;
    n.centre = code;
  } else if (vc == ValueClass::Infinite) {
    n.centre = top;
  } else if (overflowed) {  // NaN: max finite is the neighbour on the side toward zero
    (x > 0 ? n.below : n.above) = top;
    n.centre = top;
  }
  if (!finite && overflowed) {
    // Overflow: everything beyond max finite's interval on x's side.
    const RoundingInterval edge = interval_of(f, top, rounding, overflow);
    RoundingInterval iv;
    iv.rule = std::string("overflow: beyond max finite's rounding interval every value becomes ") +
              (vc == ValueClass::Infinite ? "infinity" : "NaN");
    if (x > 0) iv.lo = {edge.hi.value, !edge.hi.closed, false}, iv.hi = unbounded(true, true);
    else iv.lo = unbounded(false, true), iv.hi = {edge.lo.value, !edge.lo.closed, false};
    n.interval = iv;
  }

  // The number line: finite codes around the centre.
  if (n.centre) {
    std::vector<uint64_t> down;
    std::optional<uint64_t> c = n.centre;
    for (int i = 0; i < radius && (c = next_down(f, *c)) && classify(f, *c) != ValueClass::Infinite; ++i)
      down.push_back(*c);
    n.line.assign(down.rbegin(), down.rend());
    n.line.push_back(*n.centre);
    c = n.centre;
    for (int i = 0; i < radius && (c = next_up(f, *c)) && classify(f, *c) != ValueClass::Infinite; ++i)
      n.line.push_back(*c);
  }
  return n;
}

std::string endpoint_exact(long double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // A long double's expansion is finite: as many decimal places as it has fraction bits
  // (digits - exponent), which glibc prints exactly.
  int exponent = 0;
  std::frexp(v, &exponent);
  const int places = std::clamp(std::numeric_limits<long double>::digits - exponent, 0, 16500);
  std::vector<char> buf(places + 5000);
  std::snprintf(buf.data(), buf.size(), "%.*Lf", places, v);
  std::string s = buf.data();
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0" && !std::signbit(v)) s = "0";
  return s;
}

std::string no_interval_text(const FloatFormat& f, const Neighbourhood& n) {
  if (n.interval) return "";
  std::string text = shortest_double(n.x);  // (appended: GCC 12's false -Wrestrict, bug 105329)
  if (!std::isfinite(n.x)) return text.append(" is not a finite number");
  return text.append(" rounds to ").append(shortest_double(decode(f, n.rounded.code)));
}

// Appended: GCC 12 warns, falsely, of an overlap in the chain of + (bug 105329).
std::string interval_text(const RoundingInterval& r, int significant_digits, std::optional<double> value) {
  // A shortened end is rounded toward the inside (the lower up, the upper down), so that every x
  // the text encloses rounds to the value: to nearest, float32's 1e-40 interval, whose upper end
  // is 1.0000016166...e-40, read 1.00000162e-40 at 9 digits, which rounds to the next value. It
  // takes more digits where that many leave it an eighth of the width or more from the true end:
  // float32's 0.1 has its upper end at 0.1000000052..., whose 8 digits, 0.1, fall below the value
  // itself. An end that is the value (a directed rounding's closed end) is written as the value
  // is, by its own leading digits and "...": rounded inward, the bracket beside it would close
  // on a number that is not the value.
  const long double width = r.hi.value - r.lo.value;
  auto end_text = [&](const Endpoint& e, bool upper) -> std::string {
    if (e.unbounded || std::isinf(e.value)) return e.value > 0 ? "+inf" : "-inf";
    const std::string exact = endpoint_exact(e.value);
    if (significant_digits <= 0) return exact;
    if (value && e.value == static_cast<long double>(*value)) {
      // (at least its whole part's digits, as the other end takes them where it must:
      // "[1234567.8..., 1234568)", not "[1.23...e+06, 1234568)")
      const std::string own = exact_decimal(*value);
      const size_t sign = own[0] == '-', whole = std::min(own.find_first_of(".e"), own.size()) - sign;
      return exact_digits_text(*value, own, std::max(significant_digits, static_cast<int>(whole)));
    }
    return inward_end_text(exact, e.value, upper, significant_digits, width);
  };
  std::string s(r.lo.closed ? "[" : "(");
  s.append(end_text(r.lo, false)).append(", ").append(end_text(r.hi, true));
  return s.append(r.hi.closed ? "]" : ")");
}

nlohmann::json to_json(const FloatFormat& f, const std::string& format_name, const Neighbourhood& n) {
  auto value = [&](std::optional<uint64_t> code) -> nlohmann::json {
    if (!code) return nullptr;
    const CodeReport r = describe_code(f, *code);
    return {{"bits", r.bits_hex}, {"value", json_number(r.value)}, {"text", display_value(r)}};
  };
  auto end = [](const Endpoint& e) -> nlohmann::json {
    return {{"value", e.unbounded ? (e.value > 0 ? "+inf" : "-inf") : endpoint_exact(e.value)},
            {"closed", e.closed},
            {"unbounded", e.unbounded}};
  };
  nlohmann::json j{{"format", format_name},
                   {"x", json_number(n.x)},
                   {"result", value(n.rounded.code)},
                   {"inexact", n.rounded.flags.inexact},
                   {"overflow", n.rounded.flags.overflow},
                   {"below", value(n.below)},
                   {"above", value(n.above)},
                   {"gap_below", json_number(n.gap_below)},
                   {"gap_above", json_number(n.gap_above)},
                   {"ulp", json_number(n.ulp)},
                   {"interval", nullptr}};
  if (n.interval)
    j["interval"] = {{"lo", end(n.interval->lo)},
                     {"hi", end(n.interval->hi)},
                     {"text", interval_text(*n.interval)},
                     {"rule", n.interval->rule}};
  j["line"] = nlohmann::json::array();
  for (uint64_t c : n.line) j["line"].push_back(value(c));
  return j;
}

nlohmann::json explore_record(const std::string& x, Rounding rounding, Overflow overflow, nlohmann::json formats) {
  return {{"x", x}, {"rounding", rounding_name(rounding)}, {"overflow", overflow_name(overflow)},
          {"formats", std::move(formats)}};
}

}  // namespace pl
