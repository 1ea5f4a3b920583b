#include "core/backend/backend.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "core/util/median.h"
#include "core/util/parallel.h"

namespace pl {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, BackendFactory>& registry() {
  static std::map<std::string, BackendFactory> r{
      {"cpu", []() -> Expected<std::unique_ptr<Backend>> { return make_cpu_backend(); }}};
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
  parallel_for(wide.size(), 0, [&](size_t i0, size_t i1) { std::copy(wide.begin() + i0, wide.begin() + i1, c.begin() + i0); });
  return run->method;
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

void register_backend(const std::string& name, BackendFactory factory) {
  std::lock_guard lock(registry_mutex());
  registry()[name] = std::move(factory);
}

std::vector<std::string> registered_backends() {
  std::lock_guard lock(registry_mutex());
  std::vector<std::string> out;
  for (auto& [n, f] : registry()) out.push_back(n);
  return out;
}

Expected<std::unique_ptr<Backend>> open_backend(const std::string& name, std::string* note) {
  BackendFactory factory;
  {
    std::lock_guard lock(registry_mutex());
    if (name == "auto") {
      auto it = registry().find("cuda");
      if (it != registry().end()) {
        auto b = it->second();
        if (b) return b;
        if (note) *note = "CUDA unavailable (" + b.error() + "); using the CPU backend";
      } else if (note) {
        *note = "this build has no CUDA backend; using the CPU backend";
      }
      return registry().at("cpu")();
    }
    auto it = registry().find(name);
    if (it == registry().end()) {
      std::string known;
      for (auto& [n, f] : registry()) known += " " + n;
      return Error{"unknown backend '" + name + "'; available: auto" + known};
    }
    factory = it->second;
  }
  return factory();
}

namespace {
std::mutex& shared_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, SharedBackend>& shared_open() {
  static std::map<std::string, SharedBackend> open;
  return open;
}
}  // namespace

void unregister_backend(const std::string& name) {
  {
    std::lock_guard lock(registry_mutex());
    if (name != "cpu") registry().erase(name);
  }
  std::lock_guard lock(shared_mutex());
  shared_open().erase(name);
  shared_open().erase("auto");
}

Expected<SharedBackend> shared_backend(const std::string& name) {
  std::lock_guard lock(shared_mutex());
  auto& open = shared_open();
  if (auto it = open.find(name); it != open.end()) return it->second;
  SharedBackend s;
  auto b = open_backend(name, &s.note);
  if (!b) return Error{b.error()};  // not cached: a driver may appear, and the error is cheap
  s.backend = std::shared_ptr<Backend>(std::move(b).value());
  s.mutex = std::make_shared<std::mutex>();
  // "auto" and the name it resolved to share one object (and one device context).
  const std::string resolved = s.backend->name();
  if (name != resolved) {
    if (auto it = open.find(resolved); it != open.end()) s.backend = it->second.backend, s.mutex = it->second.mutex;
    else open[resolved] = SharedBackend{s.backend, s.mutex, ""};
  }
  open[name] = s;
  return s;
}

std::string check_backend_choice(const std::string& name) {
  if (name == "cpu" || name == "cuda" || name == "auto") return "";
  return "backend '" + name + "': expected cpu, cuda or auto";
}

Expected<SharedBackend> device_for(const std::string& name, const ProductSpec& s) {
  if (name == "cpu") return Error{""};
  auto shared = shared_backend(name);
  if (!shared) return Error{name + " unavailable: " + shared.error()};
  const Backend& device = *shared->backend;
  if (device.name() == "cpu") return Error{""};
  if (Support ok = device.supports_product(s); !ok.ok)
    return Error{device.name() + " cannot run " + experiment::describe(s.accumulate) + ": " + ok.why_not};
  return shared;
}

}  // namespace pl
