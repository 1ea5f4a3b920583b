// The arithmetic error of a matrix product against its accumulation model's bounds: for each
// output element, |Cacc - Rq| / ((|A||B|)_ij + |bias_j|) -- the error the accumulation made,
// relative to the sum of the magnitudes it added -- compared with the deterministic bound and the
// probabilistic estimate (the share within it is a measurement, not a bound's promise), and binned
// for the figures.
#pragma once

#include <cmath>
#include <cstddef>
#include <memory>
#include <span>

#include "core/accumulate/accumulate.h"
#include "core/analysis/histogram.h"

namespace pl::experiment {

struct BoundCheck {
  size_t compared = 0;  // elements with a finite sum and a positive denominator
  size_t within_deterministic = 0, within_probabilistic = 0;
  double max_scaled = 0;  // the largest scaled error
  Histogram scaled;       // log bins, one an octave, over the positive ones
};

// What the check compares against. abs_product: (|A||B|)_ij in float32 (m x n row-major),
// perhaps times a power of two that kept it in float32's range, and taken times `slack`, which
// undoes that power and leaves the denominator never above the exact one; bias: n values or
// none; n: the output's columns.
struct BoundInputs {
  std::span<const float> abs_product;
  double slack = 1;
  std::span<const double> bias;
  size_t n = 0;
  ErrorBounds bounds;
  // Optional: an object keeping abs_product unchanged while it lives (abs_product.h's, kept across
  // re-runs): a device may then keep its copy for the next comparison instead of uploading it.
  std::shared_ptr<const void> abs_owner;
};

// One thread's share of the check, fed block by block with |Cacc - Rq| by a caller that has it
// anyway: error_stats' first pass, which reads Cacc and Rq for the arithmetic error's
// statistics (checking apart would read both again). Tallies merge in any order;
// the counts do not depend on how the elements were split.
class BoundTally {
 public:
  static constexpr int kPerOctave = 1;  // log bins an octave of the scaled errors (ratio 1 is an edge)
  explicit BoundTally(const BoundInputs& in) : in_(&in) {}
  // Elements [first, first + len) of the output: the accumulated values and |acc - ref| as
  // std::fabs(acc - ref) gives it.
  void add(size_t first, const double* accumulated, const double* abs_error, size_t len);
  void merge(const BoundTally& o);
  // A tally made elsewhere (a device's, kernels/error_pass.h): its counts, extremes and the
  // scaled errors' octave counts, one per slot of OctaveBins::get(kPerOctave).counted_slots().
  void add_counts(size_t compared, size_t within_deterministic, size_t within_probabilistic, double max,
                  double min_positive, double max_positive, std::span<const uint64_t> per_slot);
  // Whether finish() reads accumulated and reference: when the scaled errors range past the
  // octave table (below 2^-1022 or past 2^1023).
  bool needs_arrays() const;
  // The result; accumulated and reference (the whole output) are read again only when
  // needs_arrays().
  BoundCheck finish(std::span<const double> accumulated, std::span<const double> reference) const;

 private:
  const BoundInputs* in_;
  size_t compared_ = 0, deterministic_ = 0, probabilistic_ = 0;
  double max_ = 0, min_positive_ = INFINITY, max_positive_ = 0;
  OctaveCounter counts_{kPerOctave};
};

}  // namespace pl::experiment
