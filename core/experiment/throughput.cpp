#include "core/experiment/throughput.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "core/accumulate/blas.h"
#include "core/accumulate/gemm.h"
#include "core/backend/backend.h"
#include "core/experiment/matmul.h"
#include "core/util/median.h"
#include "core/util/memory_room.h"

namespace pl::experiment {

Expected<Accumulation> default_product_accumulation(DType dtype) {
  if (dtype == DType::float64) return Accumulation{AccumKind::Blas, DType::float64};
  if (dtype == DType::int8 || dtype == DType::uint8) return Accumulation{AccumKind::Int32, DType::int32};
  if (is_float(dtype)) return Accumulation{AccumKind::Blas, DType::float32};
  return Error{std::string(name(dtype)) + ": products are timed for float dtypes, int8 and uint8"};
}

size_t largest_product_bench(BackendChoice backend) { return backend == BackendChoice::Cpu ? 4096 : 16384; }

namespace {

// The linear layer whose operands a product bench draws: normal values, rounded to `dtype`.
MatmulConfig bench_config(DType dtype, size_t n, const Accumulation& acc) {
  MatmulConfig c;
  c.op = MatmulOp::Linear;
  c.m = c.n = c.k = n;
  c.input = c.weight = dtype;
  c.output = DType::float32;
  c.accumulate = acc;
  // Integers need a scale per output channel: symmetric for int8, as int8 inference quantises;
  // with a zero point for uint8, as PyTorch's quint8 (a symmetric recipe refuses uint8, and the
  // experiment offered uint8 only to refuse it).
  if (!is_float(dtype))
    c.input_scaling.kind = c.weight_scaling.kind =
        dtype == DType::uint8 ? ScalingKind::PerChannelAsymmetric : ScalingKind::PerChannel;
  return c;
}

}  // namespace

Status check_product_bench(DType dtype, size_t n, BackendChoice backend, const std::optional<Accumulation>& with) {
  const size_t largest = largest_product_bench(backend);
  if (n == 0 || n > largest) return Error{"the product size must lie in [1, " + std::to_string(largest) + "]"};
  auto acc = with ? Expected<Accumulation>(*with) : default_product_accumulation(dtype);
  if (!acc) return Error{acc.error()};
  // The dtypes and recipes as an experiment checks them; not its working-memory limit, which
  // counts references and error arrays a bare product never makes (8192 would need "12 GiB").
  return check(bench_config(dtype, 16, *acc));
}

Expected<ProductBench> product_bench_operands(DType dtype, size_t n, BackendChoice backend) {
  if (auto st = check_product_bench(dtype, n, backend); !st) return Error{st.error()};
  // The drawn operands, their rounded copies and the two kept: about 48 n^2 bytes at the peak,
  // refused before they are made (memory_room.h): 16384^2 needs 12 GiB a dtype.
  const double bytes = 48.0 * double(n) * double(n);
  if (auto st = check_room(bytes, std::string(name(dtype)) + "'s " + std::to_string(n) + "^3 product", memory_room());
      !st)
    return Error{st.error()};
  auto acc = default_product_accumulation(dtype);
  const MatmulConfig c = bench_config(dtype, n, *acc);
  const MatmulOperands ops = generate_operands(c);
  ProductBench b;
  b.dtype = dtype;
  b.n = n;
  b.accumulate = *acc;
  b.a = quantise(ops.a, n, n, dtype, c.input_scaling, c.cast).values;  // (moved: an xvalue)
  b.b = quantise(ops.b, n, n, dtype, c.weight_scaling, c.cast).values;
  b.method = product_method(dtype);
  b.emulated = product_emulated(dtype);
  return b;
}

Expected<ProductBench> prepare_product_bench(DType dtype, size_t n, BackendChoice backend) {
  if (auto st = check_product_bench(dtype, n, backend); !st) return Error{st.error()};
  const ProductSpec spec{{n, n, n}, dtype, dtype, *default_product_accumulation(dtype)};
  // The device that times it, found before any operand is drawn: a size only a GPU takes is
  // refused at once when no GPU can run it (two 16384^2 operands are 12 GiB of work to throw away).
  std::optional<SharedBackend> device;
  std::string why;  // why a device that was asked for does not time it; empty otherwise
  if (auto found = device_for(backend, spec); !found) why = found.error();
  else device = std::move(found).value();
  const size_t cpu_largest = largest_product_bench(BackendChoice::Cpu);
  // Past the CPU's largest size (a GPU's sizes): timed on the CPU, one 16384^3 product would
  // take hours, so the fallback is refused instead.
  auto refused = [&] {
    return Error{"a " + std::to_string(n) + "^3 product would run on the CPU (" +
                 (why.empty() ? std::string("no GPU opened") : why) + "), which takes n up to " +
                 std::to_string(cpu_largest)};
  };
  if (!device && n > cpu_largest) return refused();
  auto prepared = product_bench_operands(dtype, n, backend);
  if (!prepared) return Error{prepared.error()};
  ProductBench b = std::move(prepared).value();
  if (device) {
    Backend& d = *device->backend;
    std::lock_guard lock(*device->mutex);
    auto t = d.time_product(spec, b.a, b.b, 1, nullptr);  // uploads, warms up
    if (t) {
      b.backend = parse_backend_choice(d.name()).value_or(backend);
      b.method = t->method + " (" + d.device_info().name + ")";
      b.emulated = !t->native;
      return b;
    }
    why = d.name() + " failed: " + t.error();
    if (n > cpu_largest) return refused();
  }
  if (!why.empty()) b.method += " -- on the CPU, " + why;
  return b;
}

ThroughputDevice throughput_device(BackendChoice backend) {
  const DeviceInfo cpu = make_cpu_backend()->device_info();
  ThroughputDevice d{cpu.name + " (" + std::to_string(cpu.cores) + " threads, OpenBLAS core " + blas::info().core + ")",
                     BackendChoice::Cpu, false, cpu};
  if (backend == BackendChoice::Cpu) return d;
  if (auto shared = shared_backend(backend); shared && shared->backend->name() != "cpu") {
    const DeviceInfo gpu = shared->backend->device_info();
    d = {gpu.name + " (" + shared->backend->name() + "; dtypes it cannot run are timed on the CPU)",
         parse_backend_choice(shared->backend->name()).value_or(backend), true, gpu};
  }
  return d;
}

bool product_emulated(DType dtype) { return dtype != DType::float64 && dtype != DType::float32; }

std::string product_method(DType dtype) {
  const std::string core = "OpenBLAS, core " + blas::info().core;
  if (!product_emulated(dtype)) return std::string(dtype == DType::float64 ? "dgemm" : "sgemm") + " (" + core + ")";
  if (!is_float(dtype))
    return std::string(name(dtype)) + " products summed exactly in dgemm, wrapped to int32 (" + core + "; emulation)";
  return std::string(name(dtype)) + " values in sgemm (" + core + "; emulation)";
}

std::string method_without_library(const std::string& method) {
  const std::string core = "OpenBLAS, core " + blas::info().core;
  std::string out = method;
  for (const std::string& clause : {" (" + core + ")", core + "; "})
    if (const size_t at = out.find(clause); at != std::string::npos) out.erase(at, clause.size());
  return out;
}

Expected<double> time_product(const ProductBench& b, const std::atomic<bool>* cancel) {
  if (b.backend != BackendChoice::Cpu) {
    auto shared = shared_backend(b.backend);
    if (!shared) return Error{shared.error()};
    std::lock_guard lock(*shared->mutex);
    auto t = shared->backend->time_product({{b.n, b.n, b.n}, b.dtype, b.dtype, b.accumulate}, b.a, b.b, 1, cancel);
    if (!t) return Error{t.error()};
    return t->median;
  }
  return sample_seconds([&]() -> Expected<double> {
    const auto t0 = std::chrono::steady_clock::now();
    auto c = gemm({b.n, b.n, b.n}, b.a, b.b, b.accumulate, {}, cancel);
    if (!c) return Error{c.error()};
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
}

Expected<double> sample_seconds(const std::function<Expected<double>()>& timed_once) {
  auto first = timed_once();
  if (!first || *first >= kWarmBeforeSample) return first;
  return timed_once();
}

std::string rate_unit_name(const RateUnit& u, DType t) {
  std::string name = u.name;
  if (is_integer(t))
    if (const size_t at = name.find("FLOP"); at != std::string::npos) name.replace(at, 4, "OP");
  return name;
}

std::string rate_axis_name(const RateUnit& u, const std::vector<DType>& dtypes) {
  std::string integers;
  for (DType t : dtypes)
    if (rate_unit_name(u, t) != u.name) integers.append(integers.empty() ? "" : ", ").append(pl::name(t));
  if (integers.empty()) return u.name;
  return std::string(u.name) + " (" + integers + ": " + rate_unit_name(u, DType::int8) + ")";
}

double product_gflops(size_t n, double seconds) {
  const double N = static_cast<double>(n);
  return seconds > 0 ? 2.0 * N * N * N / seconds / 1e9 : 0;
}

double product_seconds(size_t n, double gflops) {
  const double N = static_cast<double>(n);
  return gflops > 0 ? 2.0 * N * N * N / (gflops * 1e9) : 0;
}

void ThroughputHistory::add(const ThroughputSample& s) {
  samples_.push_back(s);
  if (count(s.dtype) <= kept_) return;
  const auto same = [&](const ThroughputSample& o) { return o.dtype == s.dtype; };
  samples_.erase(std::find_if(samples_.begin(), samples_.end(), same));
  trimmed_ = true;
}

std::vector<DType> ThroughputHistory::dtypes() const {
  std::vector<DType> out;
  for (const auto& s : samples_)
    if (std::find(out.begin(), out.end(), s.dtype) == out.end()) out.push_back(s.dtype);
  return out;
}

std::vector<DType> ThroughputHistory::rows(const std::vector<DType>& chosen) const {
  std::vector<DType> out = chosen;
  for (DType t : dtypes())
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  return out;
}

std::vector<ThroughputSample> ThroughputHistory::of(DType t) const {
  std::vector<ThroughputSample> out;
  for (const auto& s : samples_)
    if (s.dtype == t) out.push_back(s);
  return out;
}

size_t ThroughputHistory::count(DType t) const {
  return static_cast<size_t>(
      std::count_if(samples_.begin(), samples_.end(), [t](const ThroughputSample& s) { return s.dtype == t; }));
}

std::vector<double> ThroughputHistory::sliding_median(DType t, size_t window) const {
  const auto mine = of(t);
  std::vector<double> out;
  window = std::max<size_t>(window, 1);
  for (size_t i = 0; i < mine.size(); ++i) {
    std::vector<double> w;
    for (size_t j = i + 1 > window ? i + 1 - window : 0; j <= i; ++j) w.push_back(mine[j].gflops);
    out.push_back(median(std::move(w)));
  }
  return out;
}

double ThroughputHistory::median_gflops(DType t) const {
  std::vector<double> v;
  for (const auto& s : samples_)
    if (s.dtype == t) v.push_back(s.gflops);
  return median(std::move(v));
}

Quartiles ThroughputHistory::quartiles_gflops(DType t) const {
  std::vector<double> v;
  for (const auto& s : samples_)
    if (s.dtype == t) v.push_back(s.gflops);
  return quartiles(std::move(v));
}

std::string spread_text(const Quartiles& q, double scale) {
  const double lo = q.q1 * scale, mid = q.median * scale, hi = q.q3 * scale, iqr = hi - lo;
  // Decimals for two significant digits of the spread; a spread of 0 (one sample): three of the median.
  const double ref = iqr > 0 ? iqr : std::fabs(mid) / 10;
  const int decimals = ref > 0 ? std::clamp(1 - static_cast<int>(std::floor(std::log10(ref))), 0, 6) : 0;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.*f (%.*f-%.*f)", decimals, mid, decimals, lo, decimals, hi);
  return buf;
}

bool spreads_overlap(const Quartiles& q, const Quartiles& reference) {
  const bool spread = q.q3 > q.q1 || reference.q3 > reference.q1;
  return spread && q.q1 <= reference.q3 && reference.q1 <= q.q3;
}

std::string ratio_text(const Quartiles& q, const Quartiles& reference) {
  if (reference.median <= 0) return "";
  if (spreads_overlap(q, reference)) return "spreads overlap";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * q.median / reference.median);
  return buf;
}

Status sample_throughput(const std::vector<DType>& dtypes, size_t n, const std::atomic<bool>& stop,
                         const std::function<void(const ThroughputSample&)>& on_sample,
                         const std::function<void(const std::string&)>& on_status, BackendChoice backend,
                         const std::function<void(const ProductBench&)>& on_prepared) {
  std::vector<ProductBench> benches;
  for (DType t : dtypes) {
    if (stop) return {};
    if (on_status) on_status("preparing " + std::string(name(t)) + " operands");
    auto b = prepare_product_bench(t, n, backend);
    if (!b) return Error{std::string(name(t)) + ": " + b.error()};
    // One untimed product first: pages, caches and OpenBLAS's threads warm up.
    if (auto w = time_product(*b, &stop); !w) return stop ? Status{} : Error{w.error()};
    if (on_prepared) on_prepared(*b);
    benches.push_back(std::move(b).value());
  }
  if (benches.empty()) return {};
  if (on_status) on_status("sampling");
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; !stop; i = (i + 1) % benches.size()) {
    auto s = time_product(benches[i], &stop);
    if (!s) return stop ? Status{} : Error{s.error()};
    const double at = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    on_sample({benches[i].dtype, at, product_gflops(n, *s)});
    // Half duty: the window keeps its frame rate while the chart is live.
    const auto pause = std::chrono::duration<double>(std::min(*s, 0.25));
    for (auto until = std::chrono::steady_clock::now() + pause; !stop && std::chrono::steady_clock::now() < until;)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return {};
}

}  // namespace pl::experiment
