#include "core/experiment/scan/tensor_scan.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>

#include "core/dtype/device/stochastic.h"
#include "core/experiment/scan/code_tally.h"
#include "core/experiment/scan/error_lanes.h"
#include "core/experiment/scan/error_parts.h"
#include "core/experiment/scan/fused_scores.h"
#include "core/quantise/amax.h"
#include "core/util/parallel.h"
#include "core/util/printable.h"
#include "core/util/target_clones.h"

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

// A block's moments in error_lanes.h's eight lanes, folded in order (the tensor's sums then do
// not depend on the threads either); an Inf or a NaN counts as nothing but itself.
PL_CLONES Moments block_moments(const double* x, size_t n) {
  const Lanes zero{};
  Lanes s1{}, s2{}, top{};
  LaneMask finite{};
  for (size_t i = 0; i < n; i += kErrorLanes) {
    const Lanes v = load_lanes(x + i, n - i, 0.0);  // (padded with zeros)
    const Lanes a = abs_of(v);
    const LaneMask ok = a <= DBL_MAX;
    const Lanes kept = select(ok, v, zero), kept_abs = select(ok, a, zero);
    s1 += kept, s2 += kept * kept;
    top = select(kept_abs > top, kept_abs, top);
    finite -= ok;
  }
  Moments m;
  for (size_t l = 0; l < kErrorLanes; ++l) {
    m.s1 += s1[l], m.s2 += s2[l];
    m.amax = std::max<double>(m.amax, top[l]);
    m.finite += static_cast<size_t>(finite[l]);
  }
  const size_t padded = (n + kErrorLanes - 1) / kErrorLanes * kErrorLanes;
  m.finite -= padded - n;  // the padding's zeros
  m.nonfinite = n - m.finite;
  return m;
}

struct Central {  // sums of (x - mean)^2 and (x - mean)^4 over finite elements: the kurtosis
  double c2 = 0, c4 = 0;
};

PL_CLONES Central block_central(const double* x, size_t n, double mean) {
  const Lanes zero{};
  Lanes c2{}, c4{};
  for (size_t i = 0; i < n; i += kErrorLanes) {
    const Lanes v = load_lanes(x + i, n - i, mean);  // (padded with the mean: no difference from it)
    const Lanes d = select(abs_of(v) <= DBL_MAX, v - mean, zero);
    const Lanes d2 = d * d;
    c2 += d2, c4 += d2 * d2;
  }
  Central c;
  for (size_t l = 0; l < kErrorLanes; ++l) c.c2 += c2[l], c.c4 += c4[l];
  return c;
}

ErrorPart errors_of(std::span<const double> q, std::span<const double> x) {
  return fold_blocks<ErrorPart>(
      x.size(), [&](size_t b, size_t e) { return block_errors(q.data() + b, x.data() + b, e - b); },
      [](ErrorPart& t, const ErrorPart& p) { t.add(p); });
}

// Elements [first, first + n) of the tensor decoded a sum block at a time on every core, each
// block handed to fn(x, begin, end) -> Part while it is in the core's cache (x: the block's
// values), and the parts folded in block order. Into `keep` where the caller needs the values
// afterwards (keep[i] for element first + i), else into a buffer of the thread's own, which
// stays in the cache and sends nothing out to memory. A failed read is put in `failed`: the
// first block's that failed, whichever thread saw its failure first.
template <typename Part, typename Fn, typename Add>
Part fold_decoded_blocks(const io::MappedFile& shard, const io::CheckpointTensor& t, size_t first, size_t n,
                         std::span<double> keep, Fn&& fn, Add&& add, Status& failed) {
  std::mutex lock;
  size_t failed_at = SIZE_MAX;
  return fold_blocks<Part>(
      n,
      [&](size_t b, size_t e) {
        thread_local std::vector<double> own;
        if (keep.empty()) own.resize(kSumBlock);
        const std::span<double> into = keep.empty() ? std::span(own).first(e - b) : keep.subspan(b, e - b);
        if (auto st = io::read_elements(shard, t, first + b, into); !st) {
          const std::lock_guard hold(lock);
          if (b < failed_at) failed_at = b, failed = st;
          return Part{};
        }
        return fn(static_cast<const double*>(into.data()), b, e);
      },
      add);
}

// A block's moments and the amaxes of the rows it holds. A row wholly inside the block is
// written straight into the rows' amaxes (no other block holds any of it); the block's first
// and last rows may go on into the blocks beside it, and wait for the fold, which takes the
// largest of each row's pieces (a maximum: the same value in any order).
struct StatsPart {
  Moments m;
  size_t first_row = 0, last_row = 0;    // (of the run)
  double first_amax = 0, last_amax = 0;  // of the pieces of those rows in the block
};

// The first pass: amax, rms and the mean (the kurtosis's central sums wait for the second pass,
// which knows the mean: raw power sums cancel badly when the mean is large against the spread),
// and every row's amax for the channel spread.
TensorStats stats_pass(const io::MappedFile& shard, const io::CheckpointTensor& t, size_t rows, size_t cols,
                       size_t chunk_rows, const std::atomic<bool>* cancel,
                       const std::function<void(uint64_t)>& progress, Moments& m, Status& failed) {
  std::vector<double> row_amax(rows);
  for (size_t r0 = 0; r0 < rows; r0 += chunk_rows) {
    if (cancel && cancel->load()) return {};
    const size_t k = std::min(chunk_rows, rows - r0);
    double* amaxes = row_amax.data() + r0;
    const StatsPart total = fold_decoded_blocks<StatsPart>(
        shard, t, r0 * cols, k * cols, {},
        [&](const double* x, size_t b, size_t e) {
          StatsPart part;
          part.m = block_moments(x, e - b);
          part.first_row = part.last_row = b / cols;
          for (size_t i = b; i < e;) {
            const size_t r = i / cols, end = std::min(e, (r + 1) * cols);
            const double a = amax_of({x + (i - b), end - i});
            if (i == r * cols && end == (r + 1) * cols) amaxes[r] = a;
            else if (i == b) part.first_amax = a;
            else part.last_row = r, part.last_amax = a;
            i = end;
          }
          return part;
        },
        [&](StatsPart& total, const StatsPart& part) {
          total.m.add(part.m);
          amaxes[part.first_row] = std::max(amaxes[part.first_row], part.first_amax);
          amaxes[part.last_row] = std::max(amaxes[part.last_row], part.last_amax);
        },
        failed);
    if (!failed) return {};
    m.add(total.m);
    if (progress) progress((r0 + k) * cols * (t.bytes / t.params) / 2);  // the first of two passes
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

// bfloat16 weights: the candidates the tally takes (code_tally.h) are scored from one count of
// the stored codes, with or without the layer's inputs and a device (the weight's figures do not
// depend on either); none of them when it does not take the tensor. Which it scored.
std::vector<bool> tally_what_it_takes(const io::MappedFile& shard, const io::CheckpointTensor& t, size_t rows,
                                      size_t cols, const std::vector<Candidate>& candidates, const CastOptions& cast,
                                      TensorScan& out) {
  std::vector<bool> scored(candidates.size());
  std::vector<size_t> taken;
  std::vector<Candidate> taken_candidates;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (tally_takes(candidates[i], cast)) taken.push_back(i), taken_candidates.push_back(candidates[i]);
  if (taken.empty() || t.dtype != DType::bfloat16 || out.stats.nonfinite != 0) return scored;
  const std::optional<CodeTally> tally =
      tally_bfloat16(shard.bytes().subspan(t.offset, t.bytes).data(), rows, cols, out.stats.amax);
  if (!tally) return scored;
  const std::vector<std::optional<FusedScore>> scores = tallied_scores(*tally, out.stats.amax, taken_candidates, cast);
  for (size_t j = 0; j < taken.size(); ++j) {
    if (!scores[j]) continue;
    CandidateScore& c = out.scores[taken[j]];
    c.error_energy = scores[j]->errors.e2;
    c.max_abs = scores[j]->errors.max_abs;
    c.max_rel = scores[j]->errors.max_rel;
    c.saturated = scores[j]->saturated;
    c.flushed = scores[j]->flushed;
    scored[taken[j]] = true;
  }
  return scored;
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
  const std::vector<bool> tallied =
      o.tally ? tally_what_it_takes(shard, t, rows, cols, candidates, o.cast, out) : std::vector<bool>(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    if (tallied[i] && !output) continue;  // (with the inputs, quantise() makes the copy the outputs need)
    const bool fusable = o.fused && !output && !(on_a_device && is_float(c.dtype)) && fused_pass_takes(c, o.cast);
    (fusable ? fused : unfused).push_back(i);
    if (fusable) fused_candidates.push_back(c);
  }
  // (Every candidate tallied: only the kurtosis reads the run, from the cores' own buffers.)
  const bool keep_run = !fused.empty() || !unfused.empty() || output;
  for (size_t r0 = 0; r0 < rows; r0 += chunk_rows) {
    if (cancel && cancel->load()) return Error{"cancelled"};
    const size_t k = std::min(chunk_rows, rows - r0);
    if (keep_run) values.resize(k * cols);
    const Central part = fold_decoded_blocks<Central>(
        shard, t, r0 * cols, k * cols, keep_run ? std::span(values) : std::span<double>{},
        [&](const double* x, size_t b, size_t e) { return block_central(x, e - b, mean); },
        [](Central& total, const Central& c) { total.c2 += c.c2, total.c4 += c.c4; }, failed);
    if (!failed) return Error{failed.error()};
    central.c2 += part.c2, central.c4 += part.c4;
    if (!keep_run) {
      if (progress) progress(t.bytes / 2 + (r0 + k) * cols * (t.bytes / t.params) / 2);
      continue;
    }
    // A stored Inf or NaN is left out of every figure from here on: as a zero, which adds no
    // error and counts as neither saturated nor flushed, and moves no scale (the amaxes are over
    // the finite elements, and an asymmetric range holds zero). As itself, quantise() and the
    // register pass counted an Inf as saturated and a NaN as flushed where the format has no NaN.
    if (out.stats.nonfinite > 0)
      for (double& v : values)
        if (!std::isfinite(v)) v = 0;
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
      CandidateScore& c = out.scores[i];
      if (!tallied[i]) {
        const ErrorPart e = errors_of(q.dequantised(), values);
        c.error_energy += e.e2;
        c.max_abs = std::max(c.max_abs, e.max_abs);
        c.max_rel = std::max(c.max_rel, e.max_rel);
        c.saturated += q.saturated;
        c.flushed += q.flushed;
      }
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
