#include "core/experiment/dot_sweep.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <mutex>
#include <random>
#include <sstream>

#include "core/backend/backend.h"
#include "core/dtype/codec.h"
#include "core/dtype/format_lookup.h"
#include "core/util/parallel.h"
#include "core/util/printable.h"

namespace pl::experiment {
namespace {

std::vector<double> draw(std::mt19937_64& rng, size_t n, DType t) {
  std::normal_distribution<double> normal;
  const FloatFormat& f = info(t).format;
  const CastOptions rne;
  std::vector<double> v(n);
  for (double& x : v) x = round_to(f, normal(rng), rne);
  return v;
}

// A length's trials drawn together (at most dot_sweep's batch_bytes of inputs).
struct TrialBatch {
  size_t first = 0;                       // its first trial's index among the length's
  std::vector<std::vector<double>> a, b;  // b empty for a sum
  std::vector<double> ones;               // a sum's b: every b_k is 1
  size_t size() const { return a.size(); }
  const std::vector<double>& b_of(size_t i) const { return b.empty() ? ones : b[i]; }
};

// One (length, model) cell's trials of a batch on the config's device, each a 1 x 1 x K product
// (gemm.h: the same sum as dot()). `sums` stays empty, with `note` saying why, when the CPU must
// run them instead: no device asked for (note empty), none there, the model refused, or a failure.
struct DeviceTrials {
  std::vector<double> sums;
  std::string ran_on, method, note;
  bool cancelled = false;
};

DeviceTrials on_device(const DotSweepConfig& c, size_t k, const Accumulation& m, const TrialBatch& batch,
                       const std::function<void(size_t)>& trials_done, const std::atomic<bool>* cancel) {
  DeviceTrials out;
  ProductSpec spec{{1, 1, k}, c.a_dtype, c.sum ? c.a_dtype : c.b_dtype, m};
  auto device = device_for(c.backend, spec);
  if (!device) out.note = device.error() + "; ran on the CPU";
  if (!device || !*device) return out;
  const std::lock_guard lock(*(*device)->mutex);
  Backend& b = *(*device)->backend;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (cancel && cancel->load()) {
      out.cancelled = true;
      return out;
    }
    const size_t t = batch.first + i;
    spec.stream_offset = static_cast<uint64_t>(t) << 32;  // trial t's stochastic stream, as on the CPU
    ProductControl control;
    control.cancel = cancel;
    auto run = b.product(spec, batch.a[i], batch.b_of(i), control);
    if (!run || run->c.size() != 1) {
      out.cancelled = !run && run.error() == "cancelled";
      out.note = b.name() + " failed: " + (run ? "no result" : run.error()) + "; ran on the CPU";
      out.sums.clear();
      return out;
    }
    if (i == 0) out.method = run->method;
    out.sums.push_back(run->c[0]);
    trials_done(1);
  }
  out.ran_on = b.name() + " (" + b.device_info().name + ")";
  return out;
}

}  // namespace

Expected<std::vector<size_t>> parse_lengths(std::string_view text) {
  std::vector<size_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, end - start);
    uint64_t v = 0;
    const auto [stop, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || stop != item.data() + item.size() || v == 0 || v > kMaxSweepLength)
      return Error{"lengths: '" + printable(std::string(item.substr(0, 40))) + "' is not a length from 1 to " +
                   std::to_string(kMaxSweepLength)};
    out.push_back(static_cast<size_t>(v));
    start = end + 1;
  }
  return out;
}

Status check(const DotSweepConfig& c) {
  for (DType t : {c.a_dtype, c.b_dtype})
    if (!is_float(t) || info(t).format.precision() > 24)
      return Error{std::string(name(t)) + ": inputs must be float formats of at most float32 precision"};
  for (DType t : {c.a_dtype, c.b_dtype})  // (N(0,1) draws: half of them NaN in a scale format)
    if (!info(t).format.is_signed())
      return Error{std::string(name(t)) + " has no sign, and the drawn inputs are signed: half of them would be NaN"};
  if (c.lengths.empty()) return Error{"give at least one length"};
  for (size_t i = 0; i < c.lengths.size(); ++i) {
    if (c.lengths[i] == 0 || c.lengths[i] > kMaxSweepLength) return Error{"lengths must lie in [1, 2^24]"};
    // (Each row would be computed and printed twice, as if two lengths were asked for.)
    if (std::find(c.lengths.begin(), c.lengths.begin() + i, c.lengths[i]) != c.lengths.begin() + i)
      return Error{"length " + std::to_string(c.lengths[i]) + " is given twice"};
  }
  if (c.trials < 1 || c.trials > kMaxTrials) return Error{"trials must be from 1 to " + std::to_string(kMaxTrials)};
  if (c.models.empty()) return Error{"give at least one accumulation model"};
  for (size_t i = 0; i < c.models.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (describe(c.models[i]) == describe(c.models[k])) return Error{describe(c.models[i]) + " is given twice"};
  for (const Accumulation& m : c.models) {
    // (Named as it was spelled: the description would repeat the error's own words.)
    if (auto st = check(m); !st) return Error{accumulation_spec(m) + ": " + st.error()};
    if (m.kind == AccumKind::Int32) return Error{"int32 accumulation needs integer inputs (use matmul with int8)"};
  }
  return {};
}

namespace {

// The next `count` trials' inputs, drawn in order from the length's stream.
void draw_batch(std::mt19937_64& rng, const DotSweepConfig& c, size_t k, size_t first, size_t count,
                TrialBatch& batch) {
  batch.first = first;
  batch.a.clear();
  batch.b.clear();
  for (size_t i = 0; i < count; ++i) {
    batch.a.push_back(draw(rng, k, c.a_dtype));
    if (!c.sum) batch.b.push_back(draw(rng, k, c.b_dtype));
  }
}

// Each trial's exact sum and sum of |a_k b_k|, the trials on every core.
void exact_sums(const TrialBatch& batch, size_t k, std::vector<double>& refs, std::vector<double>& abs_sums) {
  parallel_for(
      batch.size(), 0,
      [&](size_t i0, size_t i1) {
        std::vector<double> abs_a, abs_b;
        for (size_t i = i0; i < i1; ++i) {
          const auto& a = batch.a[i];
          const auto& b = batch.b_of(i);
          refs[batch.first + i] = dot_reference(a, b).hi;
          abs_a.resize(k);
          abs_b.resize(k);
          for (size_t j = 0; j < k; ++j) abs_a[j] = std::fabs(a[j]), abs_b[j] = std::fabs(b[j]);
          abs_sums[batch.first + i] = dot_reference(abs_a, abs_b).hi;
        }
      },
      std::max<size_t>(1, (size_t{1} << 14) / k));
}

// The batch's trials under model `m` on the CPU: on every core, trial t on its own stochastic
// stream as on a device. False when cancelled.
bool cpu_trials(const TrialBatch& batch, const Accumulation& m, size_t k, std::vector<double>& results,
                const std::function<void(size_t)>& trials_done, const std::atomic<bool>* cancel) {
  std::atomic<bool> stopped{false};
  parallel_for(
      batch.size(), 0,
      [&](size_t i0, size_t i1) {
        for (size_t i = i0; i < i1; ++i) {
          if (cancel && cancel->load()) {
            stopped = true;
            return;
          }
          const size_t t = batch.first + i;
          results[t] = dot(batch.a[i], batch.b_of(i), m, static_cast<uint64_t>(t) << 32);
        }
        trials_done(i1 - i0);
      },
      std::max<size_t>(1, (size_t{1} << 14) / k));
  return !stopped;
}

// A length's row for one model: each trial's error scaled by its sum of |a_k b_k|, the error
// statistics and the model's bounds.
DotSweepRow finish_row(DotSweepRow row, const std::vector<double>& results, const std::vector<double>& refs,
                       const std::vector<double>& abs_sums, const DotSweepConfig& c) {
  for (size_t t = 0; t < results.size(); ++t) {
    const double scaled = std::fabs(results[t] - refs[t]) / abs_sums[t];
    row.scaled_errors.push_back(scaled);
    if (std::isfinite(scaled)) row.max_scaled = std::max(row.max_scaled, scaled);
  }
  row.stats = error_stats(results, refs, result_dtype(row.model));
  row.unreferenced = size_t(std::count_if(refs.begin(), refs.end(), [](double r) { return !std::isfinite(r); }));
  const std::optional<DType> b = c.sum ? std::nullopt : std::optional(c.b_dtype);  // (a sum: a's own values)
  row.bounds = accumulation_bounds(row.model, row.length, exact_products(row.model, c.a_dtype, b));
  return row;
}

}  // namespace

std::vector<std::string> unreferenced_notes(const std::vector<DotSweepRow>& rows) {
  std::vector<std::string> notes;
  std::vector<size_t> said;  // lengths (every model of a length has the same inputs)
  for (const DotSweepRow& r : rows) {
    if (r.unreferenced == 0 || std::find(said.begin(), said.end(), r.length) != said.end()) continue;
    said.push_back(r.length);
    const size_t trials = r.unreferenced + r.stats.count + r.stats.nan + r.stats.inf;
    notes.push_back("K = " + std::to_string(r.length) + ": " + std::to_string(r.unreferenced) + " of " +
                    std::to_string(trials) +
                    " trials' inputs held an Inf or a NaN once rounded, so they have no reference and are left out");
  }
  return notes;
}

std::vector<DotSweepRow> dot_sweep(const DotSweepConfig& c, const std::function<void(double)>& progress,
                                   const std::atomic<bool>* cancel, double batch_bytes) {
  std::vector<DotSweepRow> rows;
  double total_work = 0;
  for (size_t k : c.lengths) total_work += static_cast<double>(k) * c.trials;
  double done_work = 0;
  std::mutex progress_lock;
  const size_t trials = static_cast<size_t>(c.trials), models = c.models.size();
  for (size_t k : c.lengths) {
    // Each length draws its own inputs from a stream seeded by (seed, K): the same inputs
    // for every model, and a length's numbers do not depend on the other lengths asked. The
    // trials are drawn in order, a batch at a time, so a batch's size changes no number.
    std::mt19937_64 rng(c.seed * 0x9E3779B97F4A7C15ull + k);
    const size_t per_batch = std::clamp<size_t>(static_cast<size_t>(batch_bytes / (16.0 * double(k))), 1, trials);
    std::vector<double> refs(trials), abs_sums(trials);
    std::vector<std::vector<double>> results(models, std::vector<double>(trials));
    std::vector<DotSweepRow> cells(models);
    std::vector<bool> on_cpu(models, false);  // the device declined or failed: the rest run here
    for (size_t mi = 0; mi < models; ++mi) {
      cells[mi].length = k;
      cells[mi].model = c.models[mi];
    }
    auto trials_done = [&](size_t n) {  // (from the cores' chunks: one at a time, so it only grows)
      const std::lock_guard hold(progress_lock);
      done_work += double(n * k) / double(models);
      if (progress) progress(done_work / total_work);
    };
    TrialBatch batch;
    if (c.sum) batch.ones.assign(k, 1.0);
    for (size_t first = 0; first < trials; first += per_batch) {
      const size_t count = std::min(per_batch, trials - first);
      draw_batch(rng, c, k, first, count, batch);
      exact_sums(batch, k, refs, abs_sums);
      for (size_t mi = 0; mi < models; ++mi) {
        const Accumulation& m = c.models[mi];
        DotSweepRow& row = cells[mi];
        if (!on_cpu[mi]) {
          const double work_before = done_work;
          DeviceTrials device = on_device(c, k, m, batch, trials_done, cancel);
          if (device.cancelled) return rows;
          if (!device.sums.empty()) {
            std::copy(device.sums.begin(), device.sums.end(), results[mi].begin() + first);
            row.ran_on = std::move(device.ran_on);
            row.method = std::move(device.method);
            continue;
          }
          done_work = work_before;  // a device that failed part-way: its trials run again here
          on_cpu[mi] = true;
          row.note = std::move(device.note);
          if (first > 0 && !row.note.empty()) row.note += " (trials " + std::to_string(first) + " on)";
          row.ran_on = "cpu";
          row.method = describe(m);
        }
        if (!cpu_trials(batch, m, k, results[mi], trials_done, cancel)) return rows;
      }
    }
    for (size_t mi = 0; mi < models; ++mi)
      rows.push_back(finish_row(std::move(cells[mi]), results[mi], refs, abs_sums, c));
  }
  return rows;
}

std::vector<WhereRan> where_ran(const std::vector<DotSweepRow>& rows) {
  std::vector<WhereRan> entries;
  bool plain_cpu = false;  // rows the CPU ran without a device having been asked for
  for (const auto& r : rows) {
    if (r.ran_on == "cpu" && r.note.empty()) {
      plain_cpu = true;
      continue;
    }
    const WhereRan e{describe(r.model) + (r.ran_on == "cpu" ? ": on the CPU" : ": " + r.method + " on " + r.ran_on),
                     r.note};
    if (std::find(entries.begin(), entries.end(), e) == entries.end()) entries.push_back(e);
  }
  if (plain_cpu) entries.push_back({entries.empty() ? "every model ran on the CPU" : "the others ran on the CPU", ""});
  return entries;
}

double sweep_terms(const DotSweepConfig& c) {
  double terms = 0;
  for (size_t k : c.lengths) terms += static_cast<double>(k) * c.trials * static_cast<double>(c.models.size());
  return terms;
}

WorkEstimate estimate_dot_sweep(const DotSweepConfig& c) {
  WorkEstimate w;
  w.terms = sweep_terms(c);
  // The sample: the same models and dtypes, 4 trials of length 4096 (or the sweep itself if smaller).
  DotSweepConfig sample = c;
  sample.lengths = {4096};
  sample.trials = 4;
  const double sample_terms = 4096.0 * 4 * static_cast<double>(c.models.size());
  if (w.terms <= sample_terms) sample = c;
  const auto t0 = std::chrono::steady_clock::now();
  dot_sweep(sample);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double measured_terms = w.terms <= sample_terms ? w.terms : sample_terms;
  w.seconds_per_term = measured_terms > 0 ? took / measured_terms : 0;
  w.seconds = w.seconds_per_term * w.terms;
  return w;
}

std::string work_text(const WorkEstimate& w) {
  char buf[160];
  const double s = w.seconds;
  if (s < 120) std::snprintf(buf, sizeof buf, "about %.2g terms, an estimated %.0f s here", w.terms, s);
  else if (s < 7200)
    std::snprintf(buf, sizeof buf, "about %.2g terms, an estimated %.0f minutes here", w.terms, s / 60);
  else std::snprintf(buf, sizeof buf, "about %.2g terms, an estimated %.1f hours here", w.terms, s / 3600);
  return std::string(buf) + " (timed on a sample of the same models)";
}

}  // namespace pl::experiment
