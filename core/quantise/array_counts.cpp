// Built with -fno-trapping-math (GCC will not if-convert a floating-point comparison that could
// raise an exception flag; nothing here reads one) and for AVX-512 and AVX2 as well (PL_CLONES).
#include "core/quantise/array_counts.h"

#include <cfloat>
#include <cmath>

#include "core/util/target_clones.h"
#include "core/util/vector_lanes.h"

namespace pl::experiment {
namespace {

PL_CLONES size_t zeros(const double* v, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) k += v[i] == 0;
  return k;
}

PL_CLONES size_t past(const double* v, size_t n, double top) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) k += std::fabs(v[i]) > top;
  return k;
}

// The maxima in vector_lanes.h's eight lanes (GCC left the same lanes written as arrays to scalar
// code for NVFP4's blocks of 16), folded by halves at the end.
using Quarter = double __attribute__((vector_size(16), aligned(16)));

// The largest of m's lanes.
[[gnu::always_inline]] inline double lane_max(Lanes m) {
  const HalfLanes h = m.h[0] > m.h[1] ? m.h[0] : m.h[1];
  const Quarter q0 = __builtin_shufflevector(h, h, 0, 1), q1 = __builtin_shufflevector(h, h, 2, 3);
  const Quarter q = q0 > q1 ? q0 : q1;
  return q[0] > q[1] ? q[0] : q[1];
}

// m and |x| where x is finite (an Inf or a NaN counts as nothing), the larger in each lane.
[[gnu::always_inline]] inline Lanes finite_max(Lanes m, const double* v) {
  const Lanes zero{};
  const Lanes a = abs_of(load_lanes(v));
  const Lanes finite = select(a <= DBL_MAX, a, zero);
  return select(finite > m, finite, m);
}

// Eight running maxima, folded at the end: a maximum is exact, so the order does not matter.
PL_CLONES double amax(const double* v, size_t n) {
  constexpr size_t kLanes = kVectorLanes;
  Lanes m{};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) m = finite_max(m, v + i);
  double top = lane_max(m);
  for (; i < n; ++i) {
    const double a = std::fabs(v[i]);
    if (a <= DBL_MAX && a > top) top = a;
  }
  return top;
}

// Whole blocks of a multiple of eight in eight lanes each: a single running maximum is a chain of
// dependent maxima, four cycles an element. The rest, and other sizes, one at a time.
PL_CLONES void blocks(const double* v, size_t n, size_t block, double* out) {
  constexpr size_t kLanes = kVectorLanes;
  size_t b0 = 0;
  if (block % kLanes == 0)
    for (; b0 + block <= n; b0 += block) {
      Lanes m{};
      for (size_t i = b0; i < b0 + block; i += kLanes) m = finite_max(m, v + i);
      *out++ = lane_max(m);
    }
  for (; b0 < n; b0 += block) {
    const size_t b1 = b0 + block < n ? b0 + block : n;
    double top = 0;
    for (size_t i = b0; i < b1; ++i) {
      const double a = std::fabs(v[i]);
      if (a <= DBL_MAX && a > top) top = a;
    }
    *out++ = top;
  }
}

}  // namespace

void block_amaxes(std::span<const double> row, size_t block, double* out) {
  if (block == 0) return;  // (no blocks to take)
  blocks(row.data(), row.size(), block, out);
}

size_t count_zeros(std::span<const double> v) { return zeros(v.data(), v.size()); }
size_t count_past(std::span<const double> v, double top) { return past(v.data(), v.size(), top); }
double finite_amax(std::span<const double> v) { return amax(v.data(), v.size()); }

}  // namespace pl::experiment
