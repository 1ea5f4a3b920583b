#include "core/experiment/multiterm.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>

#include "core/dtype/codec.h"

namespace pl::experiment {

std::string check_multiterm(const Accumulation& a) {
  if (a.block < 1 || a.block > kMultitermMaxBlock)
    return "a multi-term block takes 1 to " + std::to_string(kMultitermMaxBlock) + " products";
  if (a.extra_bits < 0 || a.extra_bits > kMultitermMaxExtraBits)
    return "a multi-term adder keeps 0 to " + std::to_string(kMultitermMaxExtraBits) + " extra bits";
  // The aligned terms are integers below 2^(p + extra) units; block + 1 of them carry
  // bit_width(block) more bits. Their sum must be exact in float64.
  const int bits = info(a.format).format.precision() + a.extra_bits + std::bit_width(unsigned(a.block)) + 1;
  if (bits > 53)
    return "a multi-term sum in " + std::string(name(a.format)) + " with " + std::to_string(a.extra_bits) +
           " extra bits needs " + std::to_string(bits) + " bits, more than float64's 53";
  return "";
}

double multiterm_dot(std::span<const double> a, std::span<const double> b, const Accumulation& acc,
                     uint64_t stream_offset) {
  const FloatFormat& format = info(acc.format).format;
  CastOptions options;
  options.rounding = acc.rounding;
  const size_t n = std::min(a.size(), b.size()), block = static_cast<size_t>(acc.block);
  const int below = format.precision() - 1 + acc.extra_bits;  // the window's bits below its top
  double c = 0.0;
  uint64_t step = stream_offset;
  for (size_t k0 = 0; k0 < n; k0 += block) {
    const size_t k1 = std::min(n, k0 + block);
    // The largest magnitude among the running sum and the block's products: its exponent is the
    // block's (NaN fails the comparison, and the block takes the float64 route below).
    double largest = std::fabs(c);
    bool finite = largest <= DBL_MAX;
    for (size_t k = k0; k < k1; ++k) {
      const double p = std::fabs(a[k] * b[k]);
      finite &= p <= DBL_MAX;
      largest = std::max(largest, p);
    }
    if (!finite) {  // Inf and NaN as float64 arithmetic has them, then the format's rounding
      double s = c;
      for (size_t k = k0; k < k1; ++k) s += a[k] * b[k];
      c = round_to(format, s, options, step++);
      continue;
    }
    if (largest == 0.0) {  // every term zero: the fixed-point sum is +0
      c = round_to(format, 0.0, options, step++);
      continue;
    }
    // Each term in units of the window's last place, truncated toward zero; the sum of the
    // integers is exact (check_multiterm). Scaling by a power of two is exact (a term that
    // would fall below float64's normal range is below one unit, and truncates to 0 either way);
    // past its range, ldexp does it.
    const int last = std::ilogb(largest) - below;
    double units = 0.0;
    if (last > -1000 && last < 1000) {
      const double down = std::ldexp(1.0, -last), up = std::ldexp(1.0, last);
      units = std::trunc(c * down);
      for (size_t k = k0; k < k1; ++k) units += std::trunc(a[k] * b[k] * down);
      c = round_to(format, units * up, options, step++);
    } else {
      units = std::trunc(std::ldexp(c, -last));
      for (size_t k = k0; k < k1; ++k) units += std::trunc(std::ldexp(a[k] * b[k], -last));
      c = round_to(format, std::ldexp(units, last), options, step++);
    }
  }
  return c;
}

}  // namespace pl::experiment
