// Eight doubles as one GCC vector, for hot loops written once for every target (PL_CLONES,
// target_clones.h): GCC does not vectorise the same lanes written as arrays where a loop takes an
// absolute value or a maximum, and it splits the eight lanes into the registers each target has
// without changing what is added to what.
#pragma once

#include <cstddef>
#include <cstring>

namespace pl {

inline constexpr size_t kVectorLanes = 8;

// Aligned as wide as they are whatever the target: without AVX-512 GCC would align them to 16
// bytes, and the AVX-512 clone of a function reading them from the caller's memory would fault
// on its aligned loads.
using Lanes = double __attribute__((vector_size(kVectorLanes * sizeof(double)), aligned(kVectorLanes * sizeof(double))));
using LaneMask = long long __attribute__((vector_size(kVectorLanes * sizeof(long long)),
                                          aligned(kVectorLanes * sizeof(long long))));  // -1 or 0

// Always inlined, as everything here that takes or returns lanes by value: a function of its own
// would be compiled for baseline x86-64, which passes 64 bytes through memory, while an AVX-512
// clone calling it expects them in a register (an unoptimised build read garbage).
[[gnu::always_inline]] inline Lanes abs_of(Lanes v) {
  return reinterpret_cast<Lanes>(reinterpret_cast<LaneMask>(v) & ~(LaneMask{} + (1ll << 63)));
}

// x[0, 8).
[[gnu::always_inline]] inline Lanes load_lanes(const double* x) {
  Lanes v;
  std::memcpy(&v, x, sizeof v);
  return v;
}

// x[0, n) for n up to 8, the lanes past n set to `fill`.
[[gnu::always_inline]] inline Lanes load_lanes(const double* x, size_t n, double fill) {
  if (n >= kVectorLanes) return load_lanes(x);
  Lanes v = Lanes{} + fill;
  for (size_t l = 0; l < n; ++l) v[l] = x[l];
  return v;
}

}  // namespace pl
