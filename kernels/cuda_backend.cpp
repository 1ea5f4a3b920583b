#include "kernels/cuda_backend.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <memory>
#include <string>
#include <vector>

#include "core/accumulate/output_steps.h"
#include "core/analysis/pooled_difference.h"
#include "core/dtype/bulk_convert.h"
#include "kernels/convert.cuh"
#include "kernels/cublaslt_api.h"
#include "kernels/device_buffer.h"
#include "kernels/device_error_stats.h"
#include "kernels/device_peaks.h"
#include "kernels/device_values.h"
#include "kernels/held_kernels.cuh"
#include "kernels/product_engine.h"
#include "kernels/staged_copy.h"

namespace pl {
namespace {

using cuda::cuda_error;
using cuda::DeviceBuffer;

// Whether the NVIDIA driver's user-space library is there at all.
bool driver_installed() {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib) dlclose(lib);
  return lib != nullptr;
}

int sm_count(int device) {
  int count = 1;
  cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
  return count;
}

int compute_capability(int device) {
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  return major * 10 + minor;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device)
      : device_(device), sm_count_(sm_count(device)), products_(device, compute_capability(device), sm_count_) {}
  std::string name() const override { return "cuda"; }
  uint64_t holder() const override { return holder_; }

  DeviceInfo device_info() const override {
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, device_);
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    DeviceInfo d;
    d.backend = "cuda";
    d.name = p.name;
    d.compute_capability = std::to_string(p.major) + "." + std::to_string(p.minor);
    d.cores = p.multiProcessorCount;
    d.memory_gib = double(p.totalGlobalMem) / (1024.0 * 1024 * 1024);
    // (cudaDeviceProp's clock fields are gone in CUDA 13: the attributes remain, in kHz.)
    int sm_khz = 0, memory_khz = 0;
    if (cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device_) == cudaSuccess) d.sm_clock_mhz = sm_khz / 1000;
    if (cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device_) == cudaSuccess)
      d.memory_clock_mhz = memory_khz / 1000;
    cudaGetLastError();  // an attribute this driver lacks leaves no sticky error behind
    d.runtime = "sm_" + std::to_string(p.major * 10 + p.minor) + ", driver " + std::to_string(driver / 1000) + "." +
                std::to_string(driver % 1000 / 10) + ", runtime " + std::to_string(runtime / 1000) + "." +
                std::to_string(runtime % 1000 / 10);
    auto lt = cuda::cublaslt_api();
    if (!lt) d.runtime += ", " + lt.error();
    else {
      const size_t v = (*lt)->version();  // major * 10000 + minor * 100 + patch
      d.runtime += ", cuBLASLt " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                   std::to_string(v % 100);
    }
    if (d.sm_clock_mhz > 0)
      d.runtime += ", SM clock up to " + std::to_string(d.sm_clock_mhz) + " MHz, memory clock " +
                   std::to_string(d.memory_clock_mhz) + " MHz";
    fill_peaks(d);
    return d;
  }

  Support supports_roundtrip(const FloatFormat& f, const CastOptions& o) const override {
    if (!make_roundtrip_params(f, o).supported) return {false, kNoKernel};
    return {true, ""};
  }

  Status roundtrip_f32(const FloatFormat& f, const CastOptions& o, const float* in, float* out, size_t n) override {
    const RoundtripF32Params p = make_roundtrip_params(f, o);
    if (!p.supported) return Error{kNoKernel};
    if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
    DeviceBuffer d_in, d_out;
    if (auto e = d_in.allocate(n * sizeof(float)); e != cudaSuccess)
      return Error{cuda_error("out of GPU memory for the input", e)};
    if (auto e = d_out.allocate(n * sizeof(float)); e != cudaSuccess)
      return Error{cuda_error("out of GPU memory for the output", e)};
    cudaError_t e = cuda::copy_to_device(d_in.get(), in, n * sizeof(float));
    if (e == cudaSuccess)
      e = cuda::launch_roundtrip_f32(d_in.as<float>(), d_out.as<float>(), n, p, o.rounding, sm_count_, nullptr);
    if (e == cudaSuccess) e = cuda::copy_to_host(out, d_out.get(), n * sizeof(float));
    if (e != cudaSuccess) return Error{cuda_error("round-trip kernel failed", e)};
    return {};
  }

  Status roundtrip_f64(const FloatFormat& f, const CastOptions& o, std::span<double> v) override {
    const RoundtripF64Params p = make_roundtrip_f64_params(f, o);
    if (!p.supported) return Error{kNoF64Kernel};
    if (v.empty()) return {};
    if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
    DeviceBuffer d;
    if (auto e = d.allocate(v.size_bytes()); e != cudaSuccess)
      return Error{cuda_error("out of GPU memory for the values", e)};
    cudaError_t e = cuda::copy_to_device(d.get(), v.data(), v.size_bytes());
    if (e == cudaSuccess) e = cuda::launch_roundtrip_f64(d.as<double>(), v.size(), p, sm_count_, nullptr);
    if (e == cudaSuccess) e = cuda::copy_to_host(v.data(), d.get(), v.size_bytes());
    if (e != cudaSuccess) return Error{cuda_error("float64 round-trip kernel failed", e)};
    return {};
  }

  Expected<ConvertTiming> time_roundtrip_f32(const FloatFormat& f, const CastOptions& o, size_t n, int reps) override {
    const RoundtripF32Params p = make_roundtrip_params(f, o);
    if (!p.supported) return Error{kNoKernel};
    cudaSetDevice(device_);
    DeviceBuffer d_in, d_out;
    if (auto e = d_in.allocate(n * sizeof(float)); e != cudaSuccess) return Error{cuda_error("out of GPU memory", e)};
    if (auto e = d_out.allocate(n * sizeof(float)); e != cudaSuccess) return Error{cuda_error("out of GPU memory", e)};
    cuda::launch_fill_pattern(d_in.as<float>(), n, sm_count_, nullptr);
    cudaEvent_t t0, t1, t2;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaEventCreate(&t2);
    std::vector<double> tc, tm;
    for (int r = -2; r < reps; ++r) {  // two warm-up rounds, then interleaved timed rounds
      cudaEventRecord(t0);
      cuda::launch_roundtrip_f32(d_in.as<float>(), d_out.as<float>(), n, p, o.rounding, sm_count_, nullptr);
      cudaEventRecord(t1);
      cudaMemcpyAsync(d_out.get(), d_in.get(), n * sizeof(float), cudaMemcpyDeviceToDevice);
      cudaEventRecord(t2);
      cudaEventSynchronize(t2);
      float ms_c = 0, ms_m = 0;
      cudaEventElapsedTime(&ms_c, t0, t1);
      cudaEventElapsedTime(&ms_m, t1, t2);
      if (r >= 0) tc.push_back(ms_c * 1e-3), tm.push_back(ms_m * 1e-3);
    }
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaEventDestroy(t2);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return Error{cuda_error("timing run failed", e)};
    return make_convert_timing(n, tc, tm,
                               "CUDA events, median of " + std::to_string(reps) +
                                   " interleaved runs after 2 warm-ups; copy is cudaMemcpyAsync device-to-device; "
                                   "GB/s counts bytes read + written");
  }

  Support supports_product(const ProductSpec& s) const override { return products_.supports(s); }
  Expected<ProductRun> product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                               const ProductControl& control) override {
    return products_.run(s, a, b, control);
  }
  Expected<std::string> product_f32(const experiment::GemmShape& s, std::span<const float> a, std::span<const float> b,
                                    std::span<float> c) override {
    return products_.float32_product(s, a, b, c);
  }
  Expected<ProductTiming> time_product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                       int reps, const std::atomic<bool>* cancel) override {
    return products_.time(s, a, b, reps, cancel);
  }
  Expected<std::vector<experiment::ErrorStats>> error_stats(std::span<const experiment::Comparison> cs, DType output,
                                                            double rel_floor) override {
    std::vector<HeldComparison> held;
    for (const experiment::Comparison& c : cs) {
      if (!c.signed_errors.empty()) return Error{"the signed errors element by element are made on the CPU"};
      held.push_back({hold_view(c.result), hold_view(c.reference), c.histograms, c.bound, c.bound_check});
    }
    return error_stats_held(held, output, rel_floor);
  }

  // ---- Arrays kept on the device (core/backend/held_values.h) ----
  Expected<HeldRun> product_held(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                 const ProductControl& control) override {
    // The emulated models' elements may be finished on the CPU: their results come back.
    if (!products_.keeps_on_device(s)) return Backend::product_held(s, a, b, control);
    auto run = products_.run_on_device(s, a, b, control);
    if (!run) return Error{run.error()};
    cuda::DeviceProduct product = std::move(run).value();
    return HeldRun{held(std::move(product.c), s.shape.m * s.shape.n), std::move(product.method),
                   product.device_seconds};
  }

  Expected<HeldOutput> finish_output(const experiment::OutputSteps& steps, Held sums) override {
    const double* in = cuda::held_pointer(*sums, holder_);
    if (!in) return Backend::finish_output(steps, std::move(sums));  // sums on the host: finished there
    const RoundtripF64Params p = make_roundtrip_f64_params(info(steps.output).format, steps.cast);
    if (!p.supported) return Error{kNoF64Kernel};
    const size_t n = sums->size();
    if (n != steps.m * steps.n) return Error{"the product's sums do not fit the output"};
    if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
    HeldOutput out;
    if (!steps.has_epilogue()) {
      out.accumulated = std::move(sums);
    } else {
      auto acc = epilogue(steps, in);
      if (!acc) return Error{acc.error()};
      out.accumulated = std::move(acc).value();
    }
    auto rounded = cuda::device_doubles(n, "the rounded output");
    if (!rounded) return Error{rounded.error()};
    // A copy of Cacc rounded in place: element e draws stochastic index e, as round_each.
    const double* acc = cuda::held_pointer(*out.accumulated, holder_);
    cudaError_t e = cudaMemcpy((*rounded)->get(), acc, n * sizeof(double), cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess) e = cuda::launch_roundtrip_f64((*rounded)->as<double>(), n, p, sm_count_, nullptr);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return Error{cuda_error("rounding the output on the GPU failed", e)};
    out.result = held(std::move(rounded).value(), n);
    return out;
  }

  Expected<Held> add_to_rows(const Held& x, std::span<const double> row) override {
    const double* in = cuda::held_pointer(*x, holder_);
    if (!in) return Backend::add_to_rows(x, row);
    const size_t count = x->size(), n = row.size();
    if (n == 0 || count % n != 0) return Error{"the row does not fit the array's rows"};
    if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
    DeviceBuffer d_row;
    if (auto ok = cuda::upload(d_row, row, "out of GPU memory for the bias"); !ok) return Error{ok.error()};
    auto out = cuda::device_doubles(count, "the reference with its bias");
    if (!out) return Error{out.error()};
    cudaError_t e =
        cuda::launch_add_to_rows(in, d_row.as<const double>(), count, n, (*out)->as<double>(), sm_count_, nullptr);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return Error{cuda_error("adding the bias on the GPU failed", e)};
    return held(std::move(out).value(), count);
  }

  Expected<std::vector<experiment::ErrorStats>> error_stats_held(std::span<const HeldComparison> cs, DType output,
                                                                 double rel_floor) override {
    if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
    return cuda::device_error_stats(cs, output, rel_floor, sm_count_, holder_, &kept_abs_);
  }

  Expected<experiment::PooledDifference> pooled_difference(const Held& a, const Held& b, size_t rows, size_t cols,
                                                           size_t limit) override {
    const double* da = cuda::held_pointer(*a, holder_);
    const double* db = cuda::held_pointer(*b, holder_);
    if (!da && !db) return Backend::pooled_difference(a, b, rows, cols, limit);
    if (a->size() != rows * cols || b->size() != rows * cols)
      return Error{"the heat map's arrays do not fit its shape"};
    if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
    // The one a host array (a reference made on the CPU) goes up.
    DeviceBuffer uploaded;
    for (auto [held_array, pointer] : {std::pair{&a, &da}, std::pair{&b, &db}}) {
      if (*pointer) continue;
      auto host = (*held_array)->host();
      if (!host) return Error{host.error()};
      if (auto ok = cuda::upload(uploaded, *host, "out of GPU memory for the heat map's array"); !ok)
        return Error{ok.error()};
      *pointer = uploaded.as<const double>();
    }
    const experiment::PoolShape shape = experiment::pool_shape(rows, cols, limit);
    DeviceBuffer d_out;
    if (auto e = d_out.allocate(shape.rows * shape.cols * sizeof(double)); e != cudaSuccess)
      return Error{cuda_error("out of GPU memory for the heat map", e)};
    experiment::PooledDifference h;
    h.rows = shape.rows, h.cols = shape.cols;
    h.block_rows = shape.block_rows, h.block_cols = shape.block_cols;
    h.values.resize(shape.rows * shape.cols);
    cudaError_t e = cuda::launch_pooled_difference(da, db, rows, cols, shape, d_out.as<double>(), nullptr);
    if (e == cudaSuccess) e = cuda::copy_to_host(h.values.data(), d_out.get(), h.values.size() * sizeof(double));
    if (e != cudaSuccess) return Error{cuda_error("pooling the heat map on the GPU failed", e)};
    return h;
  }

 private:
  static constexpr const char* kNoKernel =
      "no GPU kernel for this format (custom formats finer than float32 in part, such as e9m10 or e7m30, run on "
      "the CPU codec)";
  static constexpr const char* kNoF64Kernel =
      "no GPU kernel rounds float64 values into float8_e8m0fnu (no zero, no sign): the CPU codec does";
  // Cacc: the epilogue of the sums (a device array) into a new device array.
  Expected<Held> epilogue(const experiment::OutputSteps& steps, const double* sums) {
    const experiment::DeviceEpilogue device = experiment::device_epilogue(steps);
    if (!device.supported)
      return Error{"no GPU kernel rounds into " + std::string(pl::name(experiment::result_dtype(steps.accumulate))) +
                   " (the float64 round trip covers every float format but e8m0)"};
    const size_t count = steps.m * steps.n;
    const bool scaled = steps.scaled();
    DeviceBuffer fa, fb, bias;
    for (auto [buffer, host] :
         {std::pair{&fa, scaled ? steps.row_factor_a : std::span<const double>()},
          std::pair{&fb, scaled ? steps.row_factor_b : std::span<const double>()}, std::pair{&bias, steps.bias}}) {
      if (host.empty()) continue;
      if (auto ok = cuda::upload(*buffer, host, "out of GPU memory for the epilogue"); !ok) return Error{ok.error()};
    }
    auto acc = cuda::device_doubles(count, "the accumulated values");
    if (!acc) return Error{acc.error()};
    cudaError_t e = cudaMemcpy((*acc)->get(), sums, count * sizeof(double), cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess)
      e = cuda::launch_epilogue((*acc)->as<double>(), steps.m, steps.n, fa.as<const double>(), fb.as<const double>(),
                                scaled, steps.bias.empty() ? nullptr : bias.as<const double>(), device.params,
                                sm_count_, nullptr);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return Error{cuda_error("the epilogue on the GPU failed", e)};
    return held(std::move(acc).value(), count);
  }

  // An array this backend keeps on its device.
  Held held(std::unique_ptr<DeviceBuffer> buffer, size_t size) const {
    return std::make_shared<cuda::DeviceValues>(std::move(buffer), size, holder_);
  }

  int device_;
  int sm_count_ = 1;
  cuda::ProductEngine products_;
  uint64_t holder_ = new_holder_id();
  cuda::KeptUpload kept_abs_;  // the bound check's |A||B| of the last statistics
};

}  // namespace

Expected<std::unique_ptr<Backend>> make_cuda_backend() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);  // without a driver this returns an error code
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls start clean
    // Without any NVIDIA driver the runtime says "driver version is insufficient", which
    // sends people looking for a driver update; say what is really missing.
    if (e == cudaErrorInsufficientDriver && !driver_installed())
      return Error{"no NVIDIA driver installed (libcuda.so.1 not found): no GPU to use"};
    return Error{cuda_error("no usable CUDA device", e)};
  }
  if (count == 0) return Error{"no CUDA device found"};
  return std::unique_ptr<Backend>(new CudaBackend(0));
}

}  // namespace pl