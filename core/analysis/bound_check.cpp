#include "core/analysis/bound_check.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "core/util/target_clones.h"

namespace pl::experiment {
namespace {

constexpr size_t kBlock = 1024;

// Element j's scaled error and whether it is compared (a finite sum and a positive denominator),
// the one definition both the tally and the fallback binning use; branch-free, so the tally's
// loop vectorises.
inline double scaled_error(double acc, double abs_error, float abs_product, double slack, double bias, bool& compared) {
  constexpr uint64_t kExp = 0x7ff0000000000000ull;
  const double denom = static_cast<double>(abs_product) * slack + std::fabs(bias);
  compared = ((std::bit_cast<uint64_t>(acc) & kExp) != kExp) & (denom > 0);
  return abs_error / denom;
}

struct BlockTally {
  int64_t compared = 0, within_d = 0, within_p = 0;
  double max, min_positive, max_positive;
};

// One block within a row: the scaled errors, whether each is compared and the counts against
// the bounds, in a loop without branches (it vectorises); then the extremes, in locals.
PL_CLONES void tally_block(const double* __restrict acc, const double* __restrict abs_error,
                           const float* __restrict abs_product, const double* __restrict bias, size_t len, double slack,
                           const ErrorBounds& bounds, BlockTally& t, double* __restrict s, int64_t* __restrict take) {
  const double deterministic = bounds.deterministic, probabilistic = bounds.probabilistic;
  int64_t compared = 0, within_d = 0, within_p = 0;
  for (size_t j = 0; j < len; ++j) {
    bool is_compared;
    const double v = scaled_error(acc[j], abs_error[j], abs_product[j], slack, bias ? bias[j] : 0.0, is_compared);
    const int64_t use = is_compared;
    s[j] = v;
    take[j] = -use;
    compared += use;
    within_d += use & (v <= deterministic);
    within_p += use & (v <= probabilistic);
  }
  double max = t.max, min_positive = t.min_positive, max_positive = t.max_positive;
  for (size_t j = 0; j < len; ++j) {
    const double v = take[j] ? s[j] : 0.0;
    max = std::max(max, v);  // a NaN (a reference that is not finite) leaves it
    if (v > 0 && v <= std::numeric_limits<double>::max())
      min_positive = std::min(min_positive, v), max_positive = std::max(max_positive, v);
  }
  t.compared += compared, t.within_d += within_d, t.within_p += within_p;
  t.max = max, t.min_positive = min_positive, t.max_positive = max_positive;
}

}  // namespace

void BoundTally::add(size_t first, const double* accumulated, const double* abs_error, size_t len) {
  const BoundInputs& in = *in_;
  double s[kBlock];
  int64_t take[kBlock];
  BlockTally t{0, 0, 0, max_, min_positive_, max_positive_};
  // In pieces that stay within one row (the bias is per column) and within the buffers.
  for (size_t done = 0; done < len;) {
    const size_t e = first + done, j = e % in.n;
    const size_t piece = std::min({kBlock, len - done, in.n - j});
    tally_block(accumulated + done, abs_error + done, &in.abs_product[e], in.bias.empty() ? nullptr : &in.bias[j],
                piece, in.slack, in.bounds, t, s, take);
    counts_.add_block(s, take, piece);
    done += piece;
  }
  compared_ += static_cast<size_t>(t.compared);
  deterministic_ += static_cast<size_t>(t.within_d);
  probabilistic_ += static_cast<size_t>(t.within_p);
  max_ = t.max, min_positive_ = t.min_positive, max_positive_ = t.max_positive;
}

void BoundTally::merge(const BoundTally& o) {
  compared_ += o.compared_, deterministic_ += o.deterministic_, probabilistic_ += o.probabilistic_;
  max_ = std::max(max_, o.max_);
  min_positive_ = std::min(min_positive_, o.min_positive_);
  max_positive_ = std::max(max_positive_, o.max_positive_);
  counts_.merge(o.counts_);
}

void BoundTally::add_counts(size_t compared, size_t within_deterministic, size_t within_probabilistic, double max,
                            double min_positive, double max_positive, std::span<const uint64_t> per_slot) {
  compared_ += compared, deterministic_ += within_deterministic, probabilistic_ += within_probabilistic;
  max_ = std::max(max_, max);
  min_positive_ = std::min(min_positive_, min_positive);
  max_positive_ = std::max(max_positive_, max_positive);
  counts_.add_counts(per_slot);
}

bool BoundTally::needs_arrays() const { return !counts_.histogram(min_positive_, max_positive_).has_value(); }

BoundCheck BoundTally::finish(std::span<const double> accumulated, std::span<const double> reference) const {
  BoundCheck b;
  b.compared = compared_;
  b.within_deterministic = deterministic_;
  b.within_probabilistic = probabilistic_;
  b.max_scaled = max_;
  if (auto h = counts_.histogram(min_positive_, max_positive_)) {
    b.scaled = std::move(*h);
    return b;
  }
  // A range past the octave table's: the compared values again, binned the ordinary way.
  const BoundInputs& in = *in_;
  std::vector<double> scaled;
  scaled.reserve(compared_);
  for (size_t e = 0; e < accumulated.size(); ++e) {
    bool is_compared;
    const double v = scaled_error(accumulated[e], std::fabs(accumulated[e] - reference[e]), in.abs_product[e], in.slack,
                                  in.bias.empty() ? 0.0 : in.bias[e % in.n], is_compared);
    if (is_compared) scaled.push_back(v);
  }
  b.scaled = log_histogram_auto(scaled, kPerOctave);
  return b;
}

}  // namespace pl::experiment
