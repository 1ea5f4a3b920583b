#include "core/dtype/shortest_decimal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/dtype/codec.h"
#include "core/util/number_text.h"

namespace pl {

std::string shortest_decimal(const FloatFormat& f, double v) {
  if (!std::isfinite(v) || v == 0.0) return shortest_double(v);
  if (f.exponent_bits == 11 && f.mantissa_bits == 52) return shortest_double(v);
  CastOptions rne;
  const uint64_t want = encode(f, v, rne).code;
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    const double back = std::strtod(buf, nullptr);
    if (encode(f, back, rne).code != want) continue;
    // %g writes two digits of 448 as 4.5e+02; between 1e-5 and 1e16 the same digits read better
    // as plain decimals (450), as Python writes floats.
    const double magnitude = std::fabs(back);
    if (std::strchr(buf, 'e') && magnitude >= 1e-5 && magnitude < 1e16) {
      const int exp10 = static_cast<int>(std::floor(std::log10(magnitude)));
      std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - 1 - exp10), back);
    }
    return buf;
  }
  return shortest_double(v);
}

}  // namespace pl
