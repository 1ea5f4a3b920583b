#include "kernels/cuda_backend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype/bulk_convert.h"
#include "core/util/parallel.h"
#include "kernels/convert.cuh"
#include "kernels/device_buffer.h"
#include "kernels/device_peaks.h"
#include "kernels/emulated_gemm.cuh"
#include "kernels/emulated_plan.h"
#include "kernels/lt_gemm.h"
#include "kernels/lt_plan.h"
#include "kernels/operand_pack.h"

namespace pl {
namespace {

using cuda::cuda_error;
using cuda::DeviceBuffer;
using experiment::AccumKind;

bool is_library_model(const ProductSpec& s) {
  return s.accumulate.kind == AccumKind::Blas || s.accumulate.kind == AccumKind::Int32;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device) : device_(device) {
    cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_);
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device_);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device_);
    compute_capability_ = major * 10 + minor;
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
    cudaError_t e = cudaMemcpy(d_in.get(), in, n * sizeof(float), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
      e = cuda::launch_roundtrip_f32(d_in.as<float>(), d_out.as<float>(), n, p, o.rounding, sm_count_, nullptr);
    if (e == cudaSuccess) e = cudaMemcpy(out, d_out.get(), n * sizeof(float), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return Error{cuda_error("round-trip kernel failed", e)};
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

  Support supports_product(const ProductSpec& s) const override {
    if (is_library_model(s)) {
      auto plan = cuda::plan_library_product(s);
      if (!plan) return {false, plan.error()};
      if (plan->min_compute_capability > compute_capability_)
        return {false, plan->label + " needs compute capability " +
                           std::to_string(plan->min_compute_capability / 10) + "." +
                           std::to_string(plan->min_compute_capability % 10) + " or later"};
      return {true, ""};
    }
    if (s.accumulate.kind == AccumKind::Float64) return {true, ""};
    auto model = cuda::plan_emulated_product(s);
    if (!model) return {false, model.error()};
    return {true, ""};
  }

  Expected<ProductRun> product(const ProductSpec& s, std::span<const double> a,
                               std::span<const double> b, const ProductControl& control) override {
    if (Support ok = supports_product(s); !ok.ok) return Error{ok.why_not};
    if (a.size() != s.shape.m * s.shape.k || b.size() != s.shape.n * s.shape.k)
      return Error{"product: operand sizes do not match the shape"};
    if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
    if (is_library_model(s)) return library_product(s, a, b, control);
    return emulated_product(s, a, b, control);
  }

 private:
  Expected<ProductRun> library_product(const ProductSpec& s, std::span<const double> a,
                                       std::span<const double> b, const ProductControl& control);
  Expected<ProductRun> emulated_product(const ProductSpec& s, std::span<const double> a,
                                        std::span<const double> b, const ProductControl& control);

  static constexpr const char* kNoKernel =
      "no GPU kernel for this format (e8m0 and formats wider than float32 run on the CPU codec)";
  int device_;
  int sm_count_ = 1;
  int compute_capability_ = 0;
  std::unique_ptr<cuda::LtGemm> lt_;  // created at the first library product
};


// Uploads packed rows; an allocation failure is "out of GPU memory".
Expected<bool> upload(DeviceBuffer& d, const std::vector<uint8_t>& bytes, const char* what) {
  if (cudaError_t e = d.allocate(bytes.size()); e != cudaSuccess)
    return Error{cuda_error((std::string("out of GPU memory for the ") + what).c_str(), e)};
  if (cudaError_t e = cudaMemcpy(d.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice); e != cudaSuccess)
    return Error{cuda_error("copy to the GPU failed", e)};
  return true;
}

Expected<ProductRun> CudaBackend::library_product(const ProductSpec& s, std::span<const double> a,
                                                  std::span<const double> b,
                                                  const ProductControl& control) {
  const cuda::LtPlan plan = *cuda::plan_library_product(s);
  if (!lt_) {
    auto lt = cuda::LtGemm::create();
    if (!lt) return Error{lt.error()};
    lt_ = std::move(lt).value();
  }
  const auto& [m, n, k] = s.shape;
  const cuda::LtShape padded{cuda::round_up(m, plan.align), cuda::round_up(n, plan.align),
                             cuda::round_up(k, plan.align)};
  // Operands in the library's storage; zero rows and columns fill the padding (zeros add
  // nothing to a sum, and the padded part of D is never read).
  auto pa = cuda::pack_rows(a, m, k, padded.k, plan.input);
  if (!pa) return Error{"input: " + pa.error()};
  auto pb = cuda::pack_rows(b, n, k, padded.k, plan.weight);
  if (!pb) return Error{"weight: " + pb.error()};
  std::vector<uint8_t> a_bytes = std::move(pa).value().bytes, b_bytes = std::move(pb).value().bytes;
  a_bytes.resize(padded.m * padded.k * cuda::element_bytes(plan.input), 0);
  b_bytes.resize(padded.n * padded.k * cuda::element_bytes(plan.weight), 0);
  if (control.progress) control.progress(0.1);
  DeviceBuffer da, db, dd;
  if (auto ok = upload(da, a_bytes, "input"); !ok) return Error{ok.error()};
  if (auto ok = upload(db, b_bytes, "weight"); !ok) return Error{ok.error()};
  const size_t d_bytes = padded.m * padded.n * cuda::element_bytes(plan.out);
  if (cudaError_t e = dd.allocate(d_bytes); e != cudaSuccess)
    return Error{cuda_error("out of GPU memory for the result", e)};
  if (control.cancel && control.cancel->load()) return Error{"cancelled"};
  auto run = lt_->run(plan, padded, da.get(), db.get(), dd.get(), nullptr);
  if (!run) return Error{run.error()};
  std::vector<uint8_t> d_host(d_bytes);
  if (cudaError_t e = cudaMemcpy(d_host.data(), dd.get(), d_bytes, cudaMemcpyDeviceToHost); e != cudaSuccess)
    return Error{cuda_error("copy from the GPU failed", e)};
  if (control.progress) control.progress(1.0);
  ProductRun out;
  out.c = cuda::unpack_rows(d_host.data(), m, n, padded.n, plan.out);
  out.method = "cuBLASLt " + plan.label + " (" + run->algorithm + ")";
  out.device_seconds = run->milliseconds * 1e-3;
  return out;
}

Expected<ProductRun> CudaBackend::emulated_product(const ProductSpec& s, std::span<const double> a,
                                                   std::span<const double> b,
                                                   const ProductControl& control) {
  const auto& [m, n, k] = s.shape;
  const bool f64 = s.accumulate.kind == AccumKind::Float64;
  const cuda::Element e = f64 ? cuda::Element::F64 : cuda::Element::F32;
  auto pa = cuda::pack_rows(a, m, k, k, e);
  if (!pa) return Error{"input: " + pa.error()};
  auto pb = cuda::pack_rows(b, n, k, k, e);
  if (!pb) return Error{"weight: " + pb.error()};
  DeviceBuffer da, db, dc, dredo;
  if (auto ok = upload(da, pa->bytes, "input"); !ok) return Error{ok.error()};
  if (auto ok = upload(db, pb->bytes, "weight"); !ok) return Error{ok.error()};
  if (cudaError_t err = dc.allocate(m * n * cuda::element_bytes(e)); err != cudaSuccess)
    return Error{cuda_error("out of GPU memory for the result", err)};
  if (!f64)
    if (cudaError_t err = dredo.allocate(m * n); err != cudaSuccess)
      return Error{cuda_error("out of GPU memory", err)};
  cuda::EmulatedModel model;
  if (!f64) model = *cuda::plan_emulated_product(s);
  // Rows in slabs, so a long product reports progress and stops when cancelled.
  const size_t slab = std::max<size_t>(16, cuda::round_up((m + 15) / 16, 16));
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  float total_ms = 0;
  for (size_t r0 = 0; r0 < m; r0 += slab) {
    if (control.cancel && control.cancel->load()) {
      cudaEventDestroy(t0);
      cudaEventDestroy(t1);
      return Error{"cancelled"};
    }
    const size_t r1 = std::min(m, r0 + slab);
    cudaEventRecord(t0);
    cudaError_t err = f64 ? cuda::launch_float64_gemm(da.as<double>(), db.as<double>(), m, n, k, r0, r1, dc.as<double>(), nullptr)
                          : cuda::launch_emulated_gemm(da.as<float>(), db.as<float>(), m, n, k, r0, r1, model,
                                                       dc.as<float>(), dredo.as<uint8_t>(), nullptr);
    cudaEventRecord(t1);
    if (err == cudaSuccess) err = cudaEventSynchronize(t1);
    if (err != cudaSuccess) {
      cudaEventDestroy(t0);
      cudaEventDestroy(t1);
      return Error{cuda_error("emulated GEMM kernel failed", err)};
    }
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    total_ms += ms;
    if (control.progress) control.progress(0.9 * double(r1) / double(m));
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  std::vector<uint8_t> c_host(m * n * cuda::element_bytes(e)), redo(f64 ? 0 : m * n);
  cudaError_t err = cudaMemcpy(c_host.data(), dc.get(), c_host.size(), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && !f64) err = cudaMemcpy(redo.data(), dredo.get(), redo.size(), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) return Error{cuda_error("copy from the GPU failed", err)};
  ProductRun out;
  out.c = cuda::unpack_rows(c_host.data(), m, n, n, e);
  // Elements the GPU handed back (inexact products, sums past a format's range): the CPU's
  // general code, with the same stochastic stream offsets as its GEMM.
  std::vector<size_t> again;
  for (size_t i = 0; i < redo.size(); ++i)
    if (redo[i]) again.push_back(i);
  parallel_for(again.size(), 0, [&](size_t b0, size_t b1) {
    for (size_t t = b0; t < b1; ++t) {
      const size_t i = again[t] / n, j = again[t] % n;
      out.c[again[t]] = experiment::dot(a.subspan(i * k, k), b.subspan(j * k, k), s.accumulate,
                                        experiment::gemm_stream_offset(i, j, n));
    }
  }, 64);
  out.method = experiment::describe(s.accumulate) + " (own CUDA kernel, bit-exact with the CPU" +
               (again.empty() ? std::string(")") : "; " + std::to_string(again.size()) +
                " elements recomputed on the CPU: inexact products or sums out of range)");
  out.device_seconds = total_ms * 1e-3;
  if (control.progress) control.progress(1.0);
  return out;
}

}  // namespace

Expected<std::unique_ptr<Backend>> make_cuda_backend() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);  // without a driver this returns an error code
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return Error{cuda_error("no usable CUDA device", e)};
  }
  if (count == 0) return Error{"no CUDA device found"};
  return std::unique_ptr<Backend>(new CudaBackend(0));
}

}  // namespace pl
