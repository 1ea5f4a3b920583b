#include "core/experiment/scan/tensor_scan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/dtype/device/stochastic.h"
#include "core/experiment/scan/error_parts.h"
#include "core/experiment/scan/fused_scores.h"
#include "core/quantise/amax.h"
#include "core/util/parallel.h"
#include "core/util/printable.h"

namespace pl::experiment {
namespace {

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

ErrorPart errors_of(std::span<const double> q, std::span<const double> x) {
  return fold_blocks<ErrorPart>(
      x.size(), [&](size_t b, size_t e) { return block_errors(q.data() + b, x.data() + b, e - b); },
      [](ErrorPart& t, const ErrorPart& p) { t.add(p); });
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
  // The candidates the fused pass scores (not with the layer's inputs, which need each
  // dequantised copy whole, nor a float rounded on a device), and those quantise() does.
  std::vector<size_t> fused, unfused;
  std::vector<Candidate> fused_candidates;
  const bool on_a_device = o.device && *o.device;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const bool fusable = o.fused && !output && !(on_a_device && is_float(c.dtype)) && fused_pass_takes(c, o.cast);
    (fusable ? fused : unfused).push_back(i);
    if (fusable) fused_candidates.push_back(c);
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
    if (!fused.empty()) {
      const std::vector<FusedScore> scores = fused_scores(values, k, cols, out.stats.amax, fused_candidates, o.cast);
      for (size_t j = 0; j < fused.size(); ++j) {
        CandidateScore& c = out.scores[fused[j]];
        c.error_energy += scores[j].errors.e2;
        c.max_abs = std::max(c.max_abs, scores[j].errors.max_abs);
        c.max_rel = std::max(c.max_rel, scores[j].errors.max_rel);
        c.saturated += scores[j].saturated;
        c.flushed += scores[j].flushed;
      }
    }
    for (const size_t i : unfused) {
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
