// The codec's core step, shared by the CPU codec (codec.cpp) and the GPU's emulated sums
// (kernels/emulated_sum.h), so both round with the very same code: a finite magnitude written
// exactly as sig * 2^lsb_exp, and that magnitude rounded to a multiple of a quantum 2^qe in any
// rounding mode (stochastic: stochastic.h's rule, with the 32 random bits given).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/dtype/device/cast_policy.h"
#include "core/util/host_device.h"

namespace pl {

// |x| = sig * 2^lsb_exp exactly; sig != 0 for finite nonzero x.
struct Magnitude {
  uint64_t sig;
  int lsb_exp;
};

PL_HD inline Magnitude decompose(double a) {
  uint64_t bits;
  memcpy(&bits, &a, sizeof bits);
  bits &= 0x7FFFFFFFFFFFFFFFull;
  const int biased = static_cast<int>(bits >> 52);
  const uint64_t frac = bits & ((uint64_t{1} << 52) - 1);
  if (biased == 0) return {frac, -1074};
  return {frac | (uint64_t{1} << 52), biased - 1075};
}

PL_HD inline int count_leading_zeros(uint64_t x) {  // x != 0
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

PL_HD inline int floor_log2(const Magnitude& m) { return m.lsb_exp + 63 - count_leading_zeros(m.sig); }

// Rounds sig * 2^lsb_exp to a multiple of 2^qe; returns the multiple. rnd: the stochastic
// draw (unused by the other modes).
PL_HD inline uint64_t round_to_quantum(const Magnitude& m, int qe, bool negative, Rounding mode, uint32_t rnd,
                                       bool* inexact) {
  int d = qe - m.lsb_exp;
  if (d <= 0) {  // the quantum is at least as fine as the input: exact
    *inexact = false;
    return m.sig << -d;
  }
  uint64_t kept = d < 64 ? m.sig >> d : 0;
  uint64_t rem = d < 64 ? m.sig & ((uint64_t{1} << d) - 1) : m.sig;
  *inexact = rem != 0;
  if (rem == 0) return kept;
  // First 32 bits of the discarded fraction, and whether anything lies below them.
  uint64_t frac32;
  bool below = false;
  if (d <= 32) {
    frac32 = rem << (32 - d);
  } else {
    int s = d - 32;
    frac32 = s < 64 ? rem >> s : 0;
    below = s < 64 ? (rem & ((uint64_t{1} << s) - 1)) != 0 : true;
  }
  const uint64_t half = uint64_t{1} << 31;
  bool up = false;
  switch (mode) {
    case Rounding::NearestEven: up = frac32 > half || (frac32 == half && (below || (kept & 1))); break;
    case Rounding::NearestAway: up = frac32 >= half; break;
    case Rounding::TowardZero: up = false; break;
    case Rounding::Up: up = !negative; break;
    case Rounding::Down: up = negative; break;
    case Rounding::Stochastic: up = frac32 + rnd >= (uint64_t{1} << 32); break;
  }
  return kept + (up ? 1 : 0);
}

}  // namespace pl
