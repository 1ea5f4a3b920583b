#include "core/promote/int_to_float.h"

#include <cmath>

#include "core/dtype/device/float_format.h"
#include "core/promote/py_value.h"
#include "core/util/number_text.h"

namespace pl::promote {

namespace {

bool takes(DType from, DType to) { return is_float(to) && !is_float(from) && info(from).kind != DTypeKind::Complex; }

// What the conversion loses: values rounded (past 2^p, the first integer it does not hold being
// 2^p + 1, which nearest-even takes down to 2^p), values past the largest finite.
struct Losses {
  bool rounds = false, overflows = false;
  __int128 exact = 0;  // 2^p
};

Losses losses(DType from, DType to) {
  const FloatFormat& f = info(to).format;
  const bool is_bool = info(from).kind == DTypeKind::Bool;
  const __int128 lo = is_bool ? 0 : int_lo(from), hi = is_bool ? 1 : int_hi(from);
  const double top = max_finite(f);
  const int p = f.precision();
  Losses l;
  l.exact = p < 120 ? static_cast<__int128>(1) << p : 0;
  l.rounds = l.exact != 0 && static_cast<double>(l.exact) < top && hi > l.exact;
  l.overflows = static_cast<double>(hi) > top || static_cast<double>(-lo) > top;
  return l;
}

}  // namespace

bool int_to_float_exact(DType from, DType to) {
  if (!takes(from, to)) return false;
  const Losses l = losses(from, to);
  return !l.rounds && !l.overflows;
}

std::string int_to_float_loss(DType from, DType to) {
  if (!takes(from, to)) return "";
  const FloatFormat& f = info(to).format;
  const std::string fn(name(from)), tn(name(to));
  const double top = max_finite(f);
  const int p = f.precision();
  const auto [rounds, overflows, exact] = losses(from, to);
  const bool has_negatives = info(from).kind != DTypeKind::Bool && int_lo(from) < 0;
  if (!rounds && !overflows) return "every " + fn + " value converts to " + tn + " exactly";
  std::string s;
  if (rounds)
    s = tn + " holds every integer only up to 2^" + std::to_string(p) + " = " + int128_to_string(exact) +
        ", so larger " + fn + " values can be rounded (" + int128_to_string(exact + 1) + " becomes " +
        int128_to_string(exact) + ")";
  if (overflows) {
    s += rounds ? ", and " : "";
    if (f.has_inf()) {
      // Nearest-even sends everything from the top value plus half its spacing to inf (the
      // top value's last bit is odd, so the tie goes up).
      const auto from_here = static_cast<__int128>(std::ceil(top + std::ldexp(1.0, f.emax() - f.mantissa_bits - 1)));
      const std::string o = int128_to_string(from_here);
      s += has_negatives ? fn + " values of magnitude " + o + " or more become inf or -inf"
                         : fn + " values from " + o + " up become inf";
    } else {
      s += fn + " values past " + tn + "'s largest finite value, " + shortest_double(top) + ", do not fit";
    }
  }
  return s;
}

}  // namespace pl::promote
