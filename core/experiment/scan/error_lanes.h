// The order in which the scan adds a block's errors, defined once for both of its paths (the
// sums over quantise()'s arrays in error_parts.cpp and the fused pass in fused_scores.cpp): eight
// lanes, lane l taking elements l, l + 8, l + 16, ... of the block in turn, the block's last
// partial vector padded with elements of no error, and the lanes folded in order at the end.
// Written with GCC's vector types: GCC does not vectorise the same lanes written as arrays (its
// SLP pass gives up at the absolute value), and the compiler splits the eight lanes into the
// registers each target has without changing what is added to what.
#pragma once

#include <algorithm>
#include <cstddef>

#include "core/experiment/scan/error_parts.h"

namespace pl::experiment {

inline constexpr size_t kErrorLanes = 8;

// Aligned as wide as they are whatever the target: without AVX-512 GCC would align them to 16
// bytes, and the AVX-512 clone of a function (PL_CLONES) reading them from the caller's memory
// would fault on its aligned loads.
using Lanes = double __attribute__((vector_size(kErrorLanes * sizeof(double)), aligned(kErrorLanes * sizeof(double))));
using LaneMask = long long __attribute__((vector_size(kErrorLanes * sizeof(long long)),
                                          aligned(kErrorLanes * sizeof(long long))));  // -1 or 0

[[gnu::always_inline]] inline Lanes abs_of(Lanes v) {
  return reinterpret_cast<Lanes>(reinterpret_cast<LaneMask>(v) & ~(LaneMask{} + (1ll << 63)));
}

// Every value is computed and then chosen between, so the loop has no branches. A NaN or an Inf
// anywhere makes e2 not finite, and the callers then take the block element by element.
struct ErrorLanes {
  Lanes e2{}, max_abs{}, max_rel{};

  [[gnu::always_inline]] void add(Lanes q, Lanes x) {
    const Lanes zero{};
    const Lanes ax = abs_of(x), d = abs_of(q - x);
    const Lanes rel = d / ax;
    e2 += d * d;
    max_abs = d > max_abs ? d : max_abs;
    const Lanes counted = ax > zero ? rel : zero;
    max_rel = counted > max_rel ? counted : max_rel;
  }

  ErrorPart fold() const {
    ErrorPart p;
    for (size_t l = 0; l < kErrorLanes; ++l) {
      p.e2 += e2[l];
      p.max_abs = std::max(p.max_abs, max_abs[l]);
      p.max_rel = std::max(p.max_rel, max_rel[l]);
    }
    return p;
  }
};

}  // namespace pl::experiment
