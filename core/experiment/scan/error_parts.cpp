// Built with -fno-trapping-math (GCC will not if-convert the comparisons and the division beside
// them otherwise) and for AVX-512 and AVX2 as well (PL_CLONES); it reorders no arithmetic.
#include "core/experiment/scan/error_parts.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "core/experiment/scan/error_lanes.h"
#include "core/util/target_clones.h"

namespace pl::experiment {
namespace {

// One element at a time: a NaN in the copy where x is finite counts as an infinite error; an x
// that is not finite counts as none.
ErrorPart errors_exactly(const double* q, const double* x, size_t n) {
  ErrorPart p;
  for (size_t i = 0; i < n; ++i) {
    const double xi = x[i], d = std::fabs(q[i] - xi);
    const double err = std::isfinite(xi) ? (d == d ? d : INFINITY) : 0.0;
    const double ax = std::fabs(xi);
    p.e2 += err * err;
    p.max_abs = std::max(p.max_abs, err);
    if (ax > 0 && ax <= DBL_MAX) p.max_rel = std::max(p.max_rel, err / ax);
  }
  return p;
}

// The same in error_lanes.h's lanes. Where the block holds a NaN or an Inf, in x or in the copy,
// its sum is not finite and the caller sums it again with errors_exactly.
PL_CLONES ErrorPart lanes(const double* q, const double* x, size_t n) {
  ErrorLanes sums;
  for (size_t i = 0; i < n; i += kErrorLanes)  // (the last partial vector padded with zeros in both: no error)
    sums.add(load_lanes(q + i, n - i, 0.0), load_lanes(x + i, n - i, 0.0));
  return sums.fold();
}

}  // namespace

void ErrorPart::add(const ErrorPart& p) {
  e2 += p.e2;
  max_abs = std::max(max_abs, p.max_abs);
  max_rel = std::max(max_rel, p.max_rel);
}

ErrorPart block_errors(const double* q, const double* x, size_t n) {
  const ErrorPart p = lanes(q, x, n);
  return std::isfinite(p.e2) ? p : errors_exactly(q, x, n);
}

}  // namespace pl::experiment
