#include "core/experiment/histogram.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>

namespace pl::experiment {
namespace {

// Adds values to a histogram. Each value's bin is first guessed from the bin formula, then
// moved until the edges themselves agree (left-closed bins; the last one includes its right
// edge), so bins match the edges exactly whatever rounding made them.
// log10(x) to within ~0.03 for positive normal doubles, from the exponent bits and a linear
// mantissa: only a first guess of the bin (the edges decide), so no libm call per value.
inline double approx_log10(double x) {
  const uint64_t b = std::bit_cast<uint64_t>(x);
  const int biased = static_cast<int>(b >> 52);
  if (biased == 0) return std::log10(x);  // float64 subnormals
  const double mant = std::bit_cast<double>((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  return (static_cast<double>(biased - 1023) + (mant - 1.0)) * 0.30102999566398120;
}

class Binner {
 public:
  explicit Binner(Histogram& h)
      : h_(h), bins_(h.counts.size()), log_(h.scale == BinScale::Log10),
        origin_(log_ ? std::log10(h.edges.front()) : h.edges.front()),
        per_unit_(static_cast<double>(bins_) /
                  ((log_ ? std::log10(h.edges.back()) : h.edges.back()) - origin_)) {}

  void add(double x) {
    if (!std::isfinite(x)) {
      ++h_.nonfinite;
      return;
    }
    if (log_ && x <= 0) {
      ++h_.zeros;
      return;
    }
    if (x < h_.edges.front()) {
      ++h_.below;
      return;
    }
    if (x > h_.edges.back()) {
      ++h_.above;
      return;
    }
    const double pos = ((log_ ? approx_log10(x) : x) - origin_) * per_unit_;
    size_t bin = static_cast<size_t>(std::clamp(pos, 0.0, static_cast<double>(bins_ - 1)));
    while (bin > 0 && x < h_.edges[bin]) --bin;
    while (bin + 1 < bins_ && x >= h_.edges[bin + 1]) ++bin;
    ++h_.counts[bin];
  }

 private:
  Histogram& h_;
  size_t bins_;
  bool log_;
  double origin_, per_unit_;
};

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
  Binner binner(h);
  for (double x : values) binner.add(x);
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
  Binner binner(h);
  for (double x : values) binner.add(x);
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
