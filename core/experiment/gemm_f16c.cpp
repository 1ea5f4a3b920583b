// The narrow kernel for float16 accumulators with the CPU's float16 conversion (F16C:
// VCVTPS2PH rounds float32 to float16 to nearest even, subnormals and overflow to Inf as IEEE
// says; VCVTPH2PS is exact), instead of RoundScaled's dozen operations. Built with -mavx2
// -mf16c -mfma (core/CMakeLists.txt: float32_sum's fused multiply-add); gemm.cpp calls it only
// on a CPU that has all three.
#include <immintrin.h>

#include "core/experiment/narrow_lanes.h"

namespace pl::experiment {
namespace {

struct RoundF16c {
  static constexpr bool kWatchSum = false;
  explicit RoundF16c(const NarrowFormat&) {}
  [[gnu::always_inline]] LaneF operator()(LaneU odd) const {
    const __m128i half = _mm256_cvtps_ph(std::bit_cast<__m256>(odd), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return std::bit_cast<LaneF>(_mm256_cvtph_ps(half));
  }
  // A midpoint is half a quantum from its rounding: 2^(e - 11) for a value of exponent e in
  // float16's normal range, 2^-25 below it (the subnormals' fixed quantum). The difference is exact
  // (the value and its rounding are within a factor of two, or the rounding is zero); a zero,
  // tiny, Inf or NaN value never matches (the wrapped exponent, or a NaN difference).
  [[gnu::always_inline]] LaneF tie_watched(LaneU value, LaneU& ties) const {
    const LaneF rounded = (*this)(value);
    const LaneU half = umax((value & 0x7f800000) - (11u << 23), LaneU{} + 0x33000000);  // 2^-25
    ties |= (std::bit_cast<LaneU>(std::bit_cast<LaneF>(value) - rounded) & kMagnitude) == half;
    return rounded;
  }
};

template <Products kP>
void run(size_t rows, bool kahan, const OperandOf<kP>* const* a_rows, const OperandOf<kP>* panel, size_t k0,
         size_t k1, NarrowFormat f, float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  const RoundF16c round(f);
  if (kahan && rows == 8) narrow_kernel<8, true, kP>(a_rows, panel, k0, k1, round, f, s, bad);
  else if (kahan) narrow_kernel<1, true, kP>(a_rows, panel, k0, k1, round, f, s, bad);
  else if (rows == 8) narrow_kernel<8, false, kP>(a_rows, panel, k0, k1, round, f, s, bad);
  else narrow_kernel<1, false, kP>(a_rows, panel, k0, k1, round, f, s, bad);
}

}  // namespace

void lanes_run_narrow_f16c(size_t rows, bool kahan, Products products, const float* const* a_rows,
                           const float* panel, size_t k0, size_t k1, NarrowFormat f, float (*s)[kNarrowLanes],
                           uint32_t (*bad)[kNarrowLanes]) {
  if (products == Products::kFloat32) run<Products::kFloat32>(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
  else run<Products::kOfFloat32Operands>(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
}

void lanes_run_narrow_f16c(size_t rows, bool kahan, const double* const* a_rows, const double* panel, size_t k0,
                           size_t k1, NarrowFormat f, float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  run<Products::kOfFloat64Operands>(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
}

}  // namespace pl::experiment
