// The explicit knobs of every conversion: rounding, overflow, subnormals and
// the path a framework's cast takes. Nothing here is global state: no
// fesetround, no FTZ/DAZ bits; each call says what it wants.
#pragma once

#include <cstdint>
#include <string>

#include "core/util/host_device.h"

namespace pl {

enum class Rounding : uint8_t {
  NearestEven,  // rne: IEEE roundTiesToEven (the default everywhere)
  NearestAway,  // rna: IEEE roundTiesToAway
  TowardZero,   // rtz: truncation
  Up,           // toward +Inf
  Down,         // toward -Inf
  Stochastic,   // round up with probability (x - lower) / (upper - lower); see stochastic.h
};
inline constexpr int kRoundingCount = 6;
// Off by at most half an ulp (rne, rna); the directed and stochastic roundings by up to a whole one.
PL_HD constexpr bool to_nearest(Rounding r) { return r == Rounding::NearestEven || r == Rounding::NearestAway; }

enum class Overflow : uint8_t {
  FormatDefault,  // what the format does: IEEE -> Inf, fn/fnuz/e8m0 -> NaN, fp6/fp4 -> saturate
  Saturate,       // clamp to +-max finite; +-Inf inputs too (CUDA's __NV_SATFINITE); NaN stays NaN
  NonSaturating,  // Inf where the format has one, else NaN, else (no specials at all) max finite
};
inline constexpr int kOverflowCount = 3;

// The route a framework's cast from float64 takes. Both are offered because they differ:
// 1 + 2^-4 + 2^-40 becomes 1.125 in float8_e4m3fn when rounded once, but 1.0 through float32.
inline constexpr int kCastPathCount = 2;
enum class CastPath : uint8_t {
  Direct,      // one correct rounding from the float64 value
  ViaFloat32,  // round to float32 first (RNE), then to the target: who does which, per dtype and
               // release, is recorded in framework_cast_paths.h
};

struct CastOptions {
  Rounding rounding = Rounding::NearestEven;
  Overflow overflow = Overflow::FormatDefault;
  bool flush_input_subnormals = false;   // DAZ: a subnormal source value reads as signed zero
  bool flush_output_subnormals = false;  // FTZ: a subnormal result becomes signed zero
  CastPath path = CastPath::Direct;
  uint64_t seed = 0;  // stochastic rounding stream; element i draws stochastic_bits(seed, i)
};

const char* rounding_name(Rounding r);   // "rne", "rna", "rtz", "up", "down", "stochastic"
const char* rounding_label(Rounding r);  // "nearest, ties to even", ...
const char* overflow_name(Overflow o);   // "default", "saturate", "no-saturate"
const char* cast_path_name(CastPath p);  // "direct", "via-float32"
bool parse_rounding(const char* text, Rounding* out);
bool parse_overflow(const char* text, Overflow* out);   // the overflow_name() spellings
bool parse_cast_path(const char* text, CastPath* out);  // the cast_path_name() spellings
// Every spelling in the table's order, joined by `separator` ("rne, rna, rtz, up, down,
// stochastic"): for help texts and messages (host only).
std::string rounding_names(const char* separator = ", ");
std::string overflow_names(const char* separator = ", ");
std::string cast_path_names(const char* separator = ", ");

}  // namespace pl
