#include "core/dtype/int_convert.h"

#include <cmath>
#include <limits>

#include "core/util/names.h"

namespace pl {
namespace {

uint64_t width_mask(DType t) {
  const int bits = value_bits(t);
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

uint64_t as_bits(DType t, bool negative, uint64_t magnitude) {
  uint64_t twos = negative ? ~magnitude + 1 : magnitude;
  return twos & width_mask(t);
}

}  // namespace

Status check_int_cast(DType to, IntOverflow mode) {
  if (mode == IntOverflow::Wrap && !has_c_cast(to))
    return Error{std::string(name(to)) +
                 " has no wrapping C cast (ml_dtypes converts into it its own way, which is not modelled, and "
                 "PyTorch 2.15 has no conversion into it): use the saturating cast"};
  return {};
}

IntResult int_to_int(DType to, bool negative, uint64_t magnitude, IntOverflow mode) {
  IntResult r{0, false, false, false};
  if (info(to).kind == DTypeKind::Bool) {
    r.bits = magnitude != 0;
    return r;
  }
  const bool is_signed = info(to).kind == DTypeKind::SignedInt;
  const uint64_t max_pos = int_max(to);
  const uint64_t max_neg = is_signed ? uint64_t(0) - uint64_t(int_min(to)) : 0;  // |min|
  r.out_of_range = negative ? magnitude > max_neg : magnitude > max_pos;
  if (r.out_of_range && mode == IntOverflow::Saturate) {
    r.bits = negative ? as_bits(to, true, max_neg) : as_bits(to, false, max_pos);
    return r;
  }
  r.bits = as_bits(to, negative, magnitude);
  return r;
}

// Width of the x86-64 cvtt* instruction gcc and clang emit for a C cast to `to`:
// 32-bit for int8/16/32 and uint8/16, 64-bit for int64 and uint32.
int x86_cast_width(DType to) {
  switch (to) {
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::uint8:
    case DType::uint16: return 32;
    default: return 64;
  }
}

IntResult float_to_int(DType to, double x, IntOverflow mode) {
  IntResult r{0, false, std::isnan(x), false};
  if (info(to).kind == DTypeKind::Bool) {
    r.bits = x != 0.0;  // NaN != 0 is true
    return r;
  }
  const double t = std::trunc(x);
  r.inexact = !r.nan_input && t != x;
  const bool negative = t < 0;
  const double mag = std::fabs(t);
  const bool beyond_u64 = r.nan_input || mag >= 18446744073709551616.0;  // 2^64
  if (mode == IntOverflow::Saturate) {
    if (r.nan_input) {
      r.out_of_range = true;  // XLA's convert: NaN -> 0
      return r;
    }
    IntResult s = int_to_int(to, negative, beyond_u64 ? ~uint64_t{0} : uint64_t(mag), mode);
    s.out_of_range = s.out_of_range || beyond_u64;
    s.inexact = r.inexact;
    return s;
  }
  // Wrap: the C cast as x86-64 executes it. Into uint64, gcc's sequence: a signed 64-bit
  // conversion below 2^63 (NaN too), and from 2^63 one of x - 2^63 with the top bit flipped back;
  // each gives INT64_MIN's bits where its operand does not fit (2e19 and inf become 0, -1e19 and
  // NaN 2^63, as NumPy and PyTorch print them).
  if (to == DType::uint64) {
    constexpr double k63 = 9223372036854775808.0;  // 2^63
    constexpr uint64_t kTop = uint64_t{1} << 63;
    const auto cvttsd2si = [](double v) { return v >= -k63 && v < k63 ? uint64_t(int64_t(v)) : kTop; };
    r.bits = x >= k63 ? cvttsd2si(x - k63) ^ kTop : cvttsd2si(x);
    r.out_of_range = r.nan_input || negative || beyond_u64;
    return r;
  }
  const int w = x86_cast_width(to);
  const double limit = w == 32 ? 2147483648.0 : 9223372036854775808.0;  // 2^31, 2^63
  const bool fits = !r.nan_input && (negative ? mag <= limit : mag < limit);
  // Out of the instruction's range: the "integer indefinite" value, INT32_MIN or INT64_MIN.
  uint64_t m = fits ? uint64_t(mag) : uint64_t{1} << (w - 1);
  IntResult s = int_to_int(to, fits ? negative : true, m, mode);
  s.out_of_range = s.out_of_range || !fits;
  s.nan_input = r.nan_input;
  s.inexact = r.inexact;
  return s;
}

std::string int_bits_to_string(DType t, uint64_t bits) {
  const int width = value_bits(t);
  if (info(t).kind != DTypeKind::SignedInt) return std::to_string(bits);
  if (width < 64 && (bits >> (width - 1)) & 1) bits |= ~width_mask(t);  // sign-extend
  return std::to_string(static_cast<int64_t>(bits));
}

std::optional<IntOverflow> parse_int_overflow(std::string_view name) {
  return find_named<IntOverflow>(kIntOverflowNames, name);
}

std::string int_overflow_names(std::string_view separator) { return join_names(kIntOverflowNames, separator); }

}  // namespace pl
