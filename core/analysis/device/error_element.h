// What one element of a comparison contributes to the error statistics (error_stats.h): the
// definitions the CPU's passes (error_stats.cpp, vectorised) and the GPU's (kernels/error_stats.cu)
// share, so that both count every element into the same key, bin and slot bit for bit. Only
// PL_HD and plain integer and double arithmetic: no CUDA header, no libm call (a libm call
// could differ between the host and the device by an ulp).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/util/host_device.h"

namespace pl::experiment {

PL_HD inline uint64_t element_bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);  // (a bit cast both compilers fold)
  return u;
}
PL_HD inline double element_from_bits(uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// |x| as std::fabs gives it (the sign bit cleared: -0 gives +0, a NaN stays a NaN).
PL_HD inline double element_abs(double x) { return element_from_bits(element_bits(x) & 0x7fffffffffffffffull); }

// Whether a pair is compared: both finite (tested on the exponent bits, so that the CPU's loops
// using it vectorise). Both passes, on either device, decide by it.
PL_HD inline bool compared_pair(double result, double reference) {
  constexpr uint64_t kExp = 0x7ff0000000000000ull;
  // `&`, not `&&`: both tests without a branch. (Named first: clang warns on `&` of two tests
  // that call functions.)
  const bool result_finite = (element_bits(result) & kExp) != kExp;
  const bool reference_finite = (element_bits(reference) & kExp) != kExp;
  return result_finite & reference_finite;
}

// An error's key: the sign and the top 15 bits of |e|'s float64 pattern (exponent, four fraction
// bits), where for a negative e (not -0, not -inf) the pattern one below |e|'s is taken. So a key
// of either sign holds one half-open interval of values closed on its left, as histogram bins
// are -- [lo, hi) for positive keys, [-hi, -lo) for negative ones, lo and hi a magnitude key's
// bounds -- and a bin whose edges are multiples of the key's width never splits it (with |e|'s
// own pattern, a negative key's values would be (-hi, -lo], and every key starting on an edge
// would be split). The magnitude part (key & 0x7fff) still orders |e|: every |e| under one key is
// at most every |e| under the next. -0 has +0's key. Branch-free: every element gets one.
PL_HD inline uint16_t error_key(double e) {
  const uint64_t bits = element_bits(e);
  const uint64_t magnitude = bits & 0x7fffffffffffffffull;
  const uint64_t shift = (bits >> 63) & (magnitude != 0) & (magnitude != 0x7ff0000000000000ull);
  return static_cast<uint16_t>((shift << 15) | ((magnitude - shift) >> 48));
}
constexpr uint16_t kNoErrorKey = 0x7fff;  // the key of a pair that is not compared (a NaN's)

// The output format's numbers an element's measures need: the floor of the relative error, the
// exponent range and fraction bits (for ulps), and whether every ulp of the format and its
// reciprocal are normal doubles (all formats but float64 and ones with its exponent range).
struct ElementMeasure {
  double floor = 0;
  int64_t emin = 0, emax = 0, mantissa_bits = 0;
  bool normal_ulps = true;
};

// 2^k for k in [-1074, 1023], from its bits (exact; no ldexp).
PL_HD inline double element_pow2(int64_t k) {
  return k >= -1022 ? element_from_bits(static_cast<uint64_t>(k + 1023) << 52)
                    : element_from_bits(uint64_t{1} << (k + 1074));
}

// The error in ulps of the output format at the reference: |e| / ulp_at(format, ref)
// (core/dtype/describe.h), the same double either way it is computed. With normal ulps, |e|
// times 1 / ulp (both round the real |e| / ulp once: the ulp and its reciprocal are powers of
// two), the exponent straight from the bits and clamped into the format's range (a zero or
// subnormal clamps up to emin, as ulp_at gives); else |e| divided by the ulp, whose exponent a
// float64 subnormal reference gives from its leading zeros (ilogb's value, without libm).
PL_HD inline double error_in_ulps(double abs_error, uint64_t ref_bits, const ElementMeasure& m) {
  const int64_t biased = static_cast<int64_t>((ref_bits >> 52) & 0x7ff);
  if (m.normal_ulps) {
    int64_t q = biased - 1023;
    q = q < m.emin ? m.emin : q;
    q = q > m.emax ? m.emax : q;
    return abs_error * element_from_bits(static_cast<uint64_t>(m.mantissa_bits - q + 1023) << 52);
  }
  const uint64_t fraction = ref_bits & 0x000fffffffffffffull;
  int64_t e;
  if ((ref_bits & 0x7fffffffffffffffull) == 0) {
    e = m.emin;
  } else if (biased != 0) {
    e = biased - 1023;
  } else {
#if defined(__CUDA_ARCH__)
    const int64_t zeros = __clzll(static_cast<long long>(fraction));
#else
    const int64_t zeros = __builtin_clzll(fraction);
#endif
    e = -1023 - (zeros - 12);  // ilogb of a subnormal: 2^-1074 has 63 leading zeros
  }
  e = e < m.emin ? m.emin : e;
  e = e > m.emax ? m.emax : e;
  return abs_error / element_pow2(e - m.mantissa_bits);
}

// The relative error with the floor: |e| / max(|ref|, floor).
PL_HD inline double relative_error(double abs_error, double reference, double floor) {
  const double a = element_abs(reference);
  return abs_error / (a < floor ? floor : a);
}

// Where a value counts in a octave table (histogram.h's OctaveBins), from the table's entry for
// its top 16 bits: entry_slot() for positive normal values (the slot of the key's smallest value
// in the entry's top 15 bits; the low 48 bits of the edge inside the key, if any, in its low 49),
// then `past` for positive subnormals, past + 1 for zeros and negatives, past + 2 for values that
// are not finite, and past + 3 for values not taken.
constexpr int kOctaveSlotShift = 49;
constexpr uint64_t kOctaveLowBits = (uint64_t{1} << 48) - 1, kOctaveEdgeBits = (uint64_t{1} << 49) - 1;
PL_HD inline uint64_t entry_slot(uint64_t b, uint64_t entry) {
  const uint64_t low = b & kOctaveLowBits, edge = entry & kOctaveEdgeBits;
  return (entry >> kOctaveSlotShift) + (low >= edge) + (low > edge);
}
PL_HD inline uint32_t octave_slot(double v, bool take, const uint64_t* entries, uint32_t past) {
  const uint64_t b = element_bits(v);
  const uint64_t p = past;
  const uint64_t normal = entry_slot(b, entries[(b >> 48) & 0x7fff]);
  const uint64_t special = (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull ? p + 2  // NaN, +-Inf
                           : ((b >> 63) | (b == 0))                             ? p + 1  // zero, negative
                                                                                : p;                                 // subnormal
  const uint64_t slot = b - 0x0010000000000000ull < 0x7fe0000000000000ull ? normal : special;
  return static_cast<uint32_t>(take ? slot : p + 3);
}

}  // namespace pl::experiment
