// Histograms binned once in core, so the screen, the exported figures and the CSV all show
// the same bins: linear bins for signed errors, log-spaced bins for magnitudes (relative
// errors span many decades).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace pl::experiment {

enum class BinScale : uint8_t { Linear, Log10 };

struct Histogram {
  BinScale scale = BinScale::Linear;
  std::vector<double> edges;     // bins + 1 increasing edges; bin i is [edges[i], edges[i+1])
  std::vector<uint64_t> counts;  // one per bin; the last bin also takes its right edge
  uint64_t below = 0;            // values under edges.front() (Log10: positive ones)
  uint64_t above = 0;            // values over edges.back()
  uint64_t zeros = 0;            // Log10 only: values <= 0, which have no place on a log axis
  uint64_t nonfinite = 0;        // NaN and +-Inf
  uint64_t total() const;        // every value given
};

// Empty histograms (every count zero) with their edges, to fill with add():
// `bins` equal-width bins over [lo, hi] (lo < hi);
Histogram linear_bins(double lo, double hi, int bins);
// `bins` bins equal in log10 over [lo, hi] (0 < lo < hi);
Histogram log_bins(double lo, double hi, int bins);
// log bins over whole decades covering [min_positive, max_positive] (one decade, 0.1 to 1,
// when there is no positive value).
Histogram log_bins_auto(double min_positive, double max_positive, int bins_per_decade);

// Counts values into h's bins (or below / above / zeros / nonfinite).
void add(Histogram& h, std::span<const double> values);
// Adds the counts of `from`, a histogram with the same edges, into `into`.
void merge(Histogram& into, const Histogram& from);

// `bins` equal-width bins over [lo, hi] (lo < hi).
Histogram linear_histogram(std::span<const double> values, double lo, double hi, int bins);

// `bins` bins equal in log10 over [lo, hi] (0 < lo < hi).
Histogram log_histogram(std::span<const double> values, double lo, double hi, int bins);

// A log histogram whose range covers the positive finite values, widened to whole decades.
Histogram log_histogram_auto(std::span<const double> values, int bins_per_decade = 4);

}  // namespace pl::experiment
