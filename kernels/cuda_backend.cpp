#include "kernels/cuda_backend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype/bulk_convert.h"
#include "core/util/median.h"
#include "core/util/parallel.h"
#include "kernels/convert.cuh"
#include "kernels/cublaslt_api.h"
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

  Expected<ProductTiming> time_product(const ProductSpec& s, std::span<const double> a,
                                       std::span<const double> b, int reps,
                                       const std::atomic<bool>* cancel) override;

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

  // Operands kept on the device between timing calls with the same host arrays (the live
  // sampler times the same product again and again; packing 8192^2 values takes seconds).
  // Rotating copies, so a product that fits in L2 is not timed from a warm cache.
  struct Resident {
    std::string key;
    std::vector<std::unique_ptr<DeviceBuffer>> a, b;
    DeviceBuffer d, redo;
    bool warm = false;  // timed before: later calls need no warm-up
  };
  std::vector<std::unique_ptr<Resident>> resident_;
  Expected<Resident*> resident(const std::string& key, const std::function<Expected<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>>()>& pack,
                               size_t d_bytes, size_t redo_bytes);
  Expected<bool> ensure_lt() {
    if (lt_) return true;
    auto lt = cuda::LtGemm::create();
    if (!lt) return Error{lt.error()};
    lt_ = std::move(lt).value();
    return true;
  }
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
  if (auto ok = ensure_lt(); !ok) return Error{ok.error()};
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


// Identifies host operands for the resident cache: their address, size and a sample of their
// values (a freed array whose address is reused with other data gets another key).
std::string operand_key(std::span<const double> x) {
  std::string k = std::to_string(reinterpret_cast<uintptr_t>(x.data())) + ":" + std::to_string(x.size());
  double sample = 0;
  for (size_t i = 0; i < x.size(); i += std::max<size_t>(1, x.size() / 61)) sample = sample * 1.0000001 + x[i];
  return k + ":" + std::to_string(sample);
}

Expected<CudaBackend::Resident*> CudaBackend::resident(
    const std::string& key,
    const std::function<Expected<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>>()>& pack,
    size_t d_bytes, size_t redo_bytes) {
  for (auto& r : resident_)
    if (r->key == key) return r.get();
  auto bytes = pack();
  if (!bytes) return Error{bytes.error()};
  const auto& [ab, bb] = *bytes;
  int l2 = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device_);
  const size_t copies = std::clamp<size_t>((2 * size_t(l2) + ab.size() + bb.size()) / std::max<size_t>(1, ab.size() + bb.size()), 1, 8);
  if (resident_.size() >= 4) resident_.erase(resident_.begin());  // oldest first
  auto r = std::make_unique<Resident>();
  r->key = key;
  for (size_t c = 0; c < copies; ++c) {
    r->a.push_back(std::make_unique<DeviceBuffer>());
    r->b.push_back(std::make_unique<DeviceBuffer>());
    if (auto ok = upload(*r->a.back(), ab, "input"); !ok) return Error{ok.error()};
    if (auto ok = upload(*r->b.back(), bb, "weight"); !ok) return Error{ok.error()};
  }
  if (cudaError_t e = r->d.allocate(d_bytes); e != cudaSuccess) return Error{cuda_error("out of GPU memory for the result", e)};
  if (cudaError_t e = r->redo.allocate(redo_bytes); e != cudaSuccess) return Error{cuda_error("out of GPU memory", e)};
  resident_.push_back(std::move(r));
  return resident_.back().get();
}

Expected<ProductTiming> CudaBackend::time_product(const ProductSpec& s, std::span<const double> a,
                                                  std::span<const double> b, int reps,
                                                  const std::atomic<bool>* cancel) {
  if (Support ok = supports_product(s); !ok.ok) return Error{ok.why_not};
  const auto& [m, n, k] = s.shape;
  if (a.size() != m * k || b.size() != n * k) return Error{"time_product: operand sizes do not match the shape"};
  if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
  const bool library = is_library_model(s);
  const bool f64 = s.accumulate.kind == AccumKind::Float64;
  cuda::LtPlan plan;
  cuda::LtShape padded{m, n, k};
  cuda::Element in = f64 ? cuda::Element::F64 : cuda::Element::F32, w = in, out = in;
  if (library) {
    plan = *cuda::plan_library_product(s);
    if (auto ok = ensure_lt(); !ok) return Error{ok.error()};
    padded = {cuda::round_up(m, plan.align), cuda::round_up(n, plan.align), cuda::round_up(k, plan.align)};
    in = plan.input, w = plan.weight, out = plan.out;
  }
  const std::string key = operand_key(a) + "|" + operand_key(b) + "|" + cuda::element_name(in) +
                          cuda::element_name(w) + std::to_string(padded.m) + "x" + std::to_string(padded.n) + "x" +
                          std::to_string(padded.k);
  auto res = resident(
      key,
      [&]() -> Expected<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> {
        auto pa = cuda::pack_rows(a, m, k, padded.k, in);
        if (!pa) return Error{"input: " + pa.error()};
        auto pb = cuda::pack_rows(b, n, k, padded.k, w);
        if (!pb) return Error{"weight: " + pb.error()};
        std::vector<uint8_t> ab = std::move(pa).value().bytes, bb = std::move(pb).value().bytes;
        ab.resize(padded.m * padded.k * cuda::element_bytes(in), 0);
        bb.resize(padded.n * padded.k * cuda::element_bytes(w), 0);
        return std::pair{std::move(ab), std::move(bb)};
      },
      padded.m * padded.n * cuda::element_bytes(out), library ? 0 : m * n);
  if (!res) return Error{res.error()};
  Resident& r = **res;
  cuda::EmulatedModel model;
  if (!library && !f64) model = *cuda::plan_emulated_product(s);
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  ProductTiming t;
  std::string error;
  const int kWarmups = r.warm ? 0 : 3;
  r.warm = true;
  for (int rep = -kWarmups; rep < reps && error.empty(); ++rep) {
    if (cancel && cancel->load()) {
      error = "cancelled";
      break;
    }
    const size_t copy = size_t(rep + kWarmups) % r.a.size();
    const void* da = r.a[copy]->get();
    const void* db = r.b[copy]->get();
    float ms = 0;
    if (library) {
      auto run = lt_->run(plan, padded, da, db, r.d.get(), nullptr);
      if (!run) error = run.error();
      else ms = run->milliseconds;
    } else {
      cudaEventRecord(t0);
      cudaError_t e = f64 ? cuda::launch_float64_gemm(static_cast<const double*>(da), static_cast<const double*>(db), m, n, k, 0, m, r.d.as<double>(), nullptr)
                          : cuda::launch_emulated_gemm(static_cast<const float*>(da), static_cast<const float*>(db), m, n, k, 0, m, model,
                                                       r.d.as<float>(), r.redo.as<uint8_t>(), nullptr);
      cudaEventRecord(t1);
      if (e == cudaSuccess) e = cudaEventSynchronize(t1);
      if (e != cudaSuccess) error = cuda_error("emulated GEMM kernel failed", e);
      cudaEventElapsedTime(&ms, t0, t1);
    }
    if (rep >= 0 && error.empty()) t.seconds.push_back(ms * 1e-3);
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  if (!error.empty()) return Error{error};
  t.median = median(t.seconds);
  t.method = (library ? "cuBLASLt " + plan.label : experiment::describe(s.accumulate) + " (own CUDA kernel)") +
             "; CUDA events, median of " + std::to_string(reps) + " after 3 warm-ups, " +
             std::to_string(r.a.size()) + " rotating operand copies";
  t.native = library && plan.native;
  return t;
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
