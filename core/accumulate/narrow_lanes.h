// The GEMM's kernels for narrow accumulators (float16, bfloat16, the float8 family ...) on
// float32 lanes. Three kinds of addition, each giving round_sum()'s value (the exact sum rounded
// once to the format):
//
// - A value of the format and a product that is an exact float32 number (gemm.cpp checks it on
//   the data): the sum computed in float32 (TwoSum: its exact error too), rounded to odd at
//   float32's 24 bits, then to nearest even in the format -- rounding to odd with at least two
//   bits beyond the target's precision makes the second rounding correct (Boldo and Melquiond,
//   2008), and 24 >= p + 2 for every format this takes (p <= 22). narrow_sum.
// - Two values of the format (Kahan's additions, formats of p <= 11 bits): the float32 sum
//   rounded once more -- double rounding is innocuous for such sums (Figueroa, 1995: 24 >=
//   2p + 1) -- by Veltkamp's split, exact for such sums at every magnitude. narrow_sum_of_values,
//   RoundSplit.
// - A value of the format and a product that is not a float32 number (float32 or float64
//   operands): the sum rounded to float32 -- once, by a fused multiply-add of float32 operands;
//   from the float64 product and sum for float64 ones -- then to the format. Rounding through the
//   finer grids is wrong only when the float32 value lands exactly on a midpoint of the format:
//   the format's midpoints are float32 and float64 numbers (p + 1 <= 24 bits, half its smallest
//   quantum >= 2^-149), and rounding to nearest is monotonic, so a finer rounding can carry a sum
//   onto a midpoint but never across one. Each policy marks the lanes whose float32 value is a
//   midpoint (tie_watched), and a step with one is redone exactly (narrow_sum_wide: TwoSum in
//   float64, rounding to odd) -- rare, as such products have more bits than float32 holds.
//   float32_step, and rounded_products for Kahan's products. (The same watch in place of
//   narrow_sum would be slower: sums with exact float32 products land on midpoints exactly --
//   no double rounding, but the watch cannot tell -- in 2.7% of additions of bfloat16 products
//   into float16.)
//
// Three ways to the accumulator's format, one policy each: formats whose smallest exponent is
// float32's (bfloat16) round the float32 bit pattern, subnormals included (RoundOnBits);
// float16 uses the CPU's float16 conversion where it has one (F16C; gemm_f16c.cpp, a file
// built for it); the others scale to the quantum and round with 1.5 * 2^23 (RoundScaled).
//
// Included by gemm.cpp and gemm_f16c.cpp only, which are built with different instruction
// sets: everything with code is in an anonymous namespace, so neither file can end up calling
// the other's copy; NarrowFormat is plain data.
//
// In this file, in order:
//   the format and the products   NarrowFormat, Products, OperandOf
//   the three roundings           RoundOnBits (bfloat16), RoundScaled, RoundSplit (Kahan's values)
//   one addition                  watch, narrow_sum_of_values, narrow_sum, narrow_sum_wide
//   products and their steps      rounded_products, flag_lanes, float32_step, narrow_steps
//   Kahan's steps                 narrow_kahan_steps (KahanWatch: what it must watch)
//   a pairwise sum's halves       narrow_add
//   the kernel                    narrow_kernel: a model's steps for R rows of a panel
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype/device/float_format.h"
#include "core/dtype/device/round_to_odd.h"

namespace pl::experiment {

inline constexpr size_t kNarrowLanes = 8;  // gemm.cpp's kLanes

// One accumulator format's constants (narrow_format() in gemm.cpp fills it).
struct NarrowFormat {
  int32_t emin, mantissa_bits;
  float largest;
  bool on_bits;     // emin == -126: round the bit pattern
  bool is_float16;  // IEEE binary16: the F16C kernel may take it
  // What Kahan's steps must watch for overflow, from a bound on the products (kahan_watch() in
  // gemm.cpp; narrow_kahan_steps says why).
  enum class KahanWatch : uint8_t { kYAndT, kT, kNothing } kahan_watch = KahanWatch::kYAndT;
};
using KahanWatch = NarrowFormat::KahanWatch;

// A format's NarrowFormat (gemm.cpp; Kahan's watch is gemm()'s to choose, from the data).
NarrowFormat narrow_format(const FloatFormat& f);

// What the products a_ik * b_jk are, which decides how a step adds one (gemm.cpp checks it on
// the data): float32 numbers (exact in float32: narrow_sum); products of float32 operands that
// are not (exact in float64; one fused multiply-add, or multiply, of the float32 operands rounds
// them once to float32: float32_step); or products of float64 operands (dot()'s product, rounded
// to float64; computed so: float32_step too). Operands are floats but for the last.
enum class Products { kFloat32, kOfFloat32Operands, kOfFloat64Operands };
template <Products kP>
using OperandOf = std::conditional_t<kP == Products::kOfFloat64Operands, double, float>;

// gemm_f16c.cpp: narrow_kernel with F16C's conversion, for float16 (Kahan's steps when `kahan`),
// of products of float operands (float32 numbers or not: `products`) or of double ones; rows is
// 8 or 1.
void lanes_run_narrow_f16c(size_t rows, bool kahan, Products products, const float* const* a_rows, const float* panel,
                           size_t k0, size_t k1, NarrowFormat f, float (*s)[kNarrowLanes],
                           uint32_t (*bad)[kNarrowLanes]);
void lanes_run_narrow_f16c(size_t rows, bool kahan, const double* const* a_rows, const double* panel, size_t k0,
                           size_t k1, NarrowFormat f, float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]);

// The lambdas below must be inlined, as every function here: an outlined copy is built for the
// baseline instruction set, not for the calling clone's, and takes its vector arguments under
// another ABI (-Wno-psabi silences GCC's note about it) -- a crash, seen when a change made
// GCC outline one.
#define PL_INLINE_LAMBDA __attribute__((always_inline))

namespace {

// Eight float32 lanes as one GCC vector (no intrinsics: SSE2 runs it as two halves, AVX2 as one
// register). Written as vectors rather than as loops left to the auto-vectoriser: its cost
// model gives up on this kernel after small changes, which leaves it several times slower.
using LaneF = float __attribute__((vector_size(4 * kNarrowLanes)));
using LaneU = uint32_t __attribute__((vector_size(4 * kNarrowLanes)));
using LaneI = int32_t __attribute__((vector_size(4 * kNarrowLanes)));
using LaneD = double __attribute__((vector_size(8 * kNarrowLanes)));

[[gnu::always_inline]] inline LaneF load_lanes(const float* p) {
  LaneF v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void store_lanes(float* p, LaneF v) { std::memcpy(p, &v, sizeof v); }
[[gnu::always_inline]] inline LaneU umax(LaneU a, LaneU b) { return a > b ? a : b; }
constexpr uint32_t kMagnitude = 0x7fffffff, kSign = 0x80000000;

// round_to_odd_bits() (core/dtype/device/round_to_odd.h) on eight lanes (a vector comparison gives
// its mask already).
[[gnu::always_inline]] inline LaneU round_to_odd_lanes(LaneF hi, LaneF lo) {
  const LaneU bits = std::bit_cast<LaneU>(hi);
  const LaneU inexact = std::bit_cast<LaneU>(lo != 0);  // all ones, or none
  const LaneU opposite = (bits ^ std::bit_cast<LaneU>(lo)) >> 31;
  return (bits - (opposite & inexact)) | (inexact & 1);
}

// What a policy watches (see watch() below): kWatchSum, the value before rounding rather than
// the result. (RoundSplit, Kahan's, also says whether every overflow sticks: kOverflowSticks.)

// Round the pattern to nearest even at the format's precision. A NaN pattern can wrap to a
// number here, so the sum before rounding is what is watched.
struct RoundOnBits {
  static constexpr bool kWatchSum = true;
  uint32_t drop, half, keep;
  explicit RoundOnBits(const NarrowFormat& f)
      : drop(static_cast<uint32_t>(23 - f.mantissa_bits)),
        half((uint32_t{1} << (drop - 1)) - 1),
        keep(~((uint32_t{1} << drop) - 1)) {}
  [[gnu::always_inline]] LaneF operator()(LaneU odd) const {
    return std::bit_cast<LaneF>((odd + half + ((odd >> drop) & 1)) & keep);
  }
  // A midpoint: the dropped bits are exactly one half, at every magnitude (the format's grid
  // is float32's, subnormals included, with fewer bits).
  [[gnu::always_inline]] LaneF tie_watched(LaneU value, LaneU& ties) const {
    ties |= (value & ~keep) == half + 1;
    return (*this)(value);
  }
};

// Scale to the quantum (the format's ulp at the value, or at its smallest normal), round with
// 1.5 * 2^23 (ties to even in the default rounding mode), scale back; a zero keeps the sign
// of the sum it came from.
struct RoundScaled {
  static constexpr bool kWatchSum = false;  // past the largest it stays finite
  int32_t emin, mantissa_bits;
  explicit RoundScaled(const NarrowFormat& f) : emin(f.emin), mantissa_bits(f.mantissa_bits) {}
  // (The midpoint test is dead code here, and compiled away.)
  [[gnu::always_inline]] LaneF operator()(LaneU odd) const {
    LaneU unused{};
    return tie_watched(odd, unused);
  }
  // The rounding, marking in `ties` the lanes on a midpoint: half a quantum from the integer it
  // rounds to (the scaled value and that integer are below 2^23: their difference is exact).
  [[gnu::always_inline]] LaneF tie_watched(LaneU value, LaneU& ties) const {
    constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
    const LaneI e = std::bit_cast<LaneI>((value >> 23) & 0xff) - 127;
    const LaneI q = (e > emin ? e : LaneI{} + emin) - mantissa_bits;
    const LaneF to_unit = std::bit_cast<LaneF>(std::bit_cast<LaneU>(127 - q) << 23);
    const LaneF from_unit = std::bit_cast<LaneF>(std::bit_cast<LaneU>(127 + q) << 23);
    const LaneF scaled = std::bit_cast<LaneF>(value) * to_unit;
    const LaneF rounded = (scaled + kMagic) - kMagic;
    ties |= (std::bit_cast<LaneU>(scaled - rounded) & kMagnitude) == std::bit_cast<uint32_t>(0.5f);
    return std::bit_cast<LaneF>((std::bit_cast<LaneU>(rounded) & kMagnitude) | (value & kSign)) * from_unit;
  }
};

// Veltkamp's split: with C = 2^(24 - p) + 1 and sigma = C x, sigma - (sigma - x) is x rounded to
// p bits, to nearest even, for every normal float32 x below about 2^(120 - p); from there up
// sigma overflows and the result is NaN. (It holds on every normal float32 for p = 2..12,
// checked exhaustively; narrow_lanes_test's VeltkampSplitRoundsToNearestEven samples every binade.)
// Three floating-point operations in place of a pattern rounding's five integer ones or F16C's
// two conversions: Kahan's sums, four to a product, take it (with eight rows in flight and the
// reduced watch, float16 and bfloat16 Kahan run about 1.5x as fast as with either of those;
// docs/performance.md has their rates).
// It rounds relative to the value, so it is the format's rounding only where the format's grid
// is float32's with p bits: at or above the format's smallest normal, or for a value that is a
// multiple of the format's smallest quantum (2^(emin - mantissa_bits)) -- below the smallest
// normal such a value has fewer than p significant bits and is exact both ways. Every sum of
// two values of the format is such a multiple (narrow_sum_of_values' sums, in Kahan's steps),
// including those below 2^-126 (sigma then has at most 24 bits: exact). Past the format's
// largest value the split stays finite up to 2^(120 - p): kSticks only where the format's
// largest is beyond that (bfloat16, tf32), so that every overflow is a NaN that propagates;
// elsewhere its results are watched.
template <bool kSticks>
struct RoundSplit {
  static constexpr bool kWatchSum = false, kOverflowSticks = kSticks;
  float c;
  explicit RoundSplit(const NarrowFormat& f) : c(static_cast<float>((1u << (23 - f.mantissa_bits)) + 1)) {}
  [[gnu::always_inline]] LaneF operator()(LaneU bits) const {
    const LaneF x = std::bit_cast<LaneF>(bits);
    const LaneF sigma = x * c;
    return sigma - (sigma - x);  // no reassociation, no contraction: the build's flags
  }
};

// Whether a format's every overflow sticks under RoundSplit: its largest value is at least
// 2^(104 + p), a power of two at or above the split's first failure for each p of 2..12.
inline bool split_sums_stick(const NarrowFormat& f) { return f.largest >= std::ldexp(1.0f, 105 + f.mantissa_bits); }

// Keep in `worst` the magnitude Round watches (the value before rounding when kWatchSum, else
// the result), if larger: a lane is redone when its value was past the format's largest at any
// step, or not finite.
template <typename Round>
[[gnu::always_inline]] inline void watch(LaneU& worst, LaneF before, LaneF result) {
  worst = umax(worst, std::bit_cast<LaneU>(Round::kWatchSum ? before : result) & kMagnitude);
}

// round(x + y) to the format for two values x, y of a format of at most 11 bits of precision
// (float16, bfloat16, the float8 family...): the float32 sum rounded once more, by Veltkamp's
// split. Rounding twice is innocuous for a sum of two p-bit numbers when the first rounding keeps
// 2p + 1 bits or more (Figueroa, "When is double rounding innocuous?", 1995), and float32 keeps
// 24 >= 2 * 11 + 1; below the format's smallest normal such a sum is exact in float32, and a
// multiple of the format's smallest quantum (RoundSplit). (Kahan's additions are all of this
// kind; a sum with a product is not -- narrow_sum.) Not watched: narrow_kahan_steps says which
// of its sums need it.
template <bool kSticks>
[[gnu::always_inline]] inline LaneF narrow_sum_of_values(LaneF x, LaneF y, const RoundSplit<kSticks>& split) {
  return split(std::bit_cast<LaneU>(x + y));
}

// TwoSum's error term: hi = x + y rounded, and x + y - hi exactly (Knuth; no order needed).
template <typename V>
[[gnu::always_inline]] inline V two_sum_error(V x, V y, V hi) {
  const V bb = hi - x;
  return (x - (hi - bb)) + (y - bb);
}

// round(x + y) to the format for two float32 numbers: TwoSum (exact), rounding to odd at
// float32's 24 bits, then `round`; watched. The sequential steps of exact float32 products and
// a pairwise sum's halves add this way.
template <typename Round>
[[gnu::always_inline]] inline LaneF narrow_sum(LaneF x, LaneF y, const Round& round, LaneU& worst) {
  const LaneF hi = x + y;
  const LaneF v = round(round_to_odd_lanes(hi, two_sum_error(x, y, hi)));
  watch<Round>(worst, hi, v);
  return v;
}

// Whether any lane of a mask is set; of any of G masks.
[[gnu::always_inline]] inline bool any_lane(LaneU mask) {
  uint64_t words[kNarrowLanes / 2];
  std::memcpy(words, &mask, sizeof words);
  return (words[0] | words[1] | words[2] | words[3]) != 0;
}
template <size_t G>
[[gnu::always_inline]] inline bool any_lane(const LaneU (&masks)[G]) {
  LaneU all = masks[0];
  for (size_t r = 1; r < G; ++r) all |= masks[r];
  return any_lane(all);
}

// round(x + y) to the format for a value x of the format and a product y, both float64, the exact
// way: TwoSum, rounding to odd at float64's 53 bits, then at float32's 24 (truncate the float32
// conversion toward zero, set the last bit if anything was cut off: rounding to odd twice is
// rounding to odd once), then `round`; watched as narrow_sum watches. For the steps the tie watch
// sends back, so written for clarity, lane by lane. A sum that is not finite stays so.
template <typename Round>
[[gnu::always_inline]] inline LaneF narrow_sum_wide(LaneD x, LaneD y, const Round& round, LaneU& worst) {
  const LaneD hi = x + y;
  const LaneD lo = two_sum_error(x, y, hi);
  LaneU odd;
  for (size_t t = 0; t < kNarrowLanes; ++t) {
    if (!(std::fabs(hi[t]) <= 0x1.fffffffffffffp+1023)) {  // Inf or NaN
      odd[t] = std::bit_cast<uint32_t>(static_cast<float>(hi[t]));
      continue;
    }
    const double d = std::bit_cast<double>(round_to_odd_bits<uint64_t>(hi[t], lo[t]));
    const float f = static_cast<float>(d);
    const uint32_t away = std::fabs(static_cast<double>(f)) > std::fabs(d);
    odd[t] = (std::bit_cast<uint32_t>(f) - away) | static_cast<uint32_t>(static_cast<double>(f) != d);
  }
  const LaneF v = round(odd);
  watch<Round>(worst, std::bit_cast<LaneF>(odd), v);
  return v;
}

// A step's operands as vectors: row r's a (a scalar), the panel's eight b's (float or double
// lanes), and what the step needs of them.
[[gnu::always_inline]] inline LaneF load_panel(const float* p) { return load_lanes(p); }
[[gnu::always_inline]] inline LaneD load_panel(const double* p) {
  LaneD v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
// a * b exactly in float64 (a product of float32 numbers has at most 48 bits), or as dot() rounds
// a product of float64 operands.
[[gnu::always_inline]] inline LaneD float64_product(float a, LaneF b) {
  return static_cast<double>(a) * __builtin_convertvector(b, LaneD);
}
[[gnu::always_inline]] inline LaneD float64_product(double a, LaneD b) { return a * b; }
// acc + a * b rounded to float32 from the float64 product: once, by a fused multiply-add, for
// float32 operands (written per lane: GCC has no vector fma; it vectorises where the CPU has
// one, gemm.cpp takes this route only then); through the float64 sum for float64 operands.
[[gnu::always_inline]] inline LaneF float32_sum(LaneF acc, float a, LaneF b) {
  LaneF sum;
#pragma GCC unroll 8
  for (size_t t = 0; t < kNarrowLanes; ++t) sum[t] = __builtin_fmaf(a, b[t], acc[t]);
  return sum;
}
[[gnu::always_inline]] inline LaneF float32_sum(LaneF acc, double a, LaneD b) {
  return __builtin_convertvector(__builtin_convertvector(acc, LaneD) + a * b, LaneF);
}
// a * b rounded to float32 from the float64 product: one multiply for float32 operands.
[[gnu::always_inline]] inline LaneF float32_product(float a, LaneF b) { return a * b; }
[[gnu::always_inline]] inline LaneF float32_product(double a, LaneD b) { return __builtin_convertvector(a * b, LaneF); }

// The products a_r[k] * panel[k] of rows r < G (a_rows[r]), each rounded to the format, for
// Kahan's steps; not watched: Kahan's watch on y = round(product - c) covers them (a product past
// the largest, or Inf, makes y reach it, or NaN: narrow_kahan_steps). A float32 product
// (Products::kFloat32) is rounded once (nothing to TwoSum: adding +0 would turn a -0 product
// into +0). Others are rounded to float32, tie-watched, and a row's products redone exactly
// (narrow_sum_wide of -0 and the float64 product: -0 + x is x, zeros' signs included) when one
// of them landed on a midpoint.
template <Products kP, size_t G, typename Round>
[[gnu::always_inline]] inline void rounded_products(const OperandOf<kP>* const* a_rows, const OperandOf<kP>* panel,
                                                    size_t k, const Round& round, LaneU& worst, LaneF (&out)[G]) {
  const auto p = load_panel(panel + k * kNarrowLanes);
  if constexpr (kP == Products::kFloat32) {
    for (size_t r = 0; r < G; ++r) out[r] = round(std::bit_cast<LaneU>(a_rows[r][k] * p));
  } else {
    // One mask for the group, so that neither G masks nor the products need the stack; the rare
    // step with a midpoint finds its rows by testing their products again.
    LaneU ties{};
    for (size_t r = 0; r < G; ++r)
      out[r] = round.tie_watched(std::bit_cast<LaneU>(float32_product(a_rows[r][k], p)), ties);
    if (any_lane(ties)) [[unlikely]] {
      for (size_t r = 0; r < G; ++r) {
        LaneU tie{};
        round.tie_watched(std::bit_cast<LaneU>(float32_product(a_rows[r][k], p)), tie);
        if (any_lane(tie)) out[r] = narrow_sum_wide(-LaneD{}, float64_product(a_rows[r][k], p), round, worst);
      }
    }
  }
}

// Mark in `bad` the lanes whose watched magnitude, or the final sum in s, reached the format's
// largest value or went past it (Inf and NaN included). Reaching it is enough: Kahan's steps
// watch fewer sums by asking that much (narrow_kahan_steps); elsewhere a sum equal to the
// largest value is only redone for nothing.
template <size_t R>
[[gnu::always_inline]] inline void flag_lanes(LaneU worst, const float (*s)[kNarrowLanes], const NarrowFormat& f,
                                              uint32_t (*bad)[kNarrowLanes]) {
  const uint32_t largest = std::bit_cast<uint32_t>(f.largest);
  for (size_t r = 0; r < R; ++r) {
    const LaneU final_worst = umax(worst, std::bit_cast<LaneU>(load_lanes(s[r])) & kMagnitude);
    for (size_t t = 0; t < kNarrowLanes; ++t) bad[r][t] |= static_cast<uint32_t>(final_worst[t] >= largest);
  }
}

// One step of narrow_steps for products that are not float32 numbers: acc[r] = round(acc[r] +
// a_r[k] * panel[k]) through float32 (float32_sum), then `round.tie_watched`; when a lane of the
// group hit a midpoint the step is redone with narrow_sum_wide. (The format's values are exact
// in float64.)
template <size_t G, typename Round, typename Operand>
[[gnu::always_inline]] inline void float32_step(LaneF (&acc)[G], const Operand* const* a_rows, const Operand* panel,
                                                size_t k, const Round& round, LaneU& worst) {
  const auto p = load_panel(panel + k * kNarrowLanes);
  LaneF next[G];
  LaneU ties[G] = {};
#pragma GCC unroll 4
  for (size_t r = 0; r < G; ++r) {
    const LaneF sum = float32_sum(acc[r], a_rows[r][k], p);
    next[r] = round.tie_watched(std::bit_cast<LaneU>(sum), ties[r]);
    watch<Round>(worst, sum, next[r]);
  }
  if (any_lane(ties)) [[unlikely]] {
    for (size_t r = 0; r < G; ++r)
      if (any_lane(ties[r]))
        next[r] =
            narrow_sum_wide(__builtin_convertvector(acc[r], LaneD), float64_product(a_rows[r][k], p), round, worst);
  }
#pragma GCC unroll 4
  for (size_t r = 0; r < G; ++r) acc[r] = next[r];
}

// s[r][t] = round(s[r][t] + a_r[k] * panel[k][t]) for k in [k0, k1), rows r < R, the rounding
// by `round`: by narrow_sum for products that are float32 numbers, by float32_step for others.
// A lane is redone by the general code when its sum left the fast path's domain at any step:
// not finite, or past the format's largest value. Rather than test every step, each lane keeps
// the largest magnitude it saw, as a bit pattern (larger patterns are larger magnitudes, Inf
// and NaN above all), shared by the R rows: one maximum per step. A flagged lane column is
// redone for all R rows (rare: only sums that overflow).
template <size_t R, Products kP, typename Round>
[[gnu::always_inline]] inline void narrow_steps(const OperandOf<kP>* const* a_rows, const OperandOf<kP>* panel,
                                                size_t k0, size_t k1, const Round round, const NarrowFormat f,
                                                float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  // Four rows at a time: four chains hide an addition's latency, and their sums stay in
  // registers (eight spilled to the stack, with the constants, on AVX2's 16 registers).
  constexpr size_t kGroup = R < 4 ? R : 4;
  static_assert(R % kGroup == 0);
  LaneU worst{};  // per lane: the largest |value| seen, as bits
  for (size_t g = 0; g < R; g += kGroup) {
    LaneF acc[kGroup];
    for (size_t r = 0; r < kGroup; ++r) acc[r] = load_lanes(s[g + r]);
    for (size_t k = k0; k < k1; ++k) {
      if constexpr (kP != Products::kFloat32) {
        float32_step(acc, a_rows + g, panel, k, round, worst);
      } else {
        const LaneF p = load_lanes(panel + k * kNarrowLanes);
#pragma GCC unroll 4
        for (size_t r = 0; r < kGroup; ++r)
          acc[r] = narrow_sum(acc[r], a_rows[g + r][k] * p, round, worst);  // exact product
      }
    }
    for (size_t r = 0; r < kGroup; ++r) store_lanes(s[g + r], acc[r]);
  }
  flag_lanes<R>(worst, s, f, bad);
}

// Kahan's compensated sum (accumulate.cpp's kahan()) on these lanes: y = round(round(p) - c),
// t = round(s + y), c = round(round(t - s) - y), s = t. The product is rounded by
// rounded_products (Round); every other operand is a value of the format, so each sum is
// narrow_sum_of_values (formats of at most 11 bits: kahan_lanes_apply() in gemm.cpp), rounded by
// Veltkamp's split (Sums, a RoundSplit). Where Round rounds the pattern (emin = -126: the
// format's grid is float32's), exact float32 products -- normal numbers,
// float32_products_exact() -- are split too. One call covers all of K: the compensation starts
// at zero.
//
// The last rounding is left out: d - y, d = round(t - s), is a value of the format, so c = d - y
// in float32, exactly. Where |s| >= |y|, t - s is a value of the format (Dekker's lemma, as in
// Fast2Sum), d = t - s, and d - y = t - (s + y) is the error of a rounded-to-nearest addition,
// which the format holds (subnormals included). Where |y| > |s|, |t| <= 2|y|, so t - s is within
// ulp(y) of y, d is a neighbour of y within a factor of two of it, and d - y is exact by
// Sterbenz's lemma (p >= 3). Checked on every pair of values of float16 and bfloat16 (8.3
// billion pairs), of the 8-bit formats, and of formats of precision 2 to 11 with a 4-bit
// exponent, wherever |y| and |t| stay below the largest value (else the lane is watched or
// sticks): never once outside the format. Three operations fewer a step,
// nine cycles off its chain of dependent operations.
//
// What is watched (every overflow must send the lane to the general code). Where overflow
// sticks (Sums::kOverflowSticks) nothing: the last sum and compensation tell. Elsewhere y and t
// only, a lane flagged when either reaches the largest value L (flag_lanes): while y < L and t
// <= L, neither round(t - s) nor c can overflow. For t - s = y + e, with e = t - (s + y) the
// error of t, at most half the top binade's quantum u; |y| <= L - u (a value below L), so
// |t - s| <= L - u/2, which rounds to at most L; and c = d - y, d = round(t - s), has
// |d - y| <= |e| + |d - (t - s)| <= u. A product past L (a rounding that stays finite) makes
// |round(p) - c| >= L + u - u: y reaches L; one that overflows to Inf makes y NaN.
// Less where the products bound the steps (kWatch, f.kahan_watch from the data). With every
// |round(p)| <= P, u the top binade's quantum and every value so far below L, each rounding moves
// its value by at most u/2, so |c| = |d - y| <= u (t - s is y less t's error, d that rounded) and
// |y| <= P + 3u/2: P + 3u <= L keeps every y at most L - u, and only t is watched
// (KahanWatch::kT). And the sum after k steps, s_k = sum of (p_i - c_(i-1) - y_i's error - t_i's
// error), has |s_k| <= k (P + 2u) from s_0 = 0: K (P + 2u) + u < L keeps every t at most L - u
// too, by induction on the steps, and nothing is watched (KahanWatch::kNothing).
template <size_t R, Products kP, KahanWatch kWatch, typename Round, typename Sums>
  requires(!Sums::kOverflowSticks || kWatch == KahanWatch::kNothing)  // sticking overflows need no watch
[[gnu::always_inline]] inline void narrow_kahan_steps(const OperandOf<kP>* const* a_rows, const OperandOf<kP>* panel,
                                                      size_t k0, size_t k1, const Round round, const Sums sums,
                                                      const NarrowFormat f, float (*s)[kNarrowLanes],
                                                      uint32_t (*bad)[kNarrowLanes]) {
  // Eight rows at a time: each step is a chain of four dependent additions and roundings (about
  // 48 cycles with the split; 39 with the last rounding left out), and four chains would leave
  // the units idle (eight make float16 and bfloat16 Kahan 10-20% faster). AVX2's 16
  // registers spill some of the sixteen sums and compensations; AVX-512's 32 (the clones) do
  // not, which the breadth-first order below needs.
  constexpr size_t kGroup = R < 8 ? R : 8;
  static_assert(R % kGroup == 0);
  constexpr bool kSplitProducts = std::is_same_v<Round, RoundOnBits> && kP == Products::kFloat32;
  LaneU worst{};
  auto add = [&](LaneF x, LaneF y) PL_INLINE_LAMBDA { return narrow_sum_of_values(x, y, sums); };
  auto magnitude = [](LaneF x) PL_INLINE_LAMBDA { return std::bit_cast<LaneU>(x) & kMagnitude; };
  for (size_t g = 0; g < R; g += kGroup) {
    LaneF sum[kGroup], comp[kGroup];
    for (size_t r = 0; r < kGroup; ++r) sum[r] = load_lanes(s[g + r]), comp[r] = LaneF{};
    for (size_t k = k0; k < k1; ++k) {
      LaneF product[kGroup];
      if constexpr (kSplitProducts) rounded_products<kP>(a_rows + g, panel, k, sums, worst, product);
      else rounded_products<kP>(a_rows + g, panel, k, round, worst, product);
      // Breadth first: each of Kahan's four sums for every row before the next sum. Written row
      // by row, the eight chains lay ~200 instructions apart in program order, and the CPU's
      // window overlapped them less: float16 Kahan 7.2 -> 6.4 cycles a row-step, of float32
      // operands 8.7 -> 7.4 (a one-core loop of this kernel, AVX-512 build). AVX2's build of
      // float16 Kahan is slower so, 7.5 -> 7.9: its 16 registers spill more.
      LaneF y[kGroup], next[kGroup], diff[kGroup];
#pragma GCC unroll 8
      for (size_t r = 0; r < kGroup; ++r) y[r] = add(product[r], -comp[r]);
#pragma GCC unroll 8
      for (size_t r = 0; r < kGroup; ++r) next[r] = add(sum[r], y[r]);
#pragma GCC unroll 8
      for (size_t r = 0; r < kGroup; ++r) diff[r] = add(next[r], -sum[r]);
#pragma GCC unroll 8
      for (size_t r = 0; r < kGroup; ++r) {
        comp[r] = diff[r] - y[r];  // a value of the format: exact (above)
        sum[r] = next[r];
        if constexpr (kWatch == KahanWatch::kT) worst = umax(worst, magnitude(next[r]));
        if constexpr (kWatch == KahanWatch::kYAndT) worst = umax(worst, umax(magnitude(y[r]), magnitude(next[r])));
      }
    }
    for (size_t r = 0; r < kGroup; ++r) {
      store_lanes(s[g + r], sum[r]);
      if constexpr (Sums::kOverflowSticks) worst = umax(worst, magnitude(comp[r]));
    }
  }
  flag_lanes<R>(worst, s, f, bad);
}

// x[r][t] = round(x[r][t] + y[r][t]) for two values of the format each (a pairwise sum's
// halves), by narrow_sum as every step. A lane that reaches the format's largest value or goes
// past it is marked in `bad` (flag_lanes, row by row).
template <size_t R, typename Round>
[[gnu::always_inline]] inline void narrow_add(float (*x)[kNarrowLanes], const float (*y)[kNarrowLanes],
                                              const Round round, const NarrowFormat f, uint32_t (*bad)[kNarrowLanes]) {
  for (size_t r = 0; r < R; ++r) {
    LaneU watched{};
    store_lanes(x[r], narrow_sum(load_lanes(x[r]), load_lanes(y[r]), round, watched));
    flag_lanes<1>(watched, &x[r], f, &bad[r]);
  }
}

// The kernel for a model (Kahan's or the sequential steps) and products.
template <size_t R, bool kKahan, Products kP, typename Round>
[[gnu::always_inline]] inline void narrow_kernel(const OperandOf<kP>* const* a_rows, const OperandOf<kP>* panel,
                                                 size_t k0, size_t k1, const Round round, const NarrowFormat f,
                                                 float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  if constexpr (!kKahan) narrow_steps<R, kP>(a_rows, panel, k0, k1, round, f, s, bad);
  else if (split_sums_stick(f))
    narrow_kahan_steps<R, kP, KahanWatch::kNothing>(a_rows, panel, k0, k1, round, RoundSplit<true>(f), f, s, bad);
  else if (f.kahan_watch == KahanWatch::kNothing)
    narrow_kahan_steps<R, kP, KahanWatch::kNothing>(a_rows, panel, k0, k1, round, RoundSplit<false>(f), f, s, bad);
  else if (f.kahan_watch == KahanWatch::kT)
    narrow_kahan_steps<R, kP, KahanWatch::kT>(a_rows, panel, k0, k1, round, RoundSplit<false>(f), f, s, bad);
  else narrow_kahan_steps<R, kP, KahanWatch::kYAndT>(a_rows, panel, k0, k1, round, RoundSplit<false>(f), f, s, bad);
}

}  // namespace
}  // namespace pl::experiment
