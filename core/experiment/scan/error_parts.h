// The checkpoint scan's error sums over one block of elements: ||q(x) - x||^2, max |q(x) - x|
// and max |q(x) - x| / |x|, summed in a fixed order inside the block, so that a tensor's figures
// do not depend on how its blocks were shared between cores or which pass computed them
// (tensor_scan.cpp's over quantise()'s arrays, fused_scores.cpp's over its own).
#pragma once

#include <cstddef>

namespace pl::experiment {

inline constexpr size_t kSumBlock = 4096;  // a run of rows is summed in blocks of this many elements

struct ErrorPart {
  double e2 = 0, max_abs = 0, max_rel = 0;
  void add(const ErrorPart& p);  // the next block's, in block order
};

// The sums of q[0, n) against x[0, n): a NaN in q where x is finite counts as an infinite error;
// an x that is not finite counts as none. (In error_lanes.h's lanes when every value is finite;
// element by element otherwise.)
ErrorPart block_errors(const double* q, const double* x, size_t n);

}  // namespace pl::experiment
