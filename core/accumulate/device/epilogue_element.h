// One element of the GEMM epilogue (output_steps.h) as plain, device-safe C++17: the GPU's kernel
// (kernels/held_kernels.cu) calls it for arrays kept on the device. The CPU's apply_epilogue,
// which rounds through the codec (round_exact_sum), is the reference: a host test checks the two
// bit for bit (tests/core/accumulate/output_steps_test.cpp). Built without contraction (--fmad=false,
// -ffp-contract=off): TwoProduct and TwoSum below must be exact.
//
// Each step rounds the exact value hi + lo once: rounded to odd at float64's precision first
// (round_to_odd.h), then by roundtrip_f64 -- the codec's own steps -- into the accumulator's
// format in the model's rounding mode, as exact_sum.h's round_sum does with round_to.
#pragma once

#include <cstdint>

#include "core/dtype/device/round_to_odd.h"
#include "core/dtype/device/roundtrip_f64.h"
#include "core/util/host_device.h"

namespace pl::experiment {

// The first stochastic index of the epilogue's stream, apart from the accumulation's: element e
// draws 2^62 + 2e (scale) and 2^62 + 2e + 1 (bias).
inline constexpr uint64_t kEpilogueStream = uint64_t{1} << 62;

struct EpilogueParams {
  bool int32 = false;          // the sums are int32's: converted to float32 first
  bool wide = false;           // the accumulator is float64: its steps do not round
  RoundtripF64Params format;   // the accumulator's format, in the model's rounding mode
  RoundtripF64Params float32;  // float32, nearest even (the int32 conversion)
};

PL_HD inline bool epilogue_finite(double x) { return (f64_bits(x) & 0x7FF0000000000000ull) != 0x7FF0000000000000ull; }

PL_HD inline double epilogue_round(const EpilogueParams& p, double hi, double lo, uint64_t index) {
  if (epilogue_finite(hi)) hi = f64_from_bits(round_to_odd_bits<uint64_t>(hi, lo));
  return roundtrip_f64(hi, p.format, index);
}

// x * factor rounded once (TwoProduct: the fused multiply-add gives the product's error exactly).
PL_HD inline double epilogue_scale(const EpilogueParams& p, double x, double factor, uint64_t index) {
  if (factor == 1.0) return x;
  const double h = x * factor;
  if (p.wide) return h;
#if defined(__CUDA_ARCH__)
  const double lo = __fma_rn(x, factor, -h);
#else
  const double lo = __builtin_fma(x, factor, -h);
#endif
  return epilogue_round(p, h, lo, index);
}

// x + y rounded once (TwoSum).
PL_HD inline double epilogue_add(const EpilogueParams& p, double x, double y, uint64_t index) {
  const double h = x + y;
  if (p.wide) return h;
  const double bb = h - x;
  const double lo = (x - (h - bb)) + (y - bb);
  return epilogue_round(p, h, lo, index);
}

// Element e of the output: the int32 conversion, the scale fa * fb when `scaled`, the bias when
// `bias` points at its column's value.
PL_HD inline double epilogue_element(const EpilogueParams& p, double v, bool scaled, double factor, const double* bias,
                                     uint64_t e) {
  if (p.int32) v = roundtrip_f64(v, p.float32, 0);
  if (scaled) v = epilogue_scale(p, v, factor, kEpilogueStream + 2 * e);
  if (bias) v = epilogue_add(p, v, *bias, kEpilogueStream + 2 * e + 1);
  return v;
}

}  // namespace pl::experiment
