// The CUDA products: a library GEMM through cuBLASLt (its output widened on the device), or an
// accumulation model's sums emulated by Precision Lab's own kernels, with the elements the GPU
// hands back recomputed by the CPU's general code.
//
// Sections, in order (search for "// ----"):
//   transfers       packing, uploads, downloads, the resident-operand key
//   support         what runs here, readiness, cuBLASLt's handle
//   library         the library GEMM and its product
//   on the device   products kept on the device (the held-values path)
//   emulated        the emulated sums, what the CPU recomputes, the emulated product
//   resident        operands kept on the device between calls
//   timing          the bench's timed products
#include "kernels/product_engine.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/util/median.h"
#include "core/util/parallel.h"
#include "kernels/device_values.h"
#include "kernels/emulated_gemm.cuh"
#include "kernels/emulated_plan.h"
#include "kernels/held_kernels.cuh"
#include "kernels/lt_plan.h"
#include "kernels/operand_pack.h"
#include "kernels/phase_trace.h"
#include "kernels/staged_copy.h"
#include "kernels/stream_delay.cuh"

namespace pl::cuda {
namespace {

using experiment::AccumKind;

bool is_library_model(const ProductSpec& s) {
  return s.accumulate.kind == AccumKind::Blas || s.accumulate.kind == AccumKind::Int32;
}

// ---- transfers --------------------------------------------------------------------

// The widening kernel's reading of a library GEMM's output elements.
Expected<WideFrom> wide_from(Element e) {
  switch (e) {
    case Element::F64: return WideFrom::F64;
    case Element::F32: return WideFrom::F32;
    case Element::F16: return WideFrom::F16;
    case Element::BF16: return WideFrom::BF16;
    case Element::I32: return WideFrom::I32;
    default: return Error{std::string("no kernel widens ") + element_name(e) + " outputs on the device"};
  }
}

// Uploads packed rows; an allocation failure is "out of GPU memory".
Status upload(DeviceBuffer& d, std::span<const uint8_t> bytes, const char* what) {
  if (cudaError_t e = d.allocate(bytes.size()); e != cudaSuccess)
    return Error{cuda_error((std::string("out of GPU memory for the ") + what).c_str(), e)};
  if (cudaError_t e = copy_to_device(d.get(), bytes.data(), bytes.size()); e != cudaSuccess)
    return Error{cuda_error("copy to the GPU failed", e)};
  return {};
}

// An array's bytes, for upload().
template <typename T>
std::span<const uint8_t> bytes_of(std::span<const T> x) {
  return {reinterpret_cast<const uint8_t*>(x.data()), x.size_bytes()};
}

// Identifies host operands for the resident cache: their address, size and a sample of their
// values (a freed array whose address is reused with other data gets another key).
// Not the reference cache's hash of every bit (operand_hash): the live sampler asks on every
// sample, and hashing two 8192^2 operands each time would take longer than the product.
std::string operand_key(std::span<const double> x) {
  std::string k = std::to_string(reinterpret_cast<uintptr_t>(x.data())) + ":" + std::to_string(x.size());
  double sample = 0;
  for (size_t i = 0; i < x.size(); i += std::max<size_t>(1, x.size() / 61)) sample = sample * 1.0000001 + x[i];
  return k + ":" + std::to_string(sample);
}

// Both operands in their storage, each row padded to `padded.k` and the row counts to
// `padded.m` / `padded.n` with zeros (zeros add nothing to a sum; the padded part of the
// result is never read): what every path uploads.
Expected<ProductEngine::PackedPair> pack_operands(std::span<const double> a, std::span<const double> b,
                                                  const experiment::GemmShape& s, const LtShape& padded, Element in,
                                                  Element w) {
  auto pa = pack_rows(a, s.m, s.k, padded.k, in);
  if (!pa) return Error{"input: " + pa.error()};
  auto pb = pack_rows(b, s.n, s.k, padded.k, w);
  if (!pb) return Error{"weight: " + pb.error()};
  NoInitVector<uint8_t> ab = std::move(pa).value().bytes, bb = std::move(pb).value().bytes;
  ab.resize(padded.m * padded.k * element_bytes(in), 0);
  bb.resize(padded.n * padded.k * element_bytes(w), 0);
  return ProductEngine::PackedPair{std::move(ab), std::move(bb)};
}

// Both operands on the device, as pack_operands lays them out. Float64 operands that need no
// padding are uploaded from the caller's arrays as they are: packing them first copied 2 x 128 MB
// at 4096^2 into byte arrays on the host for every float64 reference.
Status upload_operands(DeviceBuffer& da, DeviceBuffer& db, std::span<const double> a, std::span<const double> b,
                       const experiment::GemmShape& s, const LtShape& padded, Element in, Element w,
                       PhaseTrace* trace = nullptr) {
  const bool as_they_are =
      in == Element::F64 && w == Element::F64 && padded.m == s.m && padded.n == s.n && padded.k == s.k;
  if (as_they_are) {
    if (auto ok = upload(da, bytes_of(a), "input"); !ok) return ok;
    return upload(db, bytes_of(b), "weight");
  }
  auto packed = pack_operands(a, b, s, padded, in, w);
  if (!packed) return Error{packed.error()};
  if (trace) trace->mark("pack");
  if (auto ok = upload(da, packed->first, "input"); !ok) return ok;
  return upload(db, packed->second, "weight");
}

// The m x n result (rows of ld elements on the device) as doubles: float64 rows without padding
// straight into the result, anything else through host bytes and unpack_rows.
Expected<std::vector<double>> download_result(const DeviceBuffer& d, size_t m, size_t n, size_t ld, Element e) {
  if (e == Element::F64 && ld == n) {
    std::vector<double> out(m * n);
    if (cudaError_t err = copy_to_host(out.data(), d.get(), out.size() * sizeof(double)); err != cudaSuccess)
      return Error{cuda_error("copy from the GPU failed", err)};
    return out;
  }
  // (Uninitialised: the copy writes every byte; zeroing it first, 64 MB at 4096^2, would be
  // counted in the download phase.)
  const size_t bytes = m * ld * element_bytes(e);
  const std::unique_ptr<uint8_t[]> host(new uint8_t[bytes]);
  if (cudaError_t err = copy_to_host(host.get(), d.get(), bytes); err != cudaSuccess)
    return Error{cuda_error("copy from the GPU failed", err)};
  return unpack_rows(host.get(), m, n, ld, e);
}

// Rows [r0, r1) of an emulated (or float64) product, timed by the two events.
cudaError_t launch_timed(bool f64, const void* a, const void* b, const experiment::GemmShape& s, size_t r0, size_t r1,
                         const EmulatedModel& model, void* c, uint8_t* redo, cudaEvent_t t0, cudaEvent_t t1,
                         float* ms) {
  cudaEventRecord(t0);
  cudaError_t e = f64 ? launch_float64_gemm(static_cast<const double*>(a), static_cast<const double*>(b), s.m, s.n, s.k,
                                            r0, r1, static_cast<double*>(c), nullptr)
                      : launch_emulated_gemm(static_cast<const float*>(a), static_cast<const float*>(b), s.m, s.n, s.k,
                                             r0, r1, model, static_cast<float*>(c), redo, nullptr);
  cudaEventRecord(t1);
  if (e == cudaSuccess) e = cudaEventSynchronize(t1);
  if (e == cudaSuccess) cudaEventElapsedTime(ms, t0, t1);
  return e;
}

}  // namespace

// ---- support ----------------------------------------------------------------------

Support ProductEngine::supports(const ProductSpec& s) const {
  if (is_library_model(s)) {
    auto plan = plan_library_product(s);
    if (!plan) return {false, plan.error()};
    if (plan->min_compute_capability > compute_capability_)
      return {false, plan->label + " needs compute capability " + std::to_string(plan->min_compute_capability / 10) +
                         "." + std::to_string(plan->min_compute_capability % 10) + " or later"};
    return {true, ""};
  }
  if (s.accumulate.kind == AccumKind::Float64) return {true, ""};
  auto model = plan_emulated_product(s);
  if (!model) return {false, model.error()};
  return {true, ""};
}

Status ProductEngine::ready(const ProductSpec& s, std::span<const double> a, std::span<const double> b) const {
  if (Support ok = supports(s); !ok.ok) return Error{ok.why_not};
  if (a.size() != s.shape.m * s.shape.k || b.size() != s.shape.n * s.shape.k)
    return Error{"product: operand sizes do not match the shape"};
  if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
  return {};
}

Expected<ProductRun> ProductEngine::run(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                        const ProductControl& control) {
  if (auto ok = ready(s, a, b); !ok) return Error{ok.error()};
  if (is_library_model(s)) return library_product(s, a, b, control);
  return emulated_product(s, a, b, control);
}

Status ProductEngine::ensure_lt() {
  if (lt_) return {};
  auto lt = LtGemm::create();
  if (!lt) return Error{lt.error()};
  lt_ = std::move(lt).value();
  return {};
}

// ---- library ----------------------------------------------------------------------

Expected<ProductEngine::LibraryOutput> ProductEngine::library_gemm(const ProductSpec& s, std::span<const double> a,
                                                                   std::span<const double> b,
                                                                   const ProductControl& control, PhaseTrace& trace) {
  LibraryOutput out;
  out.plan = *plan_library_product(s);
  const LtPlan& plan = out.plan;
  if (auto ok = ensure_lt(); !ok) return Error{ok.error()};
  const auto& [m, n, k] = s.shape;
  out.padded = {round_up(m, plan.align), round_up(n, plan.align), round_up(k, plan.align)};
  const LtShape& padded = out.padded;
  // The operands on the device: kept from the call before for the same owners, or uploaded
  // now (and kept when the call names owners).
  const std::string key =
      plan.label + " " + std::to_string(padded.m) + "x" + std::to_string(padded.n) + "x" + std::to_string(padded.k);
  const bool keep = control.a_owner && control.b_owner;
  std::unique_ptr<KeptOperands> uploaded;
  if (keep && kept_ && kept_->key == key && kept_->a_owner.lock() == control.a_owner &&
      kept_->b_owner.lock() == control.b_owner) {
    trace.mark("operands kept on the device");
  } else {
    if (keep) kept_.reset();  // its device memory first
    uploaded = std::make_unique<KeptOperands>();
    if (auto ok = upload_operands(uploaded->a, uploaded->b, a, b, s.shape, padded, plan.input, plan.weight, &trace);
        !ok)
      return Error{ok.error()};
    if (keep) {
      uploaded->a_owner = control.a_owner, uploaded->b_owner = control.b_owner, uploaded->key = key;
      kept_ = std::move(uploaded);
    }
  }
  const KeptOperands& operands = uploaded ? *uploaded : *kept_;
  if (control.progress) control.progress(0.1);
  const size_t d_bytes = padded.m * padded.n * element_bytes(plan.out);
  if (cudaError_t e = out.d->allocate(d_bytes); e != cudaSuccess)
    return Error{cuda_error("out of GPU memory for the result", e)};
  trace.mark("upload");
  if (control.cancel && control.cancel->load()) return Error{"cancelled"};
  auto run = lt_->run(plan, padded, operands.a.get(), operands.b.get(), out.d->get(), nullptr);
  if (!run) return Error{run.error()};
  trace.mark("gemm (" + std::to_string(run->milliseconds) + " ms on the device)");
  out.method = "cuBLASLt " + plan.label + " (" + run->algorithm + ")";
  out.device_seconds = run->milliseconds * 1e-3;
  return out;
}

Expected<ProductRun> ProductEngine::library_product(const ProductSpec& s, std::span<const double> a,
                                                    std::span<const double> b, const ProductControl& control) {
  PhaseTrace trace("cuda product");
  auto gemm = library_gemm(s, a, b, control, trace);
  if (!gemm) return Error{gemm.error()};
  auto c = download_result(*gemm->d, s.shape.m, s.shape.n, gemm->padded.n, gemm->plan.out);
  if (!c) return Error{c.error()};
  trace.mark("download and unpack");
  if (control.progress) control.progress(1.0);
  return ProductRun{std::move(c).value(), std::move(gemm->method), gemm->device_seconds};
}

bool ProductEngine::keeps_on_device(const ProductSpec& s) const {
  if (!supports(s).ok) return false;
  if (!is_library_model(s)) return true;  // float32 or float64 sums, widened on the device
  auto plan = plan_library_product(s);
  return plan && wide_from(plan->out).ok();
}

// ---- on the device ----------------------------------------------------------------

Expected<DeviceProduct> ProductEngine::run_on_device(const ProductSpec& s, std::span<const double> a,
                                                     std::span<const double> b, const ProductControl& control) {
  if (auto ok = ready(s, a, b); !ok) return Error{ok.error()};
  const auto& [m, n, k] = s.shape;
  if (!is_library_model(s)) return emulated_on_device(s, a, b, control);
  const auto from = wide_from(plan_library_product(s)->out);
  if (!from) return Error{from.error()};
  PhaseTrace trace("cuda product, kept on the device");
  auto gemm = library_gemm(s, a, b, control, trace);
  if (!gemm) return Error{gemm.error()};
  auto wide = device_doubles(m * n, "the product");
  if (!wide) return Error{wide.error()};
  if (cudaError_t e =
          launch_widen_to_f64(gemm->d->get(), *from, m, n, gemm->padded.n, (*wide)->as<double>(), sm_count_, nullptr);
      e != cudaSuccess)
    return Error{cuda_error("widening the product on the GPU failed", e)};
  trace.mark("widened to float64 on the device");
  if (control.progress) control.progress(1.0);
  return DeviceProduct{std::move(wide).value(), std::move(gemm->method), gemm->device_seconds};
}

// The emulated sums widened on the device, and the elements the GPU handed back recomputed on
// the CPU and written into them there (a few, or none: the host sends only those).
Expected<DeviceProduct> ProductEngine::emulated_on_device(const ProductSpec& s, std::span<const double> a,
                                                          std::span<const double> b, const ProductControl& control) {
  const auto& [m, n, k] = s.shape;
  PhaseTrace trace("cuda emulated product, kept on the device");
  auto sums = emulated_sums(s, a, b, control);
  if (!sums) return Error{sums.error()};
  EmulatedOutput out = std::move(sums).value();
  trace.mark("sums");
  auto wide = device_doubles(m * n, "the product");
  if (!wide) return Error{wide.error()};
  cudaError_t e = launch_widen_to_f64(out.c->get(), out.f64 ? WideFrom::F64 : WideFrom::F32, m, n, n,
                                      (*wide)->as<double>(), sm_count_, nullptr);
  if (e != cudaSuccess) return Error{cuda_error("widening the product on the GPU failed", e)};
  if (!out.again.empty()) {
    const std::vector<double> values = recompute(s, a, b, out.again);
    DeviceBuffer d_index, d_values;
    if (auto ok = upload(d_index, bytes_of(std::span<const size_t>(out.again)), "recomputed elements"); !ok)
      return Error{ok.error()};
    if (auto ok = upload(d_values, bytes_of(std::span<const double>(values)), "recomputed elements"); !ok)
      return Error{ok.error()};
    e = launch_scatter(d_index.as<const size_t>(), d_values.as<const double>(), out.again.size(), (*wide)->as<double>(),
                       sm_count_, nullptr);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();  // (before the index and value buffers go)
    if (e != cudaSuccess) return Error{cuda_error("writing the recomputed elements on the GPU failed", e)};
    trace.mark(std::to_string(out.again.size()) + " elements recomputed on the CPU");
  }
  if (control.progress) control.progress(1.0);
  return DeviceProduct{std::move(wide).value(), std::move(out.method), out.device_seconds};
}

// ---- emulated ---------------------------------------------------------------------

Expected<std::string> ProductEngine::float32_product(const experiment::GemmShape& s, std::span<const float> a,
                                                     std::span<const float> b, std::span<float> c) {
  const ProductSpec spec{s, DType::float32, DType::float32, {AccumKind::Blas, DType::float32}};
  if (Support ok = supports(spec); !ok.ok) return Error{ok.why_not};
  const auto& [m, n, k] = s;
  if (a.size() != m * k || b.size() != n * k || c.size() != m * n)
    return Error{"float32 product: the arrays do not fit the shape"};
  if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
  const LtPlan plan = *plan_library_product(spec);
  // float32's plan pads nothing (lt_plan.cpp): the arrays travel as they are.
  if (plan.align != 1) return Error{"float32 product: the plan pads the shape (" + plan.label + ")"};
  if (auto ok = ensure_lt(); !ok) return Error{ok.error()};
  PhaseTrace trace("cuda float32 product");
  DeviceBuffer da, db, dd;
  if (auto ok = upload(da, bytes_of(a), "input"); !ok) return Error{ok.error()};
  if (auto ok = upload(db, bytes_of(b), "weight"); !ok) return Error{ok.error()};
  if (cudaError_t e = dd.allocate(c.size_bytes()); e != cudaSuccess)
    return Error{cuda_error("out of GPU memory for the result", e)};
  trace.mark("upload");
  auto run = lt_->run(plan, {m, n, k}, da.get(), db.get(), dd.get(), nullptr);
  if (!run) return Error{run.error()};
  trace.mark("gemm (" + std::to_string(run->milliseconds) + " ms on the device)");
  if (cudaError_t e = copy_to_host(c.data(), dd.get(), c.size_bytes()); e != cudaSuccess)
    return Error{cuda_error("copy from the GPU failed", e)};
  trace.mark("download");
  return "cuBLASLt " + plan.label + " (" + run->algorithm + ")";
}

Expected<ProductEngine::EmulatedOutput> ProductEngine::emulated_sums(const ProductSpec& s, std::span<const double> a,
                                                                     std::span<const double> b,
                                                                     const ProductControl& control) {
  const auto& [m, n, k] = s.shape;
  EmulatedOutput out;
  out.f64 = s.accumulate.kind == AccumKind::Float64;
  const Element e = out.f64 ? Element::F64 : Element::F32;
  DeviceBuffer da, db;
  if (auto ok = upload_operands(da, db, a, b, s.shape, {m, n, k}, e, e); !ok) return Error{ok.error()};
  if (cudaError_t err = out.c->allocate(m * n * element_bytes(e)); err != cudaSuccess)
    return Error{cuda_error("out of GPU memory for the result", err)};
  if (!out.f64)
    if (cudaError_t err = out.redo->allocate(m * n); err != cudaSuccess)
      return Error{cuda_error("out of GPU memory", err)};
  EmulatedModel model;
  if (!out.f64) model = *plan_emulated_product(s);
  // Rows in slabs, so a long product reports progress and stops when cancelled.
  const size_t slab = emulated_slab_rows(m);
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  float total_ms = 0;
  std::string error;
  for (size_t r0 = 0; r0 < m && error.empty(); r0 += slab) {
    if (control.cancel && control.cancel->load()) {
      error = "cancelled";
      break;
    }
    const size_t r1 = std::min(m, r0 + slab);
    float ms = 0;
    if (const cudaError_t err = launch_timed(out.f64, da.get(), db.get(), s.shape, r0, r1, model, out.c->get(),
                                             out.redo->as<uint8_t>(), t0, t1, &ms);
        err != cudaSuccess)
      error = cuda_error("emulated GEMM kernel failed", err);
    total_ms += ms;
    if (control.progress) control.progress(0.9 * double(r1) / double(m));
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  if (!error.empty()) return Error{error};
  out.device_seconds = total_ms * 1e-3;
  // The elements the GPU handed back (inexact products, sums past a format's range).
  if (!out.f64) {
    std::vector<uint8_t> redo(m * n);
    if (cudaError_t err = copy_to_host(redo.data(), out.redo->get(), redo.size()); err != cudaSuccess)
      return Error{cuda_error("copy from the GPU failed", err)};
    for (size_t i = 0; i < redo.size(); ++i)
      if (redo[i]) out.again.push_back(i);
  }
  out.method = experiment::describe(s.accumulate) + " (own CUDA kernel, bit-exact with the CPU" +
               (out.again.empty() ? std::string(")")
                                  : "; " + std::to_string(out.again.size()) +
                                        " elements recomputed on the CPU: inexact products or sums out of range)");
  return out;
}

// The CPU's general code for the elements the GPU handed back, with the same stochastic stream
// offsets as its GEMM: their values, in the order of `again`.
std::vector<double> ProductEngine::recompute(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                             const std::vector<size_t>& again) {
  const auto& [m, n, k] = s.shape;
  std::vector<double> values(again.size());
  parallel_for(
      again.size(), 0,
      [&](size_t b0, size_t b1) {
        for (size_t t = b0; t < b1; ++t) {
          const size_t i = again[t] / n, j = again[t] % n;
          values[t] = experiment::dot(a.subspan(i * k, k), b.subspan(j * k, k), s.accumulate,
                                      s.stream_offset + experiment::gemm_stream_offset(i, j, n));
        }
      },
      64);
  return values;
}

Expected<ProductRun> ProductEngine::emulated_product(const ProductSpec& s, std::span<const double> a,
                                                     std::span<const double> b, const ProductControl& control) {
  const auto& [m, n, k] = s.shape;
  auto sums = emulated_sums(s, a, b, control);
  if (!sums) return Error{sums.error()};
  EmulatedOutput out = std::move(sums).value();
  auto c = download_result(*out.c, m, n, n, out.f64 ? Element::F64 : Element::F32);
  if (!c) return Error{c.error()};
  ProductRun run;
  run.c = std::move(c).value();
  const std::vector<double> values = recompute(s, a, b, out.again);
  for (size_t t = 0; t < out.again.size(); ++t) run.c[out.again[t]] = values[t];
  run.method = std::move(out.method);
  run.device_seconds = out.device_seconds;
  if (control.progress) control.progress(1.0);
  return run;
}

// ---- resident ---------------------------------------------------------------------

Expected<ProductEngine::Resident*> ProductEngine::resident(const std::string& key,
                                                           const std::function<Expected<PackedPair>()>& pack,
                                                           size_t d_bytes, size_t redo_bytes) {
  for (auto& r : resident_)
    if (r->key == key) return r.get();
  auto bytes = pack();
  if (!bytes) return Error{bytes.error()};
  const auto& [ab, bb] = *bytes;
  int l2 = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device_);
  const size_t copies =
      std::clamp<size_t>((2 * size_t(l2) + ab.size() + bb.size()) / std::max<size_t>(1, ab.size() + bb.size()), 1, 8);
  if (resident_.size() >= 4) resident_.erase(resident_.begin());  // oldest first
  auto r = std::make_unique<Resident>();
  r->key = key;
  for (size_t c = 0; c < copies; ++c) {
    r->a.push_back(std::make_unique<DeviceBuffer>());
    r->b.push_back(std::make_unique<DeviceBuffer>());
    if (auto ok = upload(*r->a.back(), ab, "input"); !ok) return Error{ok.error()};
    if (auto ok = upload(*r->b.back(), bb, "weight"); !ok) return Error{ok.error()};
  }
  if (cudaError_t e = r->d.allocate(d_bytes); e != cudaSuccess)
    return Error{cuda_error("out of GPU memory for the result", e)};
  if (cudaError_t e = r->redo.allocate(redo_bytes); e != cudaSuccess) return Error{cuda_error("out of GPU memory", e)};
  resident_.push_back(std::move(r));
  return resident_.back().get();
}

// ---- timing -----------------------------------------------------------------------

Expected<ProductTiming> ProductEngine::time(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                            int reps, const std::atomic<bool>* cancel) {
  if (Support ok = supports(s); !ok.ok) return Error{ok.why_not};
  const auto& [m, n, k] = s.shape;
  if (a.size() != m * k || b.size() != n * k) return Error{"time_product: operand sizes do not match the shape"};
  if (cudaSetDevice(device_) != cudaSuccess) return Error{"cannot select the CUDA device"};
  const bool library = is_library_model(s);
  const bool f64 = s.accumulate.kind == AccumKind::Float64;
  LtPlan plan;
  LtShape padded{m, n, k};
  Element in = f64 ? Element::F64 : Element::F32, w = in, out = in;
  if (library) {
    plan = *plan_library_product(s);
    if (auto ok = ensure_lt(); !ok) return Error{ok.error()};
    padded = {round_up(m, plan.align), round_up(n, plan.align), round_up(k, plan.align)};
    in = plan.input, w = plan.weight, out = plan.out;
  }
  const std::string key = operand_key(a) + "|" + operand_key(b) + "|" + element_name(in) + element_name(w) +
                          std::to_string(padded.m) + "x" + std::to_string(padded.n) + "x" + std::to_string(padded.k);
  auto res = resident(
      key, [&] { return pack_operands(a, b, s.shape, padded, in, w); }, padded.m * padded.n * element_bytes(out),
      library ? 0 : m * n);
  if (!res) return Error{res.error()};
  Resident& r = **res;
  EmulatedModel model;
  if (!library && !f64) model = *plan_emulated_product(s);
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  ProductTiming t;
  std::string error;
  const int kWarmups = r.warm ? 0 : 3;
  // Longer than the host's enqueueing of one timed call (descriptors, a cached heuristic,
  // cublasLtMatmul's checks: tens of microseconds at most), short beside a rep's sync.
  constexpr unsigned kEnqueueCover_us = 200;
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
    // The GPU busy while the host enqueues the timed call: its events then time the device's
    // work alone, as a bare call timed back to back does (stream_delay.cuh says why).
    if (cudaError_t e = launch_stream_delay(nullptr, kEnqueueCover_us); e != cudaSuccess) {
      error = cuda_error("the timing's delay kernel failed", e);
      break;
    }
    if (library) {
      auto run = lt_->run(plan, padded, da, db, r.d.get(), nullptr);
      if (!run) error = run.error();
      else ms = run->milliseconds;
    } else if (cudaError_t e =
                   launch_timed(f64, da, db, s.shape, 0, m, model, r.d.get(), r.redo.as<uint8_t>(), t0, t1, &ms);
               e != cudaSuccess) {
      error = cuda_error("emulated GEMM kernel failed", e);
    }
    if (rep >= 0 && error.empty()) t.seconds.push_back(ms * 1e-3);
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  if (!error.empty()) return Error{error};
  t.median = median(t.seconds);
  t.method = library ? "cuBLASLt " + plan.label : experiment::describe(s.accumulate) + " (own CUDA kernel)";
  t.clock = "CUDA events, median of " + std::to_string(reps) + " after 3 warm-ups, " + std::to_string(r.a.size()) +
            " rotating operand copies, each call enqueued behind a " + std::to_string(kEnqueueCover_us) +
            " us delay kernel";
  t.native = library && plan.native;
  return t;
}

}  // namespace pl::cuda
