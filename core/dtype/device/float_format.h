// A binary floating-point format described by its parameters, after
// cutlass's exmy_base.h: sign?, exponent bits, mantissa bits, bias, and how
// the top codes are spent on specials. Every limit is derived here, constexpr,
// so the dtype table, the codec, the CLI and the CUDA kernels share one truth.
//
// Code layout (most significant bit first), drawn for float8_e4m3fn:
//
//     bit  7   6 5 4 3   2 1 0
//        +---+---------+-------+
//        | s |  e e e e| m m m |      value = (-1)^s * 1.mmm * 2^(eeee - bias)
//        +---+---------+-------+      (eeee == 0: 0.mmm * 2^(1 - bias))
//
// Device-safe: no std::string, no exceptions, no CUDA headers.
#pragma once

#include <cstdint>

#include "core/util/host_device.h"

namespace pl {

// How a format spends its top codes. Each value cites the document that defines it.
enum class Specials : uint8_t {
  // Exponent all ones: mantissa 0 is +-Inf, any other mantissa is NaN.
  // IEEE 754-2019 section 3.4; also the IEEE-like float8_e4m3/e3m4 of ml_dtypes.
  IEEE,
  // "Finite": no Inf; only the codes S.1111.111 (all exponent and mantissa bits set) are NaN,
  // the rest of the top binade is finite. OCP 8-bit Floating Point Specification (OFP8) rev 1.0, E4M3.
  FN,
  // "Finite, unsigned zero": no Inf and no -0; the negative-zero code 1000...0 is the one NaN.
  // Graphcore/AMD fp8 (arXiv:2206.02915), as named by LLVM APFloat and ml_dtypes.
  FNUZ,
  // Every code is a finite number: no Inf, no NaN. OCP Microscaling (MX) spec v1.0, FP6/FP4.
  None,
  // Unsigned power-of-two scale: no sign, no mantissa, no zero; all ones is NaN.
  // OCP MX spec v1.0 section 5.4.1, E8M0.
  E8M0,
};

// What a value that is too large becomes when the policy does not saturate.
enum class OverflowDefault : uint8_t { ToInf, ToNaN, Saturate };

struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Specials specials;

  PL_HD constexpr bool is_signed() const { return specials != Specials::E8M0; }
  PL_HD constexpr int sign_bits() const { return is_signed() ? 1 : 0; }
  PL_HD constexpr int total_bits() const { return sign_bits() + exponent_bits + mantissa_bits; }
  // Precision p counts the implicit leading bit.
  PL_HD constexpr int precision() const { return mantissa_bits + 1; }
  PL_HD constexpr bool has_subnormals() const { return specials != Specials::E8M0; }
  PL_HD constexpr bool has_inf() const { return specials == Specials::IEEE; }
  PL_HD constexpr bool has_nan() const { return specials != Specials::None; }
  PL_HD constexpr bool has_negative_zero() const {
    return specials == Specials::IEEE || specials == Specials::FN || specials == Specials::None;
  }
  PL_HD constexpr bool has_zero() const { return specials != Specials::E8M0; }

  PL_HD constexpr int max_exponent_field() const { return (1 << exponent_bits) - 1; }
  // Largest exponent field that still holds finite numbers.
  PL_HD constexpr int max_finite_exponent_field() const {
    return (specials == Specials::IEEE || specials == Specials::E8M0) ? max_exponent_field() - 1 : max_exponent_field();
  }
  // Largest mantissa field in the top finite binade (FN gives its all-ones code to NaN).
  PL_HD constexpr uint64_t max_finite_mantissa() const {
    uint64_t all = (uint64_t{1} << mantissa_bits) - 1;
    return specials == Specials::FN ? all - 1 : all;
  }
  // emin: exponent of the smallest normal. E8M0 has no subnormals, so field 0 is normal.
  PL_HD constexpr int emin() const { return has_subnormals() ? 1 - bias : -bias; }
  PL_HD constexpr int emax() const { return max_finite_exponent_field() - bias; }

  PL_HD constexpr uint64_t code_mask() const {
    return total_bits() >= 64 ? ~uint64_t{0} : (uint64_t{1} << total_bits()) - 1;
  }
  PL_HD constexpr uint64_t sign_mask() const {
    return is_signed() ? uint64_t{1} << (exponent_bits + mantissa_bits) : 0;
  }
  PL_HD constexpr uint64_t mantissa_mask() const { return (uint64_t{1} << mantissa_bits) - 1; }

  // Canonical NaN code (positive where the sign is free): quiet bit set for IEEE.
  PL_HD constexpr uint64_t nan_code() const {
    switch (specials) {
      case Specials::IEEE:
        return (uint64_t(max_exponent_field()) << mantissa_bits) | (uint64_t{1} << (mantissa_bits - 1));
      case Specials::FN: return (uint64_t(max_exponent_field()) << mantissa_bits) | mantissa_mask();
      case Specials::FNUZ: return sign_mask();
      case Specials::E8M0: return uint64_t(max_exponent_field());
      case Specials::None: return 0;
    }
    return 0;
  }
  PL_HD constexpr uint64_t inf_code() const { return uint64_t(max_exponent_field()) << mantissa_bits; }
  PL_HD constexpr uint64_t max_finite_code() const {
    return (uint64_t(max_finite_exponent_field()) << mantissa_bits) | max_finite_mantissa();
  }

  PL_HD constexpr bool operator==(const FloatFormat& o) const {
    return exponent_bits == o.exponent_bits && mantissa_bits == o.mantissa_bits && bias == o.bias &&
           specials == o.specials;
  }

  PL_HD constexpr OverflowDefault overflow_default() const {
    switch (specials) {
      case Specials::IEEE: return OverflowDefault::ToInf;
      case Specials::None: return OverflowDefault::Saturate;
      default: return OverflowDefault::ToNaN;
    }
  }
};

// 2^k as a double, exact for -1074 <= k <= 1023; constexpr so limits fold at compile time.
PL_HD constexpr double exp2i(int k) {
  double r = 1.0;
  for (; k > 0; --k) r *= 2.0;
  for (; k < 0; ++k) r *= 0.5;
  return r;
}

// Derived limits. Each is exact in double for every format we accept (validated on creation).
PL_HD constexpr double max_finite(const FloatFormat& f) {
  return (1.0 + double(f.max_finite_mantissa()) * exp2i(-f.mantissa_bits)) * exp2i(f.emax());
}
PL_HD constexpr double min_normal(const FloatFormat& f) { return exp2i(f.emin()); }
PL_HD constexpr double min_subnormal(const FloatFormat& f) {
  return f.has_subnormals() ? exp2i(f.emin() - f.mantissa_bits) : exp2i(f.emin());
}
// Machine epsilon: the gap between 1 and the next larger number, 2^(1-p).
PL_HD constexpr double machine_epsilon(const FloatFormat& f) { return exp2i(-f.mantissa_bits); }
// Unit roundoff u = 2^-p: the largest relative error of round-to-nearest, half of epsilon.
PL_HD constexpr double unit_roundoff(const FloatFormat& f) { return exp2i(-f.precision()); }

}  // namespace pl
