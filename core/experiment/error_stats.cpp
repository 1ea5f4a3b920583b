#include "core/experiment/error_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/dtype/describe.h"

namespace pl::experiment {
namespace {

// The q-quantile (nearest rank, as NumPy's "inverted_cdf" method), selecting within
// v[from, end): every element before `from` is no larger than the ones after it. Quantiles
// asked in increasing order each narrow the range for the next (linear time, no full sort).
double quantile(std::vector<double>& v, double q, size_t& from) {
  if (v.empty()) return 0;
  const size_t rank = std::clamp<size_t>(
      static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))), 1, v.size()) - 1;
  std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(from),
                   v.begin() + static_cast<std::ptrdiff_t>(rank), v.end());
  from = rank;
  return v[rank];
}

}  // namespace

ErrorStats error_stats(std::span<const double> result, std::span<const double> reference,
                       DType output, double rel_floor) {
  return error_stats(result, reference, output, rel_floor, nullptr);
}

ErrorStats error_stats(std::span<const double> result, std::span<const double> reference,
                       DType output, double rel_floor, ElementErrors* elements) {
  const FloatFormat& f = info(output).format;
  ErrorStats s;
  s.rel_floor = rel_floor > 0 ? rel_floor : std::ldexp(1.0, f.emin());
  const double top = pl::max_finite(f);
  const double cap_bits = f.precision();
  std::vector<double> abs_errors;
  abs_errors.reserve(result.size());
  double sum_abs = 0, sum_sq = 0, sum_ref_sq = 0, sum_rel = 0, sum_ulp = 0, sum_bits = 0;
  s.min_bits = cap_bits;
  const size_t n = std::min(result.size(), reference.size());
  for (size_t i = 0; i < n; ++i) {
    const double r = result[i], ref = reference[i];
    if (!std::isfinite(ref)) continue;  // nothing to measure against
    if (std::isnan(r)) { ++s.nan; continue; }
    if (std::isinf(r)) { ++s.inf; continue; }
    if (std::fabs(r) == top && std::fabs(ref) > top) ++s.saturated;
    if (r == 0 && ref != 0) ++s.flushed;
    const double e = std::fabs(r - ref);
    const double rel = e / std::max(std::fabs(ref), s.rel_floor);
    const double ulps = e / ulp_at(f, ref);  // describe.h's ulp_at, as cast reports it
    if (elements) {
      elements->signed_error.push_back(r - ref);
      elements->relative.push_back(rel);
      elements->ulps.push_back(ulps);
    }
    const double bits = e == 0 ? cap_bits : std::clamp(-std::log2(rel), 0.0, cap_bits);
    ++s.count;
    abs_errors.push_back(e);
    sum_abs += e;
    sum_sq += e * e;
    sum_ref_sq += ref * ref;
    sum_rel += rel;
    sum_ulp += ulps;
    sum_bits += bits;
    s.max_abs = std::max(s.max_abs, e);
    s.max_rel = std::max(s.max_rel, rel);
    s.max_ulp = std::max(s.max_ulp, ulps);
    s.min_bits = std::min(s.min_bits, bits);
  }
  if (s.count == 0) {
    s.min_bits = 0;
    return s;
  }
  const double c = static_cast<double>(s.count);
  s.mean_abs = sum_abs / c;
  s.rms_abs = std::sqrt(sum_sq / c);
  s.mean_rel = sum_rel / c;
  s.mean_ulp = sum_ulp / c;
  s.mean_bits = sum_bits / c;
  s.normwise_rel = sum_ref_sq > 0 ? std::sqrt(sum_sq / sum_ref_sq) : (sum_sq > 0 ? INFINITY : 0);
  s.sqnr_db = sum_sq > 0 ? 10 * std::log10(sum_ref_sq / sum_sq) : INFINITY;
  size_t from = 0;
  s.p50_abs = quantile(abs_errors, 0.50, from);
  s.p90_abs = quantile(abs_errors, 0.90, from);
  s.p99_abs = quantile(abs_errors, 0.99, from);
  return s;
}

}  // namespace pl::experiment
