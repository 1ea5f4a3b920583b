#include "core/backend/backend.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "core/accumulate/output_steps.h"
#include "core/analysis/pooled_difference.h"
#include "core/dtype/codec.h"
#include "core/util/median.h"
#include "core/util/parallel.h"

namespace pl {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::map<BackendChoice, BackendFactory>& registry() {
  static std::map<BackendChoice, BackendFactory> r{
      {BackendChoice::Cpu, []() -> Expected<std::unique_ptr<Backend>> { return make_cpu_backend(); }}};
  return r;
}

}  // namespace

Expected<std::vector<experiment::ErrorStats>> Backend::error_stats(std::span<const experiment::Comparison> cs,
                                                                   DType output, double rel_floor) {
  return experiment::error_stats(cs, output, rel_floor);
}

Expected<std::string> Backend::product_f32(const experiment::GemmShape& s, std::span<const float> a,
                                           std::span<const float> b, std::span<float> c) {
  if (a.size() != s.m * s.k || b.size() != s.n * s.k || c.size() != s.m * s.n)
    return Error{"float32 product: the arrays do not fit the shape"};
  const ProductSpec spec{s, DType::float32, DType::float32, {experiment::AccumKind::Blas, DType::float32}};
  // (Uninitialised and filled on every core: 2 x 128 MB at 4096^2.)
  const std::unique_ptr<double[]> da(new double[a.size()]), db(new double[b.size()]);
  parallel_for(a.size(), 0, [&](size_t i0, size_t i1) { std::copy(a.begin() + i0, a.begin() + i1, da.get() + i0); });
  parallel_for(b.size(), 0, [&](size_t i0, size_t i1) { std::copy(b.begin() + i0, b.begin() + i1, db.get() + i0); });
  auto run = product(spec, {da.get(), a.size()}, {db.get(), b.size()}, {});
  if (!run) return Error{run.error()};
  const std::vector<double>& wide = run->c;  // float32 values: narrowed exactly
  parallel_for(wide.size(), 0,
               [&](size_t i0, size_t i1) { std::copy(wide.begin() + i0, wide.begin() + i1, c.begin() + i0); });
  return run->method;
}

Expected<HeldRun> Backend::product_held(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                        const ProductControl& control) {
  auto run = product(s, a, b, control);
  if (!run) return Error{run.error()};
  return HeldRun{hold_on_host(std::move(run->c)), std::move(run->method), run->device_seconds};
}

Expected<HeldOutput> Backend::finish_output(const experiment::OutputSteps& steps, Held sums) {
  if (!sums || sums->size() != steps.m * steps.n) return Error{"the product's sums do not fit the output"};
  HeldOutput out;
  if (!steps.has_epilogue()) {
    out.accumulated = std::move(sums);
  } else {
    auto taken = take_values(std::move(sums));  // (moved when only this call holds them)
    if (!taken) return Error{taken.error()};
    std::vector<double> values = std::move(taken).value();
    experiment::apply_epilogue(steps, values);
    out.accumulated = hold_on_host(std::move(values));
  }
  auto acc = out.accumulated->host();
  if (!acc) return Error{acc.error()};
  std::vector<double> result(acc->size());
  round_each(info(steps.output).format, *acc, result, steps.cast);
  out.result = hold_on_host(std::move(result));
  return out;
}

Expected<Held> Backend::add_to_rows(const Held& x, std::span<const double> row) {
  auto in = x->host();
  if (!in) return Error{in.error()};
  const size_t n = row.size();
  if (n == 0 || in->size() % n != 0) return Error{"the row does not fit the array's rows"};
  std::vector<double> y(in->size());
  const double* const src = in->data();
  parallel_for(
      in->size() / n, 0,
      [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r)
          for (size_t j = 0; j < n; ++j) y[r * n + j] = src[r * n + j] + row[j];
      },
      rows_worth_a_thread(n));
  return hold_on_host(std::move(y));
}

Expected<std::vector<experiment::ErrorStats>> Backend::error_stats_held(std::span<const HeldComparison> cs,
                                                                        DType output, double rel_floor) {
  std::vector<experiment::Comparison> host(cs.size());
  for (size_t i = 0; i < cs.size(); ++i) {
    auto result = cs[i].result->host();
    if (!result) return Error{result.error()};
    auto reference = cs[i].reference->host();
    if (!reference) return Error{reference.error()};
    host[i] = {*result, *reference, cs[i].histograms, {}, cs[i].bound, cs[i].bound_check};
  }
  return error_stats(host, output, rel_floor);
}

Expected<experiment::PooledDifference> Backend::pooled_difference(const Held& a, const Held& b, size_t rows,
                                                                  size_t cols, size_t limit) {
  auto ha = a->host();
  if (!ha) return Error{ha.error()};
  auto hb = b->host();
  if (!hb) return Error{hb.error()};
  if (ha->size() != rows * cols || hb->size() != rows * cols)
    return Error{"the heat map's arrays do not fit its shape"};
  return experiment::pooled_difference(*ha, *hb, rows, cols, limit);
}

ConvertTiming make_convert_timing(size_t elements, std::vector<double> convert_seconds,
                                  std::vector<double> copy_seconds, std::string method) {
  ConvertTiming t{};
  t.elements = elements;
  t.repetitions = static_cast<int>(convert_seconds.size());
  t.convert_seconds = median(std::move(convert_seconds));
  t.copy_seconds = median(std::move(copy_seconds));
  const double bytes = 2.0 * double(elements) * sizeof(float);  // read + written
  t.convert_gbps = bytes / t.convert_seconds / 1e9;
  t.copy_gbps = bytes / t.copy_seconds / 1e9;
  t.method = std::move(method);
  return t;
}

void register_backend(BackendChoice device, BackendFactory factory) {
  if (device == BackendChoice::Auto) return;  // a rule, not a device
  std::lock_guard lock(registry_mutex());
  registry()[device] = std::move(factory);
}

std::vector<BackendChoice> registered_backends() {
  std::lock_guard lock(registry_mutex());
  std::vector<BackendChoice> out;
  for (auto& [c, f] : registry()) out.push_back(c);
  return out;
}

Expected<OpenedBackend> open_backend(BackendChoice choice) {
  auto opened = [](Expected<std::unique_ptr<Backend>> b, std::string note = {}) -> Expected<OpenedBackend> {
    if (!b) return Error{b.error()};
    return OpenedBackend{std::move(b).value(), std::move(note)};
  };
  BackendFactory factory;
  {
    std::lock_guard lock(registry_mutex());
    if (choice == BackendChoice::Auto) {
      std::string note = "this build has no CUDA backend; using the CPU backend";
      if (auto it = registry().find(BackendChoice::Cuda); it != registry().end()) {
        auto b = it->second();
        if (b) return opened(std::move(b));
        note = "CUDA unavailable (" + b.error() + "); using the CPU backend";
      }
      return opened(registry().at(BackendChoice::Cpu)(), std::move(note));
    }
    auto it = registry().find(choice);
    if (it == registry().end())
      return Error{"this build has no " + std::string(backend_choice_name(choice)) + " backend"};
    factory = it->second;
  }
  return opened(factory());
}

namespace {
std::mutex& shared_mutex() {
  static std::mutex m;
  return m;
}
std::map<BackendChoice, SharedBackend>& shared_open() {
  static std::map<BackendChoice, SharedBackend> open;
  return open;
}
}  // namespace

void unregister_backend(BackendChoice device) {
  {
    std::lock_guard lock(registry_mutex());
    if (device != BackendChoice::Cpu) registry().erase(device);
  }
  std::lock_guard lock(shared_mutex());
  shared_open().erase(device);
  shared_open().erase(BackendChoice::Auto);
}

Expected<SharedBackend> shared_backend(BackendChoice choice) {
  std::lock_guard lock(shared_mutex());
  auto& open = shared_open();
  if (auto it = open.find(choice); it != open.end()) return it->second;
  auto b = open_backend(choice);
  if (!b) return Error{b.error()};  // not cached: a driver may appear, and the error is cheap
  OpenedBackend opened = std::move(b).value();
  SharedBackend s{std::shared_ptr<Backend>(std::move(opened.backend)), std::make_shared<std::mutex>(),
                  std::move(opened.note)};
  // Auto and the device it resolved to share one object (and one device context).
  const BackendChoice resolved = parse_backend_choice(s.backend->name()).value_or(choice);
  if (choice != resolved) {
    if (auto it = open.find(resolved); it != open.end()) s.backend = it->second.backend, s.mutex = it->second.mutex;
    else open[resolved] = SharedBackend{s.backend, s.mutex, ""};
  }
  open[choice] = s;
  return s;
}

Expected<std::optional<SharedBackend>> device_for(BackendChoice choice, const ProductSpec& s) {
  if (choice == BackendChoice::Cpu) return std::optional<SharedBackend>();
  auto shared = shared_backend(choice);
  if (!shared) return Error{std::string(backend_choice_name(choice)) + " unavailable: " + shared.error()};
  const Backend& device = *shared->backend;
  if (device.name() == "cpu") return std::optional<SharedBackend>();
  if (Support ok = device.supports_product(s); !ok.ok)
    return Error{device.name() + " cannot run " + experiment::describe(s.accumulate) + ": " + ok.why_not};
  return std::optional<SharedBackend>(std::move(shared).value());
}

}  // namespace pl
