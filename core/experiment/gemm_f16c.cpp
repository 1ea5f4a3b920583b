// The narrow kernel for float16 accumulators with the CPU's float16 conversion (F16C:
// VCVTPS2PH rounds float32 to float16 to nearest even, subnormals and overflow to Inf as IEEE
// says; VCVTPH2PS is exact), instead of RoundScaled's dozen operations. Built with -mavx2
// -mf16c (core/CMakeLists.txt); gemm.cpp calls it only on a CPU that has both.
#include <immintrin.h>

#include "core/experiment/narrow_lanes.h"

namespace pl::experiment {
namespace {

struct RoundF16c {
  static constexpr bool kWatchSum = false, kOverflowSticks = true;
  explicit RoundF16c(const NarrowFormat&) {}
  [[gnu::always_inline]] LaneF operator()(LaneU odd) const {
    const __m128i half = _mm256_cvtps_ph(std::bit_cast<__m256>(odd), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return std::bit_cast<LaneF>(_mm256_cvtph_ps(half));
  }
  // In float16's normal range a midpoint's 13 dropped bits are exactly one half; below 2^-14
  // the quantum is fixed (2^-24) and that test means nothing, so every nonzero value there is
  // sent back (rare: it takes a sum that small).
  [[gnu::always_inline]] LaneF tie_watched(LaneU value, LaneU& ties) const {
    ties |= ((value & 0x1fff) == 0x1000) | ((value & kMagnitude) - 1 < 0x38800000 - 1);
    return (*this)(value);
  }
};

}  // namespace

namespace {

template <typename Operand>
void run(size_t rows, bool kahan, const Operand* const* a_rows, const Operand* panel, size_t k0, size_t k1,
         NarrowFormat f, float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  const RoundF16c round(f);
  if (kahan && rows == 8) narrow_kernel<8, true>(a_rows, panel, k0, k1, round, f, s, bad);
  else if (kahan) narrow_kernel<1, true>(a_rows, panel, k0, k1, round, f, s, bad);
  else if (rows == 8) narrow_kernel<8, false>(a_rows, panel, k0, k1, round, f, s, bad);
  else narrow_kernel<1, false>(a_rows, panel, k0, k1, round, f, s, bad);
}

}  // namespace

void lanes_run_narrow_f16c(size_t rows, bool kahan, const float* const* a_rows, const float* panel, size_t k0,
                           size_t k1, NarrowFormat f, float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  run(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
}

void lanes_run_narrow_f16c(size_t rows, bool kahan, const double* const* a_rows, const double* panel, size_t k0,
                           size_t k1, NarrowFormat f, float (*s)[kNarrowLanes], uint32_t (*bad)[kNarrowLanes]) {
  run(rows, kahan, a_rows, panel, k0, k1, f, s, bad);
}

}  // namespace pl::experiment
