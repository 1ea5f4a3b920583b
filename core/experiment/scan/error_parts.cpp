// Built with -fno-trapping-math (GCC will not if-convert the comparisons and the division beside
// them otherwise) and for AVX-512 and AVX2 as well (PL_CLONES); it reorders no arithmetic.
#include "core/experiment/scan/error_parts.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

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

// The same in four lanes whose sums and maxima are folded in a fixed order at the end: lane l
// takes elements l, l + 4, l + 8, ... in turn, every value computed and then chosen between.
// Written with GCC's vector types: GCC would not vectorise the same four lanes written as
// arrays (its SLP pass gave up at the absolute value), and a scalar loop cost a third of the
// scan. Where the block holds a NaN or an Inf, in x or in the copy, its sum is not finite and the
// caller sums it again with errors_exactly.
using Lanes = double __attribute__((vector_size(32)));
using LaneBits = long long __attribute__((vector_size(32)));

inline Lanes abs_of(Lanes v) {
  return reinterpret_cast<Lanes>(reinterpret_cast<LaneBits>(v) & ~(LaneBits{} + (1ll << 63)));
}

PL_CLONES ErrorPart lanes(const double* q, const double* x, size_t n) {
  constexpr size_t kLanes = 4;
  Lanes e2 = {}, top = {}, rel = {};
  const Lanes zero = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes xv, qv;
    std::memcpy(&xv, x + i, sizeof xv);
    std::memcpy(&qv, q + i, sizeof qv);
    const Lanes ax = abs_of(xv), d = abs_of(qv - xv);
    const Lanes r = d / ax;
    e2 += d * d;
    top = d > top ? d : top;
    const Lanes counted = ax > zero ? r : zero;
    rel = counted > rel ? counted : rel;
  }
  ErrorPart p;
  for (size_t l = 0; l < kLanes; ++l) {
    p.e2 += e2[l];
    p.max_abs = std::max(p.max_abs, top[l]);
    p.max_rel = std::max(p.max_rel, rel[l]);
  }
  for (; i < n; ++i) {  // the tail (the same figures: its elements are finite if the sum is)
    const double xi = x[i], ax = std::fabs(xi), d = std::fabs(q[i] - xi);
    p.e2 += d * d;
    p.max_abs = std::max(p.max_abs, d);
    if (ax > 0) p.max_rel = std::max(p.max_rel, d / ax);
  }
  return p;
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
