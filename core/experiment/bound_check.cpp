#include "core/experiment/bound_check.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

#include "core/util/parallel.h"
#include "core/util/target_clones.h"

namespace pl::experiment {
namespace {

constexpr int kPerDecade = 4;
constexpr size_t kBlock = 1024;

struct Tally {
  size_t compared = 0, deterministic = 0, probabilistic = 0;
  double max = 0, min_positive = INFINITY, max_positive = 0;
  DecadeCounter counts{kPerDecade};

  void merge(const Tally& o) {
    compared += o.compared, deterministic += o.deterministic, probabilistic += o.probabilistic;
    max = std::max(max, o.max);
    min_positive = std::min(min_positive, o.min_positive);
    max_positive = std::max(max_positive, o.max_positive);
    counts.merge(o.counts);
  }
};

// Element j's scaled error and whether it is compared (a finite sum and a positive denominator),
// the one definition both the tally and the fallback binning use; branch-free, so the tally's
// loop vectorises.
inline double scaled_error(double acc, double ref, float abs_product, double slack, double bias, bool& compared) {
  constexpr uint64_t kExp = 0x7ff0000000000000ull;
  const double denom = static_cast<double>(abs_product) * slack + std::fabs(bias);
  compared = ((std::bit_cast<uint64_t>(acc) & kExp) != kExp) & (denom > 0);
  return std::fabs(acc - ref) / denom;
}

// One block of a row: the scaled errors, whether each is compared and the counts against the
// bounds, in a loop without branches (it vectorises); then the extremes, in locals.
PL_CLONES void tally_block(const double* __restrict acc, const double* __restrict ref,
                           const float* __restrict abs_product, const double* __restrict bias, size_t len,
                           double slack, const ErrorBounds& bounds, Tally& t) {
  double s[kBlock];
  int64_t take[kBlock];
  const double deterministic = bounds.deterministic, probabilistic = bounds.probabilistic;
  int64_t compared = 0, within_d = 0, within_p = 0;
  for (size_t j = 0; j < len; ++j) {
    bool is_compared;
    const double v = scaled_error(acc[j], ref[j], abs_product[j], slack, bias ? bias[j] : 0.0, is_compared);
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
  t.compared += static_cast<size_t>(compared);
  t.deterministic += static_cast<size_t>(within_d);
  t.probabilistic += static_cast<size_t>(within_p);
  t.max = max, t.min_positive = min_positive, t.max_positive = max_positive;
  t.counts.add_block(s, take, len);
}

}  // namespace

BoundCheck check_bounds(std::span<const double> accumulated, std::span<const double> reference,
                        std::span<const float> abs_product, double slack, std::span<const double> bias, size_t n,
                        const ErrorBounds& bounds) {
  const size_t rows = n ? accumulated.size() / n : 0;
  Tally all;
  std::mutex lock;
  parallel_for(rows, 0, [&](size_t r0, size_t r1) {
    Tally mine;
    for (size_t i = r0; i < r1; ++i)
      for (size_t j0 = 0; j0 < n; j0 += kBlock) {
        const size_t e = i * n + j0;
        tally_block(&accumulated[e], &reference[e], &abs_product[e], bias.empty() ? nullptr : &bias[j0],
                    std::min(kBlock, n - j0), slack, bounds, mine);
      }
    const std::lock_guard hold(lock);
    all.merge(mine);
  }, rows_worth_a_thread(n));
  BoundCheck b;
  b.compared = all.compared;
  b.within_deterministic = all.deterministic;
  b.within_probabilistic = all.probabilistic;
  b.max_scaled = all.max;
  if (auto h = all.counts.histogram(all.min_positive, all.max_positive)) {
    b.scaled = std::move(*h);
    return b;
  }
  // A range past the decade table's: the compared values again, binned the ordinary way.
  std::vector<double> scaled;
  scaled.reserve(all.compared);
  for (size_t e = 0; e < rows * n; ++e) {
    bool is_compared;
    const double v = scaled_error(accumulated[e], reference[e], abs_product[e], slack,
                                  bias.empty() ? 0.0 : bias[e % n], is_compared);
    if (is_compared) scaled.push_back(v);
  }
  b.scaled = log_histogram_auto(scaled, kPerDecade);
  return b;
}

}  // namespace pl::experiment
