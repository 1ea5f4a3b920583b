// The GEMM's kernel for narrow accumulators (float16, bfloat16, the float8 family ...) on
// float32 lanes, when every product is an exact float32 number (gemm.cpp checks it on the
// data): the sum of an accumulator value and a product computed in float32 (TwoSum: its exact
// error too), rounded to odd at float32's 24 bits, then to nearest even in the accumulator's
// format -- the same value as round_sum()'s float64 route, because rounding to odd with at
// least two bits beyond the target's precision makes the second rounding correct (Boldo and
// Melquiond, 2008), and 24 >= p + 2 for every format this takes (p <= 22).
//
// Three ways to the accumulator's format, one policy each: formats whose smallest exponent is
// float32's (bfloat16) round the float32 bit pattern, subnormals included (RoundOnBits);
// float16 uses the CPU's float16 conversion where it has one (F16C; gemm_f16c.cpp, a file
// built for it); the others scale to the quantum and round with 1.5 * 2^23 (RoundScaled).
//
// Included by gemm.cpp and gemm_f16c.cpp only, which are built with different instruction
// sets: everything with code is in an anonymous namespace, so neither file can end up calling
// the other's copy; NarrowFormat is plain data.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pl::experiment {

inline constexpr size_t kNarrowLanes = 8;  // gemm.cpp's kLanes

// One accumulator format's constants (narrow_format() in gemm.cpp fills it).
struct NarrowFormat {
  int32_t emin, mantissa_bits;
  float largest;
  bool on_bits;     // emin == -126: round the bit pattern
  bool is_float16;  // IEEE binary16: the F16C kernel may take it
};

// gemm_f16c.cpp: the kernel with F16C's conversion, for float16 (narrow_steps, or
// narrow_kahan_steps when `kahan`); rows is 8 or 1.
void lanes_run_narrow_f16c(size_t rows, bool kahan, const float* const* a_rows, const float* panel, size_t k0,
                           size_t k1, NarrowFormat f, float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]);

namespace {

// Eight float32 lanes as one GCC vector (no intrinsics: SSE2 runs it as two halves, AVX2 as one
// register). Written as vectors rather than as loops left to the auto-vectoriser: its cost
// model gave up on this kernel after small changes and ran it 6x slower.
using LaneF = float __attribute__((vector_size(4 * kNarrowLanes)));
using LaneU = uint32_t __attribute__((vector_size(4 * kNarrowLanes)));
using LaneI = int32_t __attribute__((vector_size(4 * kNarrowLanes)));

[[gnu::always_inline]] inline LaneF load_lanes(const float* p) {
  LaneF v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void store_lanes(float* p, LaneF v) { std::memcpy(p, &v, sizeof v); }
[[gnu::always_inline]] inline LaneU umax(LaneU a, LaneU b) { return a > b ? a : b; }
constexpr uint32_t kMagnitude = 0x7fffffff, kSign = 0x80000000;

// round_to_odd_bits() (core/dtype/round_to_odd.h) on eight lanes (a vector comparison gives
// its mask already).
[[gnu::always_inline]] inline LaneU round_to_odd_lanes(LaneF hi, LaneF lo) {
  const LaneU bits = std::bit_cast<LaneU>(hi);
  const LaneU inexact = std::bit_cast<LaneU>(lo != 0);  // all ones, or none
  const LaneU opposite = (bits ^ std::bit_cast<LaneU>(lo)) >> 31;
  return (bits - (opposite & inexact)) | (inexact & 1);
}

// Round the pattern to nearest even at the format's precision. A NaN pattern can wrap to a
// number here, so the sum before rounding is what is watched.
struct RoundOnBits {
  static constexpr bool kWatchSum = true;
  uint32_t drop, half, keep;
  explicit RoundOnBits(const NarrowFormat& f)
      : drop(static_cast<uint32_t>(23 - f.mantissa_bits)), half((uint32_t{1} << (drop - 1)) - 1),
        keep(~((uint32_t{1} << drop) - 1)) {}
  [[gnu::always_inline]] LaneF operator()(LaneU odd) const {
    return std::bit_cast<LaneF>((odd + half + ((odd >> drop) & 1)) & keep);
  }
};

// Scale to the quantum (the format's ulp at the value, or at its smallest normal), round with
// 1.5 * 2^23 (ties to even in the default rounding mode), scale back; a zero keeps the sign
// of the sum it came from.
struct RoundScaled {
  static constexpr bool kWatchSum = false;
  int32_t emin, mantissa_bits;
  explicit RoundScaled(const NarrowFormat& f) : emin(f.emin), mantissa_bits(f.mantissa_bits) {}
  [[gnu::always_inline]] LaneF operator()(LaneU odd) const {
    constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
    const LaneI e = std::bit_cast<LaneI>((odd >> 23) & 0xff) - 127;
    const LaneI q = (e > emin ? e : LaneI{} + emin) - mantissa_bits;
    const LaneF to_unit = std::bit_cast<LaneF>(std::bit_cast<LaneU>(127 - q) << 23);
    const LaneF from_unit = std::bit_cast<LaneF>(std::bit_cast<LaneU>(127 + q) << 23);
    const LaneF rounded = (std::bit_cast<LaneF>(odd) * to_unit + kMagic) - kMagic;
    return std::bit_cast<LaneF>((std::bit_cast<LaneU>(rounded) & kMagnitude) | (odd & kSign)) * from_unit;
  }
};

// round(x + y) to the format for two float32 numbers: TwoSum (exact), rounding to odd at
// float32's 24 bits, then `round`; the magnitude it watches (the sum before rounding when
// Round::kWatchSum, else the result) kept in `worst` if larger. Every kernel below adds this way.
template <typename Round>
[[gnu::always_inline]] inline LaneF narrow_sum(LaneF x, LaneF y, const Round& round, LaneU& worst) {
  const LaneF hi = x + y;
  const LaneF bb = hi - x;
  const LaneF lo = (x - (hi - bb)) + (y - bb);
  const LaneF v = round(round_to_odd_lanes(hi, lo));
  worst = umax(worst, std::bit_cast<LaneU>(Round::kWatchSum ? hi : v) & kMagnitude);
  return v;
}

// s[r][t] = round(s[r][t] + a_r[k] * panel[k][t]) for k in [k0, k1), rows r < R, the rounding
// by `round`.
// A lane is redone by the general code when its sum left the fast path's domain at any step:
// not finite, or past the format's largest value. Rather than test every step, each lane keeps
// the largest magnitude it saw, as a bit pattern (larger patterns are larger magnitudes, Inf
// and NaN above all), shared by the R rows: one maximum per step. A flagged lane column is
// redone for all R rows (rare: only sums that overflow).
template <size_t R, typename Round>
[[gnu::always_inline]] inline void narrow_steps(const float* const* a_rows, const float* panel, size_t k0,
                                                size_t k1, const Round round, const NarrowFormat f,
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
      const LaneF p = load_lanes(panel + k * kNarrowLanes);
#pragma GCC unroll 4
      for (size_t r = 0; r < kGroup; ++r) acc[r] = narrow_sum(acc[r], a_rows[g + r][k] * p, round, worst);  // exact product
    }
    for (size_t r = 0; r < kGroup; ++r) store_lanes(s[g + r], acc[r]);
  }
  const uint32_t largest = std::bit_cast<uint32_t>(f.largest);
  for (size_t r = 0; r < R; ++r) {
    const LaneU final_worst = umax(worst, std::bit_cast<LaneU>(load_lanes(s[r])) & kMagnitude);
    for (size_t t = 0; t < kNarrowLanes; ++t) bad[r][t] |= static_cast<uint32_t>(final_worst[t] > largest);
  }
}

// Kahan's compensated sum (accumulate.cpp's kahan()) on these lanes: y = round(round(p) - c),
// t = round(s + y), c = round(round(t - s) - y), s = t, each rounding as narrow_steps' (the
// product p is an exact float32 number; every other operand a value of the format, so each
// TwoSum is exact in float32 and rounding to odd first makes the rounding correct). One call
// covers all of K: the compensation starts at zero. Lanes are watched as in narrow_steps.
template <size_t R, typename Round>
[[gnu::always_inline]] inline void narrow_kahan_steps(const float* const* a_rows, const float* panel, size_t k0,
                                                      size_t k1, const Round round, const NarrowFormat f,
                                                      float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  constexpr size_t kGroup = R < 4 ? R : 4;
  static_assert(R % kGroup == 0);
  LaneU worst{};
  auto add = [&](LaneF x, LaneF y) { return narrow_sum(x, y, round, worst); };
  // round(x) for an exact float32 x (a product): nothing to TwoSum (adding +0 instead would
  // turn a -0 product into +0).
  auto round_exact = [&](LaneF x) {
    const LaneF v = round(std::bit_cast<LaneU>(x));
    worst = umax(worst, std::bit_cast<LaneU>(Round::kWatchSum ? x : v) & kMagnitude);
    return v;
  };
  for (size_t g = 0; g < R; g += kGroup) {
    LaneF sum[kGroup], comp[kGroup];
    for (size_t r = 0; r < kGroup; ++r) sum[r] = load_lanes(s[g + r]), comp[r] = LaneF{};
    for (size_t k = k0; k < k1; ++k) {
      const LaneF p = load_lanes(panel + k * kNarrowLanes);
#pragma GCC unroll 4
      for (size_t r = 0; r < kGroup; ++r) {
        const LaneF product = round_exact(a_rows[g + r][k] * p);
        const LaneF y = add(product, -comp[r]);
        const LaneF next = add(sum[r], y);
        comp[r] = add(add(next, -sum[r]), -y);
        sum[r] = next;
      }
    }
    for (size_t r = 0; r < kGroup; ++r) store_lanes(s[g + r], sum[r]);
  }
  const uint32_t largest = std::bit_cast<uint32_t>(f.largest);
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kNarrowLanes; ++t) bad[r][t] |= static_cast<uint32_t>(worst[t] > largest);
}

// x[r][t] = round(x[r][t] + y[r][t]) for two values of the format each (a pairwise sum's
// halves), by narrow_sum as every step. A lane past the format's range is marked in `bad`.
template <size_t R, typename Round>
[[gnu::always_inline]] inline void narrow_add(float (*x)[kNarrowLanes], const float (*y)[kNarrowLanes],
                                              const Round round, const NarrowFormat f,
                                              uint32_t (*bad)[kNarrowLanes]) {
  const uint32_t largest = std::bit_cast<uint32_t>(f.largest);
  for (size_t r = 0; r < R; ++r) {
    LaneU watched{};
    store_lanes(x[r], narrow_sum(load_lanes(x[r]), load_lanes(y[r]), round, watched));
    for (size_t t = 0; t < kNarrowLanes; ++t) bad[r][t] |= static_cast<uint32_t>(watched[t] > largest);
  }
}

}  // namespace
}  // namespace pl::experiment
