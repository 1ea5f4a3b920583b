#include "core/experiment/histogram.h"

#include <algorithm>
#include <cmath>

namespace pl::experiment {
namespace {

// Bin of x among increasing edges (left-closed; the last bin includes its right edge),
// found by binary search so bins match the edges exactly whatever rounding made them.
void add(Histogram& h, double x) {
  if (!std::isfinite(x)) {
    ++h.nonfinite;
    return;
  }
  if (h.scale == BinScale::Log10 && x <= 0) {
    ++h.zeros;
    return;
  }
  if (x < h.edges.front()) {
    ++h.below;
    return;
  }
  if (x > h.edges.back()) {
    ++h.above;
    return;
  }
  auto it = std::upper_bound(h.edges.begin(), h.edges.end(), x);
  size_t bin = static_cast<size_t>(it - h.edges.begin()) - 1;
  if (bin >= h.counts.size()) bin = h.counts.size() - 1;  // x == the last edge
  ++h.counts[bin];
}

}  // namespace

uint64_t Histogram::total() const {
  uint64_t n = below + above + zeros + nonfinite;
  for (uint64_t c : counts) n += c;
  return n;
}

Histogram linear_histogram(std::span<const double> values, double lo, double hi, int bins) {
  Histogram h;
  bins = std::max(bins, 1);
  if (!(lo < hi)) hi = lo + 1;  // a degenerate range still gets a usable bin
  for (int i = 0; i <= bins; ++i) h.edges.push_back(lo + (hi - lo) * i / bins);
  h.edges.back() = hi;
  h.counts.assign(static_cast<size_t>(bins), 0);
  for (double x : values) add(h, x);
  return h;
}

Histogram log_histogram(std::span<const double> values, double lo, double hi, int bins) {
  Histogram h;
  h.scale = BinScale::Log10;
  bins = std::max(bins, 1);
  if (!(lo > 0)) lo = 1e-300;
  if (!(lo < hi)) hi = lo * 10;
  const double a = std::log10(lo), b = std::log10(hi);
  for (int i = 0; i <= bins; ++i) h.edges.push_back(std::pow(10.0, a + (b - a) * i / bins));
  h.edges.front() = lo;
  h.edges.back() = hi;
  h.counts.assign(static_cast<size_t>(bins), 0);
  for (double x : values) add(h, x);
  return h;
}

Histogram log_histogram_auto(std::span<const double> values, int bins_per_decade) {
  double lo = INFINITY, hi = 0;
  for (double x : values)
    if (std::isfinite(x) && x > 0) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!(hi > 0)) return log_histogram(values, 1e-1, 1, std::max(bins_per_decade, 1));
  const int d0 = static_cast<int>(std::floor(std::log10(lo)));
  int d1 = static_cast<int>(std::ceil(std::log10(hi)));
  if (d1 <= d0) d1 = d0 + 1;
  return log_histogram(values, std::pow(10.0, d0), std::pow(10.0, d1),
                       (d1 - d0) * std::max(bins_per_decade, 1));
}

}  // namespace pl::experiment
