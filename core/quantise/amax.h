// amax, the largest finite |x| of a tensor: what scaling recipes compute their scales from
// (scaling.cpp) and what delayed scaling keeps a history of (data_source.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <mutex>
#include <span>

#include "core/quantise/array_counts.h"
#include "core/util/parallel.h"

namespace pl::experiment {

// The largest finite |x| (0 when there is none), on the calling thread: a block's or a row's.
inline double amax_of(std::span<const double> x) { return finite_amax(x); }

// amax_of over a whole tensor on every core (a maximum: the same in any order).
inline double tensor_amax(std::span<const double> x) {
  std::mutex lock;
  double top = 0;
  parallel_for(x.size(), 0, [&](size_t b, size_t e) {
    const double mine = amax_of(x.subspan(b, e - b));
    const std::lock_guard hold(lock);
    top = std::max(top, mine);
  });
  return top;
}

}  // namespace pl::experiment
