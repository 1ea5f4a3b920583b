// The order in which the scan adds a block's errors, defined once for both of its paths (the
// sums over quantise()'s arrays in error_parts.cpp and the fused pass in fused_scores.cpp): eight
// lanes, lane l taking elements l, l + 8, l + 16, ... of the block in turn, the block's last
// partial vector padded with elements of no error, and the lanes folded in order at the end.
// Written with vector_lanes.h's lanes.
#pragma once

#include <algorithm>
#include <cstddef>

#include "core/experiment/scan/error_parts.h"
#include "core/util/vector_lanes.h"

namespace pl::experiment {

inline constexpr size_t kErrorLanes = kVectorLanes;

// Every value is computed and then chosen between, so the loop has no branches. A NaN or an Inf
// anywhere makes e2 not finite, and the callers then take the block element by element.
struct ErrorLanes {
  Lanes e2{}, max_abs{}, max_rel{};

  [[gnu::always_inline]] void add(Lanes q, Lanes x) {
    const Lanes zero{};
    const Lanes ax = abs_of(x), d = abs_of(q - x);
    const Lanes rel = d / ax;
    e2 += d * d;
    max_abs = select(d > max_abs, d, max_abs);
    const Lanes counted = select(ax > zero, rel, zero);
    max_rel = select(counted > max_rel, counted, max_rel);
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
