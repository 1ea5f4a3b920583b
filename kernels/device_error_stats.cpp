#include "kernels/device_error_stats.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "core/analysis/histogram.h"
#include "core/util/parallel.h"
#include "kernels/device_buffer.h"
#include "kernels/device_values.h"
#include "kernels/error_stats.cuh"
#include "kernels/phase_trace.h"
#include "kernels/staged_copy.h"

namespace pl::cuda {
namespace {

using experiment::Comparison;
using experiment::ErrorStats;
using experiment::error_passes::FirstPass;
using experiment::error_passes::Gathered;
using experiment::error_passes::kKeys;
using experiment::error_passes::kSpan;
using experiment::error_passes::Plan;

// A zeroed device array of `count` T, or the error.
template <typename T>
Expected<T*> zeroed(DeviceBuffer& b, size_t count, const char* what) {
  if (auto e = b.allocate(count * sizeof(T)); e != cudaSuccess) return Error{cuda_error(what, e)};
  if (auto e = cudaMemset(b.get(), 0, count * sizeof(T)); e != cudaSuccess) return Error{cuda_error(what, e)};
  return b.as<T>();
}

// The compared arrays on the device: those the backend holds where they are, host arrays
// uploaded once however many comparisons read them (the four parts of an experiment's
// attribution share four arrays).
class Uploads {
 public:
  explicit Uploads(uint64_t holder) : holder_(holder) {}
  Expected<const double*> get(const HeldValues& values, size_t n) {
    if (const double* held = held_pointer(values, holder_)) return held;
    auto& slot = buffers_[&values];
    if (!slot) {
      auto host = values.host();
      if (!host) return Error{host.error()};
      slot = std::make_unique<DeviceBuffer>();
      if (auto ok = upload(*slot, host->first(n), "out of GPU memory for the compared arrays"); !ok)
        return Error{ok.error()};
    }
    return slot->as<const double>();
  }

 private:
  uint64_t holder_;
  std::map<const HeldValues*, std::unique_ptr<DeviceBuffer>> buffers_;
};

template <typename T>
Expected<std::vector<T>> download(const DeviceBuffer& b, size_t count, const char* what) {
  std::vector<T> host(count);
  if (count == 0) return host;
  if (auto e = copy_to_host(host.data(), b.get(), count * sizeof(T)); e != cudaSuccess)
    return Error{cuda_error(what, e)};
  return host;
}

static_assert(kPassOneSpan == kSpan, "a pass-one block takes one span of core's sums");
static_assert(kPassKeys == kKeys);

// Pass one counts the bound check's scaled errors with the relative errors' octave table.
static_assert(experiment::BoundTally::kPerOctave == experiment::error_passes::kRelPerOctave);

// Copies of pass 1's counters (error_stats.cuh): kCountReplicas, or PL_CUDA_COUNT_REPLICAS.
unsigned count_replicas() {
  const char* v = std::getenv("PL_CUDA_COUNT_REPLICAS");
  const long r = v && *v ? std::strtol(v, nullptr, 10) : kCountReplicas;
  return static_cast<unsigned>(r < 1 ? 1 : r > 64 ? 64 : r);
}

// Pass 2: the elements binned alone gathered, the percentiles' keys' members counted by fine
// key; pass 3: the members of each percentile's fine key gathered (error_pass.h). Rewrites the
// plans' ranks for the fine keys (refine_percentiles).
Expected<std::vector<Gathered>> later_passes(const std::vector<PassOneArrays>& one, const std::vector<FirstPass>& first,
                                             std::vector<Plan>& plans, size_t n, int sm_count, PhaseTrace& trace) {
  const size_t count = one.size();
  std::vector<Gathered> gathered_values(count);
  struct Gather {
    DeviceBuffer action, alone, fine, members[3], counters;
    GatherSizes sizes;
    FineTargets targets;
  };
  std::vector<Gather> g(count);
  std::vector<PassTwoArrays> two(count);
  for (size_t c = 0; c < count; ++c) {
    PassTwoArrays& a = two[c];
    a.result = one[c].result, a.reference = one[c].reference, a.keys = one[c].keys;
    if (auto ok = upload(g[c].action, std::span<const uint8_t>(plans[c].action), "out of GPU memory"); !ok)
      return Error{ok.error()};
    a.action = g[c].action.as<const uint8_t>();
    g[c].sizes = gather_sizes(plans[c], first[c]);  // (all zero when the plan needs nothing)
    // The alone count, then pass 3's three member counts.
    auto counters = zeroed<unsigned long long>(g[c].counters, 4, "out of GPU memory for pass 2");
    auto fine = zeroed<unsigned>(g[c].fine, 3 * kFineBins, "out of GPU memory for pass 2");
    if (!counters || !fine) return Error{!counters ? counters.error() : fine.error()};
    a.alone_count = *counters, a.fine_counts = *fine;
    if (auto e = g[c].alone.allocate(g[c].sizes.alone * sizeof(double)); e != cudaSuccess)
      return Error{cuda_error("out of GPU memory for pass 2", e)};
    a.alone = g[c].alone.as<double>(), a.alone_capacity = g[c].sizes.alone;
  }
  DeviceBuffer d_two;
  if (auto ok = upload(d_two, std::span<const PassTwoArrays>(two), "out of GPU memory"); !ok) return Error{ok.error()};
  trace.mark("pass 2 setup");
  if (auto e = launch_error_pass_two(d_two.as<const PassTwoArrays>(), static_cast<int>(count), n, sm_count, nullptr);
      e != cudaSuccess)
    return Error{cuda_error("the error statistics' second pass failed to start", e)};
  if (auto e = cudaDeviceSynchronize(); e != cudaSuccess)
    return Error{cuda_error("the error statistics' second pass failed", e)};
  trace.mark("pass 2 kernel");

  std::vector<std::vector<double>> alone(count);
  std::vector<PassThreeArrays> three(count);
  bool third = false;
  for (size_t c = 0; c < count; ++c) {
    auto counter = download<unsigned long long>(g[c].counters, 1, "reading pass 2 back failed");
    if (!counter) return Error{counter.error()};
    if ((*counter)[0] != g[c].sizes.alone)
      return Error{"the GPU's second pass gathered other elements than its first counted"};
    auto values = download<double>(g[c].alone, g[c].sizes.alone, "reading pass 2 back failed");
    auto fine = download<unsigned>(g[c].fine, 3 * kFineBins, "reading pass 2 back failed");
    if (!values || !fine) return Error{!values ? values.error() : fine.error()};
    alone[c] = std::move(*values);
    // Each owning quantile's fine counts must add up to its key's members, as pass 1 counted.
    for (size_t q = 0; q < 3; ++q) {
      uint64_t total = 0;
      for (uint32_t f = 0; f < kFineBins; ++f) total += (*fine)[q * kFineBins + f];
      if (total != g[c].sizes.members[q])
        return Error{"the GPU's second pass counted other members than its first counted"};
    }
    g[c].targets = refine_percentiles(plans[c], *fine);
    PassThreeArrays& a = three[c];
    a.result = one[c].result, a.reference = one[c].reference, a.keys = one[c].keys;
    a.member_count = two[c].alone_count + 1;
    for (size_t q = 0; q < 3; ++q) {
      a.targets[q] = g[c].targets.key[q];
      if (auto e = g[c].members[q].allocate(g[c].targets.count[q] * sizeof(double)); e != cudaSuccess)
        return Error{cuda_error("out of GPU memory for pass 3", e)};
      a.members[q] = g[c].members[q].as<double>(), a.member_capacity[q] = g[c].targets.count[q];
      third |= g[c].targets.key[q] != kNoFineKey;
    }
  }
  trace.mark("pass 2 download and plan");
  if (third) {
    DeviceBuffer d_three;
    if (auto ok = upload(d_three, std::span<const PassThreeArrays>(three), "out of GPU memory"); !ok)
      return Error{ok.error()};
    if (auto e =
            launch_error_pass_three(d_three.as<const PassThreeArrays>(), static_cast<int>(count), n, sm_count, nullptr);
        e != cudaSuccess)
      return Error{cuda_error("the error statistics' third pass failed to start", e)};
    if (auto e = cudaDeviceSynchronize(); e != cudaSuccess)
      return Error{cuda_error("the error statistics' third pass failed", e)};
  }
  trace.mark("pass 3 kernel");
  size_t gathered_count = 0;  // for the trace
  for (size_t c = 0; c < count; ++c) {
    auto counters = download<unsigned long long>(g[c].counters, 4, "reading pass 3 back failed");
    if (!counters) return Error{counters.error()};
    std::array<std::vector<double>, 3> members;
    for (size_t q = 0; q < 3; ++q) {
      if ((*counters)[q + 1] != g[c].targets.count[q])
        return Error{"the GPU's third pass gathered other elements than its second counted"};
      auto v = download<double>(g[c].members[q], g[c].targets.count[q], "reading pass 3 back failed");
      if (!v) return Error{v.error()};
      members[q] = std::move(*v);
      gathered_count += members[q].size();
    }
    gathered_values[c] = gathered(plans[c], alone[c], std::move(members));
  }
  trace.mark("pass 3 download of " + std::to_string(gathered_count) + " elements and binning");
  return gathered_values;
}

// One comparison's device buffers for the passes (pass 1's outputs, the bound check's inputs).
struct Outputs {
  DeviceBuffer keys, span_sums, key_counts, rel, ulps, bound, abs_product, bias;
};

// The sizes every comparison's pass-1 buffers share.
struct PassSizes {
  size_t spans;             // blocks of kSpan elements, one sums record each
  unsigned replicas;        // copies of the counters (count_replicas())
  size_t rel_stride, ulp_stride;  // counted slots of the relative and ulp octave tables
};

// Pass 1's inputs and outputs for one comparison: its arrays where the device reads them, its
// zeroed counters, and, with a bound check, |A||B| (kept from the call before for the same
// owner, else uploaded and kept when owned) and the bias.
Status pass_one_inputs(const HeldComparison& held, const Comparison& cs, size_t n, const PassSizes& z,
                       const experiment::error_passes::OutputMeasure& m, Uploads& arrays, Outputs& out,
                       PassOneArrays& a, KeptUpload* kept_abs) {
  auto r = arrays.get(*held.result, n);
  if (!r) return Error{r.error()};
  auto ref = arrays.get(*held.reference, n);
  if (!ref) return Error{ref.error()};
  a.result = *r, a.reference = *ref;
  a.params = pass_params(m);
  if (auto e = out.keys.allocate(n * sizeof(uint16_t)); e != cudaSuccess)
    return Error{cuda_error("out of GPU memory for the error keys", e)};
  a.keys = out.keys.as<uint16_t>();
  if (auto e = out.span_sums.allocate(z.spans * sizeof(PassSums)); e != cudaSuccess)
    return Error{cuda_error("out of GPU memory for the sums", e)};
  a.span_sums = out.span_sums.as<PassSums>();
  a.replicas = z.replicas;
  auto keys = zeroed<unsigned>(out.key_counts, kKeys * z.replicas, "out of GPU memory for the key counts");
  if (!keys) return Error{keys.error()};
  a.key_counts = *keys;
  if (cs.histograms) {
    auto rel = zeroed<unsigned long long>(out.rel, z.rel_stride * z.replicas, "out of GPU memory for the histograms");
    auto ulps = zeroed<unsigned long long>(out.ulps, z.ulp_stride * z.replicas, "out of GPU memory for the histograms");
    if (!rel || !ulps) return Error{!rel ? rel.error() : ulps.error()};
    a.rel_counts = *rel, a.ulp_counts = *ulps;
  }
  const experiment::BoundInputs* b = cs.bound;
  if (!b || !cs.bound_check) return {};
  if (b->abs_product.size() < n || (!b->bias.empty() && b->bias.size() < b->n))
    return Error{"the bound check's |A||B| or bias is shorter than the output"};
  const std::span<const float> abs = b->abs_product.first(n);
  const float* d_abs = nullptr;
  if (kept_abs && b->abs_owner && kept_abs->owner.lock() == b->abs_owner && kept_abs->data == abs.data() &&
      kept_abs->bytes == abs.size_bytes()) {
    d_abs = kept_abs->buffer.as<const float>();
  } else {
    const bool keep = kept_abs && b->abs_owner;
    DeviceBuffer& into = keep ? kept_abs->buffer : out.abs_product;
    if (keep) kept_abs->owner.reset(), kept_abs->data = nullptr;
    if (auto ok = upload(into, abs, "out of GPU memory for |A||B|"); !ok) return Error{ok.error()};
    if (keep) kept_abs->owner = b->abs_owner, kept_abs->data = abs.data(), kept_abs->bytes = abs.size_bytes();
    d_abs = into.as<const float>();
  }
  if (!b->bias.empty())
    if (auto ok = upload(out.bias, b->bias, "out of GPU memory for the bias"); !ok) return Error{ok.error()};
  auto counts = zeroed<unsigned long long>(out.bound, z.rel_stride * z.replicas, "out of GPU memory for the bound check");
  if (!counts) return Error{counts.error()};
  set_bound(a.params, *b, d_abs, out.bias.as<const double>());
  a.bound_counts = *counts;
  return {};
}

// Pass 1's results for one comparison read back and assembled as core's first pass. The key
// counts (atomics) and the block sums must agree on how many elements were compared: a kernel
// that lost or doubled some is an error here, not a wrong histogram.
Expected<FirstPass> read_first_pass(const Comparison& cs, Outputs& out, const PassOneArrays& one, const PassSizes& z) {
  auto sums = download<PassSums>(out.span_sums, z.spans, "reading the sums back failed");
  auto keys = download<unsigned>(out.key_counts, kKeys, "reading the key counts back failed");
  auto rel =
      download<unsigned long long>(out.rel, one.rel_counts ? z.rel_stride : 0, "reading the histograms back failed");
  auto ulps =
      download<unsigned long long>(out.ulps, one.ulp_counts ? z.ulp_stride : 0, "reading the histograms back failed");
  auto bound =
      download<unsigned long long>(out.bound, one.bound_counts ? z.rel_stride : 0, "reading the bound check back failed");
  if (!sums) return Error{sums.error()};
  if (!keys) return Error{keys.error()};
  if (!rel || !ulps) return Error{!rel ? rel.error() : ulps.error()};
  if (!bound) return Error{bound.error()};
  FirstPass first = assemble_first_pass(cs, *sums, *keys, *rel, *ulps, *bound);
  uint64_t keyed = 0;
  for (unsigned k : *keys) keyed += k;
  if (keyed != first.sums.count)
    return Error{"the GPU's first pass counted " + std::to_string(keyed) + " error keys for " +
                 std::to_string(first.sums.count) + " compared elements"};
  return first;
}

}  // namespace

Expected<std::vector<ErrorStats>> device_error_stats(std::span<const HeldComparison> held, DType output,
                                                     double rel_floor, int sm_count, uint64_t holder,
                                                     KeptUpload* kept_abs) {
  namespace passes = experiment::error_passes;
  const passes::OutputMeasure m = passes::output_measure(output, rel_floor);
  size_t n = held.empty() ? 0 : std::min(held[0].result->size(), held[0].reference->size());
  for (const HeldComparison& c : held) n = std::min({n, c.result->size(), c.reference->size()});
  // core's view of each comparison: its arrays' host values only where they are host arrays (a
  // device's are read there; finish() reads them only for a rare bound check, fetched below).
  std::vector<Comparison> cs(held.size());
  auto host_views = [&](size_t c) -> Status {
    auto result = held[c].result->host();
    auto reference = held[c].reference->host();
    if (!result || !reference) return Error{!result ? result.error() : reference.error()};
    cs[c].result = *result, cs[c].reference = *reference;
    return {};
  };
  for (size_t c = 0; c < held.size(); ++c) {
    cs[c] = {{}, {}, held[c].histograms, {}, held[c].bound, held[c].bound_check};
    if (!held_pointer(*held[c].result, holder) && !held_pointer(*held[c].reference, holder))
      if (auto ok = host_views(c); !ok) return Error{ok.error()};
  }
  const size_t count = cs.size(), spans = (n + kSpan - 1) / kSpan;
  if (count == 0 || n == 0) return experiment::error_stats(cs, output, rel_floor);  // (no element to read)
  PhaseTrace trace("cuda error statistics (" + std::to_string(count) + " x " + std::to_string(n) + ")");

  const experiment::OctaveBins& rel_bins = experiment::OctaveBins::get(passes::kRelPerOctave);
  const experiment::OctaveBins& ulp_bins = experiment::OctaveBins::get(passes::kUlpPerOctave);
  const size_t rel_stride = rel_bins.counted_slots(), ulp_stride = ulp_bins.counted_slots();
  DeviceBuffer d_rel, d_ulp;
  if (auto ok = upload(d_rel, rel_bins.entries(), "out of GPU memory for the octave tables"); !ok)
    return Error{ok.error()};
  if (auto ok = upload(d_ulp, ulp_bins.entries(), "out of GPU memory for the octave tables"); !ok)
    return Error{ok.error()};
  const OctaveTables tables{d_rel.as<const uint64_t>(), static_cast<uint32_t>(rel_bins.slots()),
                            d_ulp.as<const uint64_t>(), static_cast<uint32_t>(ulp_bins.slots())};

  // Pass 1's inputs and outputs, one set per comparison.
  Uploads arrays(holder);
  std::vector<Outputs> out(count);
  std::vector<PassOneArrays> one(count);
  const unsigned replicas = count_replicas();
  for (size_t c = 0; c < count; ++c)
    if (auto ok = pass_one_inputs(held[c], cs[c], n, {spans, replicas, rel_stride, ulp_stride}, m, arrays, out[c], one[c],
                                  kept_abs);
        !ok)
      return Error{ok.error()};
  trace.mark("upload");
  DeviceBuffer d_one;
  if (auto ok = upload(d_one, std::span<const PassOneArrays>(one), "out of GPU memory"); !ok) return Error{ok.error()};
  if (auto e = launch_error_pass_one(d_one.as<const PassOneArrays>(), static_cast<int>(count), n, tables, nullptr);
      e != cudaSuccess)
    return Error{cuda_error("the error statistics' first pass failed to start", e)};
  for (size_t c = 0; c < count; ++c)
    if (auto e = launch_fold_replicas(one[c], tables, nullptr); e != cudaSuccess)
      return Error{cuda_error("the error statistics' first pass failed to start", e)};
  if (auto e = cudaDeviceSynchronize(); e != cudaSuccess)
    return Error{cuda_error("the error statistics' first pass failed", e)};
  trace.mark("pass 1");

  // Between the passes, on the host: core's own decisions.
  std::vector<FirstPass> first;
  std::vector<Plan> plans;
  bool second = false;
  for (size_t c = 0; c < count; ++c) {
    auto f = read_first_pass(cs[c], out[c], one[c], {spans, replicas, rel_stride, ulp_stride});
    if (!f) return Error{f.error()};
    first.push_back(std::move(f).value());
    plans.push_back(passes::plan(cs[c], first.back(), m));
    if (plans.back().log_histograms)
      return Error{
          "relative or ulp errors range past the octave table (below 2^-1022 or past 2^1023): binned on the CPU"};
    second |= plans.back().needed;
  }
  trace.mark("plan");

  // Passes 2 and 3, when the plans leave anything to them.
  std::vector<Gathered> gathered_values(count);
  if (second) {
    auto g = later_passes(one, first, plans, n, sm_count, trace);
    if (!g) return Error{g.error()};
    gathered_values = std::move(*g);
  } else {
    for (size_t c = 0; c < count; ++c) gathered_values[c] = gathered(plans[c], {}, {});
    trace.mark("pass 2 (nothing to gather)");
  }

  // A bound check whose scaled errors range past the octave table bins them from the arrays
  // themselves: those of a device read back (rare: below 2^-1022 or past 2^1023).
  for (size_t c = 0; c < count; ++c)
    if (cs[c].result.empty() && first[c].bound && first[c].bound->needs_arrays())
      if (auto ok = host_views(c); !ok) return Error{ok.error()};
  // The percentiles (a selection each), the comparisons split between the threads as the CPU's
  // error_stats() splits them (20-26 ms for four comparisons one after another on the H100 machine).
  std::vector<ErrorStats> stats(count);
  parallel_for(
      count, 0,
      [&](size_t c0, size_t c1) {
        for (size_t c = c0; c < c1; ++c) stats[c] = passes::finish(cs[c], n, plans[c], gathered_values[c], first[c]);
      },
      1);
  trace.mark("finish");
  return stats;
}

}  // namespace pl::cuda
