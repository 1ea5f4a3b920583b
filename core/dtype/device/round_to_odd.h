// hi + lo (TwoSum's rounded sum and its exact error, |lo| <= ulp(hi) / 2) rounded to odd at
// hi's precision, as the bit pattern -- the step every emulated addition takes before rounding
// into a narrower format (Boldo and Melquiond: rounding to odd with enough extra bits makes
// the second rounding correct). Shared by the CPU's sums (core/accumulate/exact_sum.h), its
// GEMM lanes and the GPU's emulated sums (kernels/emulated_sum.h).
//
// Rounding to odd is truncation (toward zero) with the last bit set when anything was cut off:
// the truncation of hi + lo is hi itself when lo has hi's sign (|hi| < |hi + lo| < the next
// number away from zero) and the number just below hi in magnitude when it does not -- one less
// as a bit pattern, binade edges included. Branch-free, in seven integer operations, so loops
// that call it vectorise. Bits is the unsigned integer as wide as F. Finite hi only (callers
// keep or flag a sum that is not finite).
#pragma once

#include <cstring>

#include "core/util/host_device.h"

namespace pl {

template <typename Bits, typename F>
PL_HD inline Bits round_to_odd_bits(F hi, F lo) {
  static_assert(sizeof(Bits) == sizeof(F));
  constexpr int kSign = 8 * sizeof(Bits) - 1;
  Bits bits, lo_bits;
  memcpy(&bits, &hi, sizeof bits);
  memcpy(&lo_bits, &lo, sizeof lo_bits);
  const Bits inexact = Bits{0} - static_cast<Bits>(lo != F{0});  // all ones, or none
  const Bits opposite = (bits ^ lo_bits) >> kSign;               // 1: lo has the other sign
  return (bits - (opposite & inexact)) | (inexact & 1);
}

}  // namespace pl
