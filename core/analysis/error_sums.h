// Pass 1 of the error statistics (error_stats.cpp), its reductions: the plain sums a span of
// elements gives, and the lane sums a block of measured elements is folded into, vectorised by
// hand. Their own file for size; error_stats.cpp is their one user.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/analysis/error_totals.h"

namespace pl::experiment::error_sums {

// Pass 1's reductions over one block of measured elements, four lanes at a time in GCC's
// vector types (GCC will not reorder one floating-point sum, so it cannot vectorise the plain
// loop; these are kLanes sums side by side, spelled out). Elements that are not finite add
// nothing here (they are counted as NaN or Inf apart). The lanes are folded in a fixed order
// afterwards, so the result depends on the data only, never on the thread count.
constexpr size_t kLanes = 4;
using Vd = double __attribute__((vector_size(8 * kLanes)));
using Vi = int64_t __attribute__((vector_size(8 * kLanes)));

inline Vd load(const double* p) {
  Vd v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline Vd select(Vi mask, Vd yes, Vd no) { return mask ? yes : no; }
inline Vd vmin(Vd a, Vd b) { return b < a ? b : a; }
inline Vd vmax(Vd a, Vd b) { return a < b ? b : a; }
inline Vd splat(double x) { return Vd{} + x; }

// Bits of agreement, -log2(rel) capped to [0, precision], summed without a logarithm per
// element: 0 for rel >= 1, the precision for rel <= 2^-precision (a zero error included), and
// in between, with rel = 2^E M (M in [1, 2)), -E added to `bits` and M multiplied into
// `mantissas`, whose own exponent moves into `bits` after every block (renormalise: at most
// a block's kLanes-th part of factors below 2, far from overflow); one log2 a lane at the end. The product's
// rounding (~2^-53 a factor) stays far below what the statistic shows.
struct LaneSums {
  Vd sum_abs{}, sum_sq{}, sum_ref_sq{}, sum_rel{}, sum_ulp{}, bits{}, mantissas = splat(1.0);
  Vd max_abs{}, max_rel{}, max_ulp{}, top_rel{}, top_ulp{};
  Vd min_pos_rel = splat(INFINITY), min_pos_ulp = splat(INFINITY);
  Vi count{}, saturated{}, flushed{};

  void renormalise() {
    const Vi b = std::bit_cast<Vi>(mantissas);
    bits -= exponent_of(b);
    mantissas = std::bit_cast<Vd>((b & 0x000fffffffffffff) | 0x3ff0000000000000);
  }
  void fold_into(Sums& s) const {
    for (size_t l = 0; l < kLanes; ++l) {
      s.count += static_cast<size_t>(-count[l]);
      s.saturated += static_cast<size_t>(-saturated[l]), s.flushed += static_cast<size_t>(-flushed[l]);
      s.sum_abs += sum_abs[l], s.sum_sq += sum_sq[l], s.sum_ref_sq += sum_ref_sq[l];
      s.sum_rel += sum_rel[l], s.sum_ulp += sum_ulp[l], s.sum_bits += bits[l] - std::log2(mantissas[l]);
      s.max_abs = std::max(s.max_abs, max_abs[l]), s.max_rel = std::max(s.max_rel, max_rel[l]);
      s.max_ulp = std::max(s.max_ulp, max_ulp[l]);
      s.min_pos_rel = std::min(s.min_pos_rel, min_pos_rel[l]);
      s.min_pos_ulp = std::min(s.min_pos_ulp, min_pos_ulp[l]);
      s.top_rel = std::max(s.top_rel, top_rel[l]), s.top_ulp = std::max(s.top_ulp, top_ulp[l]);
    }
  }
  // The unbiased exponents of normal positive doubles (given as bits), as doubles: the 2^52
  // trick, since AVX2 has no int64 -> double conversion.
  static Vd exponent_of(Vi b) { return std::bit_cast<Vd>((b >> 52) | 0x4330000000000000) - splat(0x1p52 + 1023); }
};

// What the bits of agreement need: the cap (the output's precision) and 2^-cap.
struct BitsCap {
  double cap, smallest;
};

// Folds a block of measured elements into `out`: result and reference (n of each), and the
// measures of error_stats.cpp's measure_block -- |e|, relative, ulps, and the mask of the pairs
// both finite. top: the output format's largest finite value (saturation); cap: bits of agreement.
void reduce_block(const double* result, const double* reference, size_t n, const double* e, const double* rel,
                  const double* ulps, const int64_t* finite, double top, BitsCap cap, LaneSums& out);

}  // namespace pl::experiment::error_sums
