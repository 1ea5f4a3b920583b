#include "core/accumulate/multiterm.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/dtype/codec.h"
#include "core/dtype/round_nearest.h"  // pow2_bits

namespace pl::experiment {

Status check_multiterm(const Accumulation& a) {
  if (a.block < 1 || a.block > kMultitermMaxBlock)
    return Error{"a multi-term block takes 1 to " + std::to_string(kMultitermMaxBlock) + " products"};
  if (a.extra_bits < 0 || a.extra_bits > kMultitermMaxExtraBits)
    return Error{"a multi-term adder keeps 0 to " + std::to_string(kMultitermMaxExtraBits) + " extra bits"};
  // The aligned terms are integers below 2^(p + extra) units; block + 1 of them carry
  // bit_width(block) more bits. Their sum must be exact in float64.
  const int bits = info(a.format).format.precision() + a.extra_bits + std::bit_width(unsigned(a.block)) + 1;
  if (bits > 53)
    return Error{"a multi-term sum in " + std::string(name(a.format)) + " with " + std::to_string(a.extra_bits) +
                 " extra bits needs " + std::to_string(bits) + " bits, more than float64's 53"};
  return {};
}

double multiterm_round(const FloatFormat& format, bool float32, double x, const CastOptions& o, uint64_t index) {
  if (float32 && o.rounding == Rounding::TowardZero) {
    const double m = std::fabs(x);
    if (m >= 0x1p-126 && m < 0x1p128)
      return std::bit_cast<double>(std::bit_cast<uint64_t>(x) & ~((uint64_t{1} << 29) - 1));
  }
  return round_to(format, x, o, index);
}

double multiterm_dot(std::span<const double> a, std::span<const double> b, const Accumulation& acc,
                     uint64_t stream_offset) {
  const FloatFormat& format = info(acc.format).format;
  CastOptions options;
  options.rounding = acc.rounding;
  const size_t n = std::min(a.size(), b.size()), block = static_cast<size_t>(acc.block);
  const int below = format.precision() - 1 + acc.extra_bits;  // the window's bits below its top
  const bool float32 = acc.format == DType::float32;
  using multiterm_detail::exponent_field;
  double c = 0.0;
  uint64_t step = stream_offset;
  for (size_t k0 = 0; k0 < n; k0 += block) {
    const size_t k1 = std::min(n, k0 + block);
    // The largest exponent among the running sum and the block's products, as integers (a loop
    // the compiler vectorises): 0x7FF is an Inf or NaN, 0 a zero or a subnormal.
    uint64_t top = exponent_field(c);
    for (size_t k = k0; k < k1; ++k) top = std::max(top, exponent_field(a[k] * b[k]));
    if (top == 0x7FF) {  // Inf and NaN as float64 arithmetic has them, then the format's rounding
      double s = c;
      for (size_t k = k0; k < k1; ++k) s += a[k] * b[k];
      c = round_to(format, s, options, step++);
      continue;
    }
    // Each term in units of the window's last place, truncated toward zero (a conversion to an
    // integer does exactly that); the integers' sum is exact (check_multiterm). Scaling by a
    // power of two is exact: a term that would fall below float64's normal range is below one
    // unit and truncates to 0 either way.
    if (int last = 0; multiterm_detail::window(top, below, &last)) {
      const double down = pow2_bits(-last), up = pow2_bits(last);
      int64_t units = static_cast<int64_t>(c * down);
      for (size_t k = k0; k < k1; ++k) units += static_cast<int64_t>(a[k] * b[k] * down);
      c = multiterm_round(format, float32, static_cast<double>(units) * up, options, step++);
      continue;
    }
    // Zeros and subnormals only, or a window past float64's normal range: the same sum by ldexp.
    double largest = std::fabs(c);
    for (size_t k = k0; k < k1; ++k) largest = std::max(largest, std::fabs(a[k] * b[k]));
    if (largest == 0.0) {  // every term zero: the fixed-point sum is +0
      c = round_to(format, 0.0, options, step++);
      continue;
    }
    const int at = std::ilogb(largest) - below;
    double units = std::trunc(std::ldexp(c, -at));
    for (size_t k = k0; k < k1; ++k) units += std::trunc(std::ldexp(a[k] * b[k], -at));
    c = round_to(format, std::ldexp(units, at), options, step++);
  }
  return c;
}

}  // namespace pl::experiment
