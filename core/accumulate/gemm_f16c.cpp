// The narrow kernel for float16 accumulators with the CPU's float16 conversion (F16C:
// VCVTPS2PH rounds float32 to float16 to nearest even, subnormals and overflow to Inf as IEEE
// says; VCVTPH2PS is exact), instead of RoundScaled's dozen operations. Built with -mavx2
// -mf16c -mfma (core/CMakeLists.txt: float32_sum's fused multiply-add); gemm.cpp calls it only
// on a CPU that has all three.
#include <immintrin.h>

#include "core/accumulate/narrow_lanes.h"

namespace pl::experiment {
namespace {

struct RoundF16c {
  static constexpr bool kWatchSum = false;
  explicit RoundF16c(const NarrowFormat&) {}
  [[gnu::always_inline]] LaneF operator()(LaneU odd) const {
    const __m128i half = _mm256_cvtps_ph(std::bit_cast<__m256>(odd), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return std::bit_cast<LaneF>(_mm256_cvtph_ps(half));
  }
  // Marks every lane on a midpoint of float16, and a few others: a value whose float32 pattern
  // ends in twelve zero bits and that float16 does not hold. Every midpoint does both. In the
  // normal range, [2^-14, 65520], a midpoint is an odd multiple of 2^(e - 11) for a value of
  // exponent e, whose float32 quantum is 2^(e - 23): exactly twelve trailing zeros; and a value
  // with twelve, being 12 bits wide, is a midpoint unless float16 holds it -- the test is exact
  // there. Below 2^-14 a midpoint is an odd multiple of 2^-25, 13 or more trailing zeros at every
  // exponent: marked too, with the rare value of at most 12 significant bits that is not one
  // (its step is only redone, exactly). Zeros, Inf and float16's own values are never marked (the
  // patterns are compared: integer operations only); a NaN may be (redone as NaN). Three vector
  // operations fewer than measuring |value - rounded| against half the quantum.
  [[gnu::always_inline]] LaneF tie_watched(LaneU value, LaneU& ties) const {
    const LaneF rounded = (*this)(value);
    const LaneU twelve_zeros = std::bit_cast<LaneU>((value & 0xfff) == 0);
    ties |= twelve_zeros & ~std::bit_cast<LaneU>(std::bit_cast<LaneU>(rounded) == value);
    return rounded;
  }
};

template <Products kP>
[[gnu::always_inline]] inline void run(size_t rows, bool kahan, const OperandOf<kP>* const* a_rows,
                                       const OperandOf<kP>* panel, size_t k0, size_t k1, NarrowFormat f,
                                       float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  const RoundF16c round(f);
  if (kahan && rows == 8) narrow_kernel<8, true, kP>(a_rows, panel, k0, k1, round, f, s, bad);
  else if (kahan) narrow_kernel<1, true, kP>(a_rows, panel, k0, k1, round, f, s, bad);
  else if (rows == 8) narrow_kernel<8, false, kP>(a_rows, panel, k0, k1, round, f, s, bad);
  else narrow_kernel<1, false, kP>(a_rows, panel, k0, k1, round, f, s, bad);
}

// Each kind of products in two builds, the loader picking one from the CPU: AVX-512's 32 vector
// registers hold Kahan's sixteen sums and compensations with the products beside them, where
// AVX2's 16 spill (a one-core loop of float16 Kahan: 7.9 -> 6.4 cycles a row-step, of float32
// operands 8.4 -> 7.2; docs/performance.md); "default" is this file's own AVX2 + F16C + FMA. Off
// under AddressSanitizer, ThreadSanitizer and clang, as PL_CLONES (target_clones.h).
#if !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define PL_F16C_CLONES __attribute__((target_clones("arch=x86-64-v4", "default")))
#else
#define PL_F16C_CLONES
#endif

PL_F16C_CLONES void run_float32_products(size_t rows, bool kahan, const float* const* a_rows, const float* panel,
                                         size_t k0, size_t k1, NarrowFormat f, float (*s)[kNarrowLanes],
                                         uint32_t (*bad)[kNarrowLanes]) {
  run<Products::kFloat32>(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
}
PL_F16C_CLONES void run_of_float32_operands(size_t rows, bool kahan, const float* const* a_rows, const float* panel,
                                            size_t k0, size_t k1, NarrowFormat f, float (*s)[kNarrowLanes],
                                            uint32_t (*bad)[kNarrowLanes]) {
  run<Products::kOfFloat32Operands>(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
}
PL_F16C_CLONES void run_of_float64_operands(size_t rows, bool kahan, const double* const* a_rows, const double* panel,
                                            size_t k0, size_t k1, NarrowFormat f, float (*s)[kNarrowLanes],
                                            uint32_t (*bad)[kNarrowLanes]) {
  run<Products::kOfFloat64Operands>(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
}

}  // namespace

void lanes_run_narrow_f16c(size_t rows, bool kahan, Products products, const float* const* a_rows, const float* panel,
                           size_t k0, size_t k1, NarrowFormat f, float (*s)[kNarrowLanes],
                           uint32_t (*bad)[kNarrowLanes]) {
  if (products == Products::kFloat32) run_float32_products(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
  else run_of_float32_operands(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
}

void lanes_run_narrow_f16c(size_t rows, bool kahan, const double* const* a_rows, const double* panel, size_t k0,
                           size_t k1, NarrowFormat f, float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  run_of_float64_operands(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
}

}  // namespace pl::experiment
