#include "core/experiment/scan/tensor_scan.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <optional>

#include "core/dtype/device/stochastic.h"
#include "core/quantise/amax.h"
#include "core/util/parallel.h"
#include "core/util/printable.h"
#include "core/util/target_clones.h"

namespace pl::experiment {
namespace {

constexpr size_t kSumBlock = 4096;  // partial sums per block, added in block order

// fn(begin, end) -> Part over fixed blocks of `n` elements, on every core; the parts folded in
// block order with `add`, so the total does not depend on how the blocks were shared out.
template <typename Part, typename Fn, typename Add>
Part fold_blocks(size_t n, Fn&& fn, Add&& add) {
  const size_t blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<Part> parts(blocks);
  parallel_for(
      blocks, 0,
      [&](size_t b0, size_t b1) {
        for (size_t b = b0; b < b1; ++b) parts[b] = fn(b * kSumBlock, std::min(n, (b + 1) * kSumBlock));
      },
      4);
  Part total{};
  for (const Part& p : parts) add(total, p);
  return total;
}

struct Moments {  // over finite elements
  double s1 = 0, s2 = 0, amax = 0;
  size_t finite = 0, nonfinite = 0;
  void add(const Moments& m) {
    s1 += m.s1, s2 += m.s2, amax = std::max(amax, m.amax);
    finite += m.finite, nonfinite += m.nonfinite;
  }
};

Moments moments_of(std::span<const double> x) {
  return fold_blocks<Moments>(
      x.size(),
      [&](size_t b, size_t e) {
        Moments m;
        for (size_t i = b; i < e; ++i) {
          const double v = x[i];
          if (!std::isfinite(v)) {
            ++m.nonfinite;
            continue;
          }
          m.s1 += v, m.s2 += v * v;
          m.amax = std::max(m.amax, std::fabs(v));
          ++m.finite;
        }
        return m;
      },
      [](Moments& t, const Moments& m) { t.add(m); });
}

struct Central {  // sums of (x - mean)^2 and (x - mean)^4 over finite elements: the kurtosis
  double c2 = 0, c4 = 0;
};

Central central_of(std::span<const double> x, double mean) {
  return fold_blocks<Central>(
      x.size(),
      [&](size_t b, size_t e) {
        Central c;
        for (size_t i = b; i < e; ++i)
          if (std::isfinite(x[i])) {
            const double d2 = (x[i] - mean) * (x[i] - mean);
            c.c2 += d2, c.c4 += d2 * d2;
          }
        return c;
      },
      [](Central& t, const Central& c) { t.c2 += c.c2, t.c4 += c.c4; });
}

struct ErrorPart {
  double e2 = 0, max_abs = 0, max_rel = 0;
};

// The error sums of elements [b, e) one at a time: a NaN in the copy where x is finite counts as
// an infinite error; an x that is not finite counts as none.
ErrorPart errors_exactly(std::span<const double> q, std::span<const double> x, size_t b, size_t e) {
  ErrorPart p;
  for (size_t i = b; i < e; ++i) {
    const double xi = x[i], d = std::fabs(q[i] - xi);
    const double err = std::isfinite(xi) ? (d == d ? d : INFINITY) : 0.0;
    const double ax = std::fabs(xi);
    p.e2 += err * err;
    p.max_abs = std::max(p.max_abs, err);
    if (ax > 0 && ax <= DBL_MAX) p.max_rel = std::max(p.max_rel, err / ax);
  }
  return p;
}

// The same in four lanes whose sums and maxima are folded in a fixed order at the end of each
// block, every value computed and then chosen between: a loop the compiler vectorises (one
// running sum would be added in order, an element at a time, and a condition around a division
// is not vectorised). Where the block holds a NaN or an Inf, in x or in the copy, its sum is not
// finite and the block is summed again by errors_exactly.
PL_CLONES ErrorPart error_block(const double* q, const double* x, size_t b, size_t e) {
  constexpr size_t kLanes = 4;
  double e2[kLanes] = {}, top[kLanes] = {}, rel[kLanes] = {};
  size_t i = b;
  for (; i + kLanes <= e; i += kLanes)
    for (size_t l = 0; l < kLanes; ++l) {
      const double xi = x[i + l], ax = std::fabs(xi), d = std::fabs(q[i + l] - xi);
      const double r = d / ax;
      e2[l] += d * d;
      top[l] = d > top[l] ? d : top[l];
      const double counted = ax > 0 ? r : 0.0;
      rel[l] = counted > rel[l] ? counted : rel[l];
    }
  ErrorPart p;
  for (size_t l = 0; l < kLanes; ++l) {
    p.e2 += e2[l];
    p.max_abs = std::max(p.max_abs, top[l]);
    p.max_rel = std::max(p.max_rel, rel[l]);
  }
  for (; i < e; ++i) {  // the block's tail (the same figures: its elements are finite if the sum is)
    const double xi = x[i], ax = std::fabs(xi), d = std::fabs(q[i] - xi);
    p.e2 += d * d;
    p.max_abs = std::max(p.max_abs, d);
    if (ax > 0) p.max_rel = std::max(p.max_rel, d / ax);
  }
  return p;
}

ErrorPart errors_of(std::span<const double> q, std::span<const double> x) {
  return fold_blocks<ErrorPart>(
      x.size(),
      [&](size_t b, size_t e) {
        const ErrorPart p = error_block(q.data(), x.data(), b, e);
        return std::isfinite(p.e2) ? p : errors_exactly(q, x, b, e);
      },
      [](ErrorPart& t, const ErrorPart& p) {
        t.e2 += p.e2;
        t.max_abs = std::max(t.max_abs, p.max_abs);
        t.max_rel = std::max(t.max_rel, p.max_rel);
      });
}

// The first pass: amax, rms and the mean (the kurtosis's central sums wait for the second pass,
// which knows the mean: raw power sums cancel badly when the mean is large against the spread),
// and every row's amax for the channel spread.
TensorStats stats_pass(const io::MappedFile& shard, const io::CheckpointTensor& t, size_t rows, size_t cols,
                       size_t chunk_rows, const std::atomic<bool>* cancel,
                       const std::function<void(uint64_t)>& progress, Moments& m, Status& failed) {
  std::vector<double> values, row_amax(rows);
  for (size_t r0 = 0; r0 < rows; r0 += chunk_rows) {
    if (cancel && cancel->load()) return {};
    const size_t k = std::min(chunk_rows, rows - r0);
    if (auto st = io::read_elements(shard, t, r0 * cols, k * cols, values); !st) {
      failed = st;
      return {};
    }
    m.add(moments_of(values));
    if (progress) progress((r0 + k) * cols * (t.bytes / t.params) / 2);  // the first of two passes
    parallel_for(
        k, 0,
        [&](size_t a, size_t b) {
          for (size_t r = a; r < b; ++r) row_amax[r0 + r] = amax_of(std::span(values).subspan(r * cols, cols));
        },
        rows_worth_a_thread(cols));
  }
  TensorStats s;
  s.amax = m.amax;
  s.nonfinite = m.nonfinite;
  if (m.finite > 0) {
    s.rms = std::sqrt(m.s2 / double(m.finite));
    s.amax_over_rms = s.rms > 0 ? s.amax / s.rms : 0;
  }
  if (rows > 1) {
    std::vector<double> sorted = row_amax;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(rows / 2), sorted.end());
    const double median = sorted[rows / 2];
    const double top = *std::max_element(row_amax.begin(), row_amax.end());
    s.channel_spread = median > 0 ? top / median : top > 0 ? std::numeric_limits<double>::infinity() : 1;
  }
  return s;
}

}  // namespace

size_t matrix_cols(const std::vector<size_t>& shape) { return shape.empty() ? 1 : std::max<size_t>(shape.back(), 1); }

double sqnr_db(double energy, double error_energy) {
  return error_energy > 0 ? 10 * std::log10(energy / error_energy) : std::numeric_limits<double>::infinity();
}

namespace {
double normwise(double energy, double error_energy) {
  return energy > 0 ? std::sqrt(error_energy / energy) : error_energy > 0 ? INFINITY : 0;
}
}  // namespace

void finish_score(CandidateScore& c, double energy, double output_energy) {
  c.normwise = normwise(energy, c.error_energy);
  c.sqnr_db = sqnr_db(energy, c.error_energy);
  c.output.normwise = normwise(output_energy, c.output.error_energy);
  c.output.sqnr_db = sqnr_db(output_energy, c.output.error_energy);
}

Expected<TensorScan> scan_tensor(const io::MappedFile& shard, const io::CheckpointTensor& t,
                                 const std::vector<Candidate>& candidates, const TensorScanOptions& o,
                                 const std::function<void(uint64_t)>& progress, const std::atomic<bool>* cancel,
                                 std::string& device_error, bool& on_device) {
  TensorScan out;
  out.name = t.name;
  out.shape = t.shape;
  out.stored = t.stored;
  out.params = t.params;
  out.place = place_of(t.name);
  if (!t.is_float()) return Error{"tensor '" + printable(t.name) + "' holds " + t.stored + " integers, not weights"};
  if (t.params == 0) return Error{"tensor '" + printable(t.name) + "' is empty"};
  const size_t cols = matrix_cols(t.shape), rows = t.params / cols;
  const size_t chunk_rows = std::max<size_t>(1, o.chunk_elements / cols);
  Status failed;
  Moments m;
  out.stats = stats_pass(shard, t, rows, cols, chunk_rows, cancel, progress, m, failed);
  out.energy = m.s2;
  if (!failed) return Error{failed.error()};
  const double mean = m.finite ? m.s1 / double(m.finite) : 0;
  Central central;
  if (cancel && cancel->load()) return Error{"cancelled"};

  out.scores.resize(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    out.scores[i].candidate = candidates[i].text();
    out.scores[i].bits_per_param = bits_per_param(candidates[i], rows, cols);
  }
  std::vector<double> values;
  std::optional<OutputError> output;
  if (o.inputs) {
    out.input_rows = o.inputs->rows;
    output.emplace(*o.inputs);
  }
  for (size_t r0 = 0; r0 < rows; r0 += chunk_rows) {
    if (cancel && cancel->load()) return Error{"cancelled"};
    const size_t k = std::min(chunk_rows, rows - r0);
    if (auto st = io::read_elements(shard, t, r0 * cols, k * cols, values); !st) return Error{st.error()};
    const Central part = central_of(values, mean);
    central.c2 += part.c2, central.c4 += part.c4;
    if (output) out.output_energy += output->energy(values, k);
    // Stochastic draws continue the tensor's stream: element j of the run draws what element
    // r0 * cols + j of the whole tensor would, so a scan's figures do not depend on its runs.
    CastOptions cast = o.cast;
    cast.seed = stochastic_seed_at(o.cast.seed, r0 * cols);
    for (size_t i = 0; i < candidates.size(); ++i) {
      Scaling s = candidates[i].scaling;
      s.tensor_amax = out.stats.amax;
      const Quantised q = quantise(values, k, cols, candidates[i].dtype, s, cast, 0,
                                   is_float(candidates[i].dtype) ? o.device : nullptr);
      if (!q.device_error.empty() && device_error.empty()) device_error = q.device_error;
      on_device = on_device || q.on_device;
      const ErrorPart e = errors_of(q.dequantised(), values);
      CandidateScore& c = out.scores[i];
      c.error_energy += e.e2;
      c.max_abs = std::max(c.max_abs, e.max_abs);
      c.max_rel = std::max(c.max_rel, e.max_rel);
      c.saturated += q.saturated;
      c.flushed += q.flushed;
      if (output) c.output.error_energy += output->error_energy(values, q.dequantised(), k);
    }
    if (progress) progress(t.bytes / 2 + (r0 + k) * cols * (t.bytes / t.params) / 2);
  }
  for (CandidateScore& c : out.scores) finish_score(c, out.energy, out.output_energy);
  if (m.finite > 0 && central.c2 > 0) {
    const double n = double(m.finite), m2 = central.c2 / n;
    out.stats.kurtosis = central.c4 / n / (m2 * m2);
  }
  shard.release(t.offset, t.offset + t.bytes);
  return out;
}

}  // namespace pl::experiment
