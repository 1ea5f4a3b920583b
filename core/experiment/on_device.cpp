#include "core/experiment/on_device.h"

#include <memory>
#include <mutex>
#include <type_traits>

#include "core/accumulate/blas.h"
#include "core/backend/backend.h"

namespace pl::experiment {
namespace {

// Adds a line to a run's backend note ("; " between lines).
void add_note(std::string& note, const std::string& line) { note += (note.empty() ? "" : "; ") + line; }

}  // namespace

CachedReference reference_product(BackendChoice backend, const GemmShape& shape, std::span<const double> a,
                                  std::span<const double> b, bool high, const std::atomic<bool>* cancel,
                                  const std::shared_ptr<const void>& a_owner,
                                  const std::shared_ptr<const void>& b_owner) {
  auto compute = [&]() -> CachedReference {
    const ProductSpec spec{shape, DType::float64, DType::float64, {AccumKind::Blas, DType::float64}};
    // (Not a device: the CPU computes it below. A device that cannot is no error here.)
    if (auto device = high ? std::nullopt : device_for(backend, spec).value_or(std::nullopt)) {
      std::lock_guard lock(*device->mutex);
      // (Left on the device: the statistics read it there.)
      if (auto run = device->backend->product_held(spec, a, b, {}))
        return {std::move(run->c), run->method + " on " + device->backend->device_info().name};
    }
    auto values = reference_gemm(shape, a, b, high, cancel);
    if (!values) return {nullptr, values.error()};  // cancelled: reference_cached keeps no null
    return {hold_on_host(std::move(values).value()),
            high ? "double-double dot products (Dot2)" : "OpenBLAS dgemm, core " + blas::info().core};
  };
  bool hit = false;
  CachedReference r = reference_cached(shape, high, owned_operand_hash(a, b, a_owner, b_owner), compute, &hit);
  if (hit) r.method += " (cached)";
  return r;
}

Expected<std::vector<ErrorStats>> error_stats_on(BackendChoice backend, std::span<const HeldComparison> comparisons,
                                                 DType output, std::string& where, std::string& note) {
  where = "cpu";
  if (backend != BackendChoice::Cpu)
    if (auto shared = shared_backend(backend); shared && shared->backend->name() != "cpu") {
      Backend& device = *shared->backend;
      std::lock_guard lock(*shared->mutex);
      auto stats = device.error_stats_held(comparisons, output, 0);
      if (stats) {
        where = device.name() + " (" + device.device_info().name + ")";
        return stats;
      }
      const std::string failed = device.name() + " could not make the error statistics (" + stats.error() + ")";
      add_note(note, failed + ": the CPU made them");
      // (The CPU reads the device's arrays back: when it cannot, the device is lost with them.)
      auto on_cpu = make_cpu_backend()->error_stats_held(comparisons, output, 0);
      if (!on_cpu) return Error{failed + ", nor the CPU: " + on_cpu.error(), /*environment=*/true};
      return on_cpu;
    }
  return make_cpu_backend()->error_stats_held(comparisons, output, 0);
}

std::string abs_product(BackendChoice backend, const GemmShape& shape, const float* a, const float* b, float* out,
                        std::string& note) {
  const ProductSpec spec{shape, DType::float32, DType::float32, {AccumKind::Blas, DType::float32}};
  const std::span<const float> sa(a, shape.m * shape.k), sb(b, shape.n * shape.k);
  const std::span<float> sc(out, shape.m * shape.n);
  if (auto device = device_for(backend, spec).value_or(std::nullopt)) {
    std::lock_guard lock(*device->mutex);
    auto method = device->backend->product_f32(shape, sa, sb, sc);
    if (method) return *method + " on " + device->backend->device_info().name;
    add_note(note, device->backend->name() + " could not make |A||B| (" + method.error() + "): OpenBLAS did");
  }
  return make_cpu_backend()->product_f32(shape, sa, sb, sc).value();  // (the spans fit the shape)
}

// The rounder captures `this`: a copy or a move would leave it pointing at the old object.
static_assert(!std::is_copy_constructible_v<DeviceRounding> && !std::is_move_constructible_v<DeviceRounding>);

DeviceRounding::DeviceRounding(BackendChoice backend) {
  if (backend == BackendChoice::Cpu) return;
  auto b = shared_backend(backend);
  if (!b) {
    note_ = std::string(backend_choice_name(backend)) + " unavailable: " + b.error() + "; the CPU rounded the values";
    return;
  }
  if (b->backend->name() == "cpu") return;  // "auto" without a GPU: the CPU, and no note
  device_ = *b;
  round_ = [this](const FloatFormat& f, const CastOptions& o, std::span<double> v) {
    const std::lock_guard hold(*device_->mutex);
    return device_->backend->roundtrip_f64(f, o, v);
  };
}

std::string DeviceRounding::ran_on() const {
  if (!device_) return "cpu";
  return device_->backend->name() + " (" + device_->backend->device_info().name + ")";
}

std::string DeviceRounding::failed(const std::string& device_error) const {
  return (device_ ? device_->backend->name() : std::string("the device")) + " failed: " + device_error +
         "; the CPU rounded the values";
}

}  // namespace pl::experiment
