// Which route each framework's float64 -> narrow-float cast takes, per target dtype and release:
// one rounding, or two through float32 (CastPath), and what it gives past the largest finite
// value, which the formats leave to the framework (PyTorch's float8_e4m3fn saturates where
// ml_dtypes' gives NaN), and what a NaN becomes where the format has none. Recorded from the
// libraries themselves by tests/data/casts/gen_cast_paths.py (cast_paths.json); the test
// FrameworkCastPaths compares this table with that recording row by row.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/dtype.h"

namespace pl {

struct CastReport;

// What a cast gives for a value past the halfway point above the largest finite one.
enum class PastLargest : uint8_t { Inf, NaN, Largest };
const char* past_largest_name(PastLargest p);  // "inf", "nan", "largest" (cast_paths.json's words)

// What a cast makes of a NaN: a format without one (float6, float4) leaves it to the framework.
enum class NaNBecomes : uint8_t { NaN, Zero, ZeroOtherSign };  // Zero: of the NaN's sign
const char* nan_becomes_name(NaNBecomes n);  // "nan", "zero", "zero-other-sign" (cast_paths.json's words)

struct FrameworkCastPath {
  std::string_view framework;  // "PyTorch", "NumPy", "ml_dtypes"
  std::string_view release;    // "2.15", "1.13", "0.6.0"
  DType to;
  CastPath path;
  PastLargest past_largest;  // a finite value past the largest's halfway point
  PastLargest inf;           // +inf
  NaNBecomes nan = NaNBecomes::NaN;
};

std::span<const FrameworkCastPath> framework_cast_paths();

// Who rounds float64 -> `to` which way, for a note beside a cast: "PyTorch 2.15 and 1.13 round
// twice, through float32; NumPy 2.4 and 1.24 round once". Empty when no recorded framework
// has the dtype.
std::string cast_path_attribution(DType to);

// What each recorded framework's cast gives past the largest finite value, for a note beside an
// overflow: "PyTorch 2.15 saturates to the largest finite, inf too; ml_dtypes 0.6.0 gives nan".
// Empty when no recorded framework has the dtype. `separator` goes between frameworks.
std::string overflow_attribution(DType to, const char* separator = "; ");

// overflow_attribution(to) beside a cast whose value lay past the largest finite (where rounding
// to nearest even overflows, whatever rounding the cast used) or was inf: the formats leave that
// to the framework. Empty otherwise, and for a custom format (no dtype).
std::string past_largest_note(std::optional<DType> to, const CastReport& r, const char* separator = "; ");

// Beside a cast of a NaN into a format without one, where a recorded framework's zero differs
// from the codec's (a zero of the NaN's sign, codec.h): "ml_dtypes 0.6.0 and 0.7.0 give the zero
// of the other sign (+nan becomes -0, -nan +0)". Empty otherwise.
std::string nan_note(std::optional<DType> to, const CastReport& r, const char* separator = "; ");

}  // namespace pl
