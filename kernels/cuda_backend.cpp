#include "kernels/cuda_backend.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <memory>
#include <string>
#include <vector>

#include "core/dtype/bulk_convert.h"
#include "kernels/convert.cuh"
#include "kernels/cublaslt_api.h"
#include "kernels/device_buffer.h"
#include "kernels/staged_copy.h"
#include "kernels/device_error_stats.h"
#include "kernels/device_peaks.h"
#include "kernels/product_engine.h"

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

int compute_capability(int device) {
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  return major * 10 + minor;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device) : device_(device), products_(device, compute_capability(device)) {
    cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_);
  }
  std::string name() const override { return "cuda"; }

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
    d.runtime = "sm_" + std::to_string(p.major * 10 + p.minor) + ", driver " +
                std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) +
                ", runtime " + std::to_string(runtime / 1000) + "." +
                std::to_string(runtime % 1000 / 10);
    auto lt = cuda::cublaslt_api();
    if (!lt) d.runtime += ", " + lt.error();
    else {
      const size_t v = (*lt)->version();  // major * 10000 + minor * 100 + patch
      d.runtime += ", cuBLASLt " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) +
                   "." + std::to_string(v % 100);
    }
    fill_peaks(d);
    return d;
  }

  Support supports_roundtrip(const FloatFormat& f, const CastOptions& o) const override {
    if (!make_roundtrip_params(f, o).supported) return {false, kNoKernel};
    return {true, ""};
  }

  Expected<bool> roundtrip_f32(const FloatFormat& f, const CastOptions& o, const float* in,
                               float* out, size_t n) override {
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
    return true;
  }

  Expected<bool> roundtrip_f64(const FloatFormat& f, const CastOptions& o, std::span<double> v) override {
    const RoundtripF64Params p = make_roundtrip_f64_params(f, o);
    if (!p.supported) return Error{kNoF64Kernel};
    if (v.empty()) return true;
    if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
    DeviceBuffer d;
    if (auto e = d.allocate(v.size_bytes()); e != cudaSuccess)
      return Error{cuda_error("out of GPU memory for the values", e)};
    cudaError_t e = cuda::copy_to_device(d.get(), v.data(), v.size_bytes());
    if (e == cudaSuccess) e = cuda::launch_roundtrip_f64(d.as<double>(), v.size(), p, sm_count_, nullptr);
    if (e == cudaSuccess) e = cuda::copy_to_host(v.data(), d.get(), v.size_bytes());
    if (e != cudaSuccess) return Error{cuda_error("float64 round-trip kernel failed", e)};
    return true;
  }

  Expected<ConvertTiming> time_roundtrip_f32(const FloatFormat& f, const CastOptions& o, size_t n,
                                             int reps) override {
    const RoundtripF32Params p = make_roundtrip_params(f, o);
    if (!p.supported) return Error{kNoKernel};
    cudaSetDevice(device_);
    DeviceBuffer d_in, d_out;
    if (auto e = d_in.allocate(n * sizeof(float)); e != cudaSuccess)
      return Error{cuda_error("out of GPU memory", e)};
    if (auto e = d_out.allocate(n * sizeof(float)); e != cudaSuccess)
      return Error{cuda_error("out of GPU memory", e)};
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
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
      return Error{cuda_error("timing run failed", e)};
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
    if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
    return cuda::device_error_stats(cs, output, rel_floor, sm_count_);
  }

 private:
  static constexpr const char* kNoKernel =
      "no GPU kernel for this format (custom formats finer than float32 in part, such as e9m10 or e7m30, run on "
      "the CPU codec)";
  static constexpr const char* kNoF64Kernel =
      "no GPU kernel rounds float64 values into float8_e8m0fnu (no zero, no sign): the CPU codec does";
  int device_;
  int sm_count_ = 1;
  cuda::ProductEngine products_;
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