// Where one value sits among a format's representable numbers: the value it rounds to, that
// value's neighbours and the gaps to them, and the rounding interval -- every real number
// that rounds to the same code under the chosen rounding and overflow policy. The float
// explorer (Explorer panel, `precision-lab explore`) and its number-line figure read this.
//
// The interval is derived here from the rounding rules (IEEE 754-2019 section 4.3 and 7.4,
// the OCP FP8/MX specs for formats without Inf), not by asking the codec; the tests check the
// two against each other on both sides of every endpoint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dtype/codec.h"
#include "core/dtype/device/cast_policy.h"
#include "core/dtype/device/float_format.h"

namespace pl {

// The next representable value above (below) `code`'s, as a code; empty at the top (bottom)
// of the format or for NaN. -0 and +0 are one value here: next_up(-0) is the smallest
// subnormal, as IEEE nextUp. Inf is the value above max finite where the format has one.
std::optional<uint64_t> next_up(const FloatFormat& f, uint64_t code);
std::optional<uint64_t> next_down(const FloatFormat& f, uint64_t code);

// `code` with bit `bit` (0 = least significant) flipped; bits at or above total_bits() are
// ignored (the code comes back unchanged).
uint64_t toggle_bit(const FloatFormat& f, uint64_t code, int bit);

// One end of a rounding interval. A midpoint between two float64 values needs 54 significand
// bits, so the value is a long double (64 bits on x86-64, 113 on aarch64: exact either way).
struct Endpoint {
  long double value = 0;
  bool closed = false;     // the endpoint itself rounds into the interval
  bool unbounded = false;  // no end on this side (value is +-inf): saturation, or toward zero
};

struct RoundingInterval {
  Endpoint lo, hi;
  std::string rule;  // why the ends are where they are, in one sentence
};

struct Neighbourhood {
  double x = 0;                          // the value explored
  Encoded rounded;                       // what x becomes (code and flags)
  double value = 0;                      // decode(rounded.code)
  std::optional<uint64_t> below, above;  // neighbours of the rounded value (codes); none for a NaN x
  double gap_below = 0, gap_above = 0;   // value - below, above - value (NaN without one)
  double ulp = 0;                        // ulp_at(f, value): the spacing of value's binade; NaN for a NaN x
  // Every real x that rounds to rounded.code; empty when x is NaN or +-inf, or the result
  // is NaN for another reason than overflow.
  std::optional<RoundingInterval> interval;
  // The finite code the number line is drawn around: the result (for a NaN x into a format
  // without NaN, the zero it becomes), or max finite of x's sign after an overflow; empty when the
  // result is NaN (or E8M0 has no answer).
  std::optional<uint64_t> centre;
  std::vector<uint64_t> line;  // up to `radius` finite codes each side of centre, ascending
};

// Rounds x with `rounding` and `overflow` (direct path, no DAZ/FTZ) and describes the
// neighbourhood. radius: how many representable values each side go into `line` (0..64).
Neighbourhood neighbourhood(const FloatFormat& f, double x, Rounding rounding, Overflow overflow, int radius = 8);

// Why n has no interval: "inf is not a finite number", or "0 rounds to nan" (a finite x whose
// result is NaN: 0 in a format without a zero). Empty when it has one.
std::string no_interval_text(const FloatFormat& f, const Neighbourhood& n);

// "[0.0999755859375, 0.100006103515625)" with every digit; "-inf" / "+inf" on unbounded ends.
// With significant_digits > 0 (labels), each end to that many digits, rounded toward the inside
// (every x the text encloses rounds to the value), or to more where that many would put it a
// noticeable part of the way to the value; an end equal to `value` (a directed rounding's
// closed end), as the value is written, by its own digits and "...".
std::string interval_text(const RoundingInterval& r, int significant_digits = 0,
                          std::optional<double> value = std::nullopt);
// The digits the Explorer's table and its number line give an interval's ends: one interval,
// one text on one screen (two digit counts read as two intervals).
constexpr int kIntervalLabelDigits = 9;
std::string endpoint_exact(long double v);  // every digit of a finite long double

// `precision-lab explore --json`: codes as hex bits, values as json_number, ends as exact text.
nlohmann::json to_json(const FloatFormat& f, const std::string& format_name, const Neighbourhood& n);
// `explore.json`, as the window's export and `explore --out` write it: x as typed, the rounding,
// the overflow and `formats`, one to_json object each.
nlohmann::json explore_record(const std::string& x, Rounding rounding, Overflow overflow, nlohmann::json formats);

}  // namespace pl
