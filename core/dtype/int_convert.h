// Conversions into integer dtypes, as the frameworks do them.
//
// What the frameworks do (x86-64; C++ leaves out-of-range float-to-int undefined):
//  - PyTorch 2.x CPU and NumPy 2.x: float -> int truncates toward zero through a C cast.
//    In range the result is exact. gcc/clang emit a 32-bit cvttsd2si for int8/16/32 and
//    uint8/16, a 64-bit one for int64/uint32, and for uint64 a 64-bit one of x or of x - 2^63;
//    out of that range or NaN it returns the "integer indefinite" INT32_MIN / INT64_MIN, which
//    a narrower target then wraps:
//    300.0 -> int8 gives 44, NaN -> int8 gives 0, NaN -> int32 gives -2147483648.
//    ARM saturates instead. We reproduce the x86-64 route as IntOverflow::Wrap; it is NumPy's
//    astype everywhere and PyTorch 2.15's .to() except for uint32 out of range in arrays of four
//    or more (its vectorised loop) and uint8 from values past int32's range with a nonzero low
//    byte (tests/data/casts/int_casts.json records both, in one array of every value).
//  - JAX/XLA: float -> int saturates and NaN becomes 0 (XLA's convert semantics since 2023).
//  - TensorFlow: tf.cast is a C cast (as PyTorch); tf.saturate_cast clamps.
//  - int -> narrower int: two's complement wrap in all four (200 as int8 is -56).
//  - anything -> bool: nonzero (and NaN) is true.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl {

enum class IntOverflow : uint8_t {
  Wrap,      // two's complement modulo 2^bits; float -> int as an x86-64 C cast
  Saturate,  // clamp to [min, max]; NaN -> 0
};
inline constexpr std::array<std::string_view, 2> kIntOverflowNames = {"wrap", "saturate"};
std::optional<IntOverflow> parse_int_overflow(std::string_view name);
std::string int_overflow_names(std::string_view separator = ", ");

struct IntResult {
  uint64_t bits;      // the value's two's complement pattern in the target width
  bool out_of_range;  // the exact (truncated) value did not fit the target
  bool nan_input;
  bool inexact;  // a fractional part was discarded
};

// Whether a conversion into `to` means anything. A wrapping C cast exists for the C integer
// types only: int4 and uint4 have none (ml_dtypes sends some out-of-range values to 0, PyTorch
// has no conversion into them at all), so only the saturating cast, a definition, is given.
Status check_int_cast(DType to, IntOverflow mode);
inline bool has_c_cast(DType to) { return !is_packed_int(to); }

// `to` must be an integer or bool dtype.
IntResult float_to_int(DType to, double x, IntOverflow mode);
IntResult int_to_int(DType to, bool negative, uint64_t magnitude, IntOverflow mode);

// The bits read back as a signed or unsigned decimal according to the dtype.
std::string int_bits_to_string(DType t, uint64_t bits);

}  // namespace pl
