// Built with -fno-trapping-math (GCC will not if-convert a floating-point comparison that could
// raise an exception flag; nothing here reads one) and for AVX-512 and AVX2 as well (PL_CLONES).
#include "core/quantise/array_counts.h"

#include <cfloat>
#include <cmath>

#include "core/util/target_clones.h"

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

// Eight running maxima, folded at the end: a maximum is exact, so the order does not matter.
PL_CLONES double amax(const double* v, size_t n) {
  constexpr size_t kLanes = 8;
  double m[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t l = 0; l < kLanes; ++l) {
      const double a = std::fabs(v[i + l]);
      const double finite = a <= DBL_MAX ? a : 0.0;  // an Inf or a NaN counts as nothing
      m[l] = finite > m[l] ? finite : m[l];
    }
  double top = 0;
  for (double x : m) top = x > top ? x : top;
  for (; i < n; ++i) {
    const double a = std::fabs(v[i]);
    if (a <= DBL_MAX && a > top) top = a;
  }
  return top;
}

// Whole blocks of a multiple of eight in eight lanes each: a single running maximum is a chain of
// dependent maxima, four cycles an element. The rest, and other sizes, one at a time.
PL_CLONES void blocks(const double* v, size_t n, size_t block, double* out) {
  constexpr size_t kLanes = 8;
  size_t b0 = 0;
  if (block % kLanes == 0)
    for (; b0 + block <= n; b0 += block) {
      double m[kLanes] = {};
      for (size_t i = b0; i < b0 + block; i += kLanes)
        for (size_t l = 0; l < kLanes; ++l) {
          const double a = std::fabs(v[i + l]);
          const double finite = a <= DBL_MAX ? a : 0.0;
          m[l] = finite > m[l] ? finite : m[l];
        }
      double top = 0;
      for (double x : m) top = x > top ? x : top;
      *out++ = top;
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
