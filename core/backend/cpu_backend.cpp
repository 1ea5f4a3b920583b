// The CPU backend: the reference implementation every other backend is checked against.
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "core/accumulate/blas.h"
#include "core/accumulate/gemm.h"
#include "core/backend/backend.h"
#include "core/dtype/bulk_convert.h"
#include "core/dtype/codec.h"
#include "core/util/median.h"
#include "core/util/parallel.h"
#include "core/util/thread_limit.h"

namespace pl {
namespace {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

// Fast accumulation is the float8 tensor cores' mode (partial sums kept narrower, cuBLASLt's
// CUBLASLT_MATMUL_DESC_FAST_ACCUM): the CPU has no such mode, and says so rather than let a
// result asked for with it pass for one.
std::string no_fast_accumulation(const ProductSpec& s) {
  return s.fast_accumulation ? "; no fast accumulation on the CPU (a tensor-core mode): summed without it" : "";
}

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }

  DeviceInfo device_info() const override {
    DeviceInfo d;
    d.backend = "cpu";
    d.name = cpu_model_name();
    d.cores = static_cast<int>(hardware_threads());
    // The machine's memory, as the GPU's is its device memory (0 where sysconf cannot tell).
    if (const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE); pages > 0 && page > 0)
      d.memory_gib = double(pages) * double(page) / (1024.0 * 1024 * 1024);
    // Which OpenBLAS kernel runs changes speed and the bits of float32 products: say it.
    const blas::Info library = blas::info();
    d.runtime = blas::describe(library);
    // (Not when OPENBLAS_CORETYPE chose the family: the user asked for it.)
    if (const std::string advice = blas::core_advice(library.core, blas::cpu_vectors());
        !advice.empty() && library.coretype_env.empty())
      d.runtime += "; " + advice;
    d.peak_note = "the peak table holds GPUs; a CPU's peak depends on its clock and vector units";
    return d;
  }

  Support supports_roundtrip(const FloatFormat&, const CastOptions&) const override { return {true, ""}; }

  Status roundtrip_f32(const FloatFormat& f, const CastOptions& o, const float* in, float* out, size_t n) override {
    roundtrip_f32_array(f, o, in, out, n);
    return {};
  }

  Status roundtrip_f64(const FloatFormat& f, const CastOptions& o, std::span<double> values) override {
    round_each(f, values, values, o);
    return {};
  }

  Expected<ConvertTiming> time_roundtrip_f32(const FloatFormat& f, const CastOptions& o, size_t n, int reps) override {
    std::vector<float> in(n), out(n);
    // Values spread over many binades so every branch of the rounding is exercised.
    parallel_for(n, 0, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) in[i] = static_cast<float>((double(i % 1000003) - 500000.0) * 1.3e-3);
    });
    using clock = std::chrono::steady_clock;
    std::vector<double> tc, tm;
    roundtrip_f32_array(f, o, in.data(), out.data(), n);  // warm-up: page faults, clones resolved
    copy_array(in.data(), out.data(), n * sizeof(float));
    for (int r = 0; r < reps; ++r) {  // interleaved so both see the same machine state
      auto t0 = clock::now();
      roundtrip_f32_array(f, o, in.data(), out.data(), n);
      auto t1 = clock::now();
      copy_array(in.data(), out.data(), n * sizeof(float));
      auto t2 = clock::now();
      tc.push_back(std::chrono::duration<double>(t1 - t0).count());
      tm.push_back(std::chrono::duration<double>(t2 - t1).count());
    }
    return make_convert_timing(n, tc, tm,
                               "steady_clock, median of " + std::to_string(reps) +
                                   " interleaved runs after 1 warm-up, " + threads_text(allowed_threads(0)) +
                                   "; GB/s counts bytes read + written");
  }

  Support supports_product(const ProductSpec& s) const override {
    if (experiment::is_float16_library(s.accumulate))
      return {false,
              "OpenBLAS has no float16 GEMM: float16 library accumulation (cuBLAS "
              "CUBLAS_COMPUTE_16F) runs on the CUDA backend; the sequential float16 model "
              "emulates it on the CPU"};
    if (auto st = experiment::check(s.accumulate); !st) return {false, st.error()};
    return {true, ""};
  }

  Expected<ProductRun> product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                               const ProductControl& control) override {
    if (Support ok = supports_product(s); !ok.ok) return Error{ok.why_not};
    auto c = experiment::gemm(s.shape, a, b, s.accumulate, control.progress, control.cancel, s.stream_offset);
    if (!c) return Error{c.error()};
    ProductRun run{std::move(c).value(), experiment::describe(s.accumulate, "OpenBLAS"), 0};
    if (s.accumulate.kind == experiment::AccumKind::Blas) run.method += " (" + blas::describe(blas::info()) + ")";
    // (int32 sums are OpenBLAS's dgemm on the integers, exact below 2^53, then wrapped: gemm.cpp.)
    else if (s.accumulate.kind == experiment::AccumKind::Int32)
      run.method += " (exact in OpenBLAS's dgemm, wrapped to int32: " + blas::describe(blas::info()) + ")";
    else run.method += " (own kernels, " + threads_text(allowed_threads(0)) + ")";
    run.method += no_fast_accumulation(s);
    return run;
  }

  Expected<std::string> product_f32(const experiment::GemmShape& s, std::span<const float> a, std::span<const float> b,
                                    std::span<float> c) override {
    if (a.size() != s.m * s.k || b.size() != s.n * s.k || c.size() != s.m * s.n)
      return Error{"float32 product: the arrays do not fit the shape"};
    blas::gemm_nt(s.m, s.n, s.k, a.data(), b.data(), c.data());
    return "OpenBLAS sgemm, core " + blas::info().core;
  }

  Expected<ProductTiming> time_product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                       int reps, const std::atomic<bool>* cancel) override {
    if (Support ok = supports_product(s); !ok.ok) return Error{ok.why_not};
    ProductTiming t;
    for (int r = -1; r < reps; ++r) {  // one warm-up: pages, caches, the BLAS threads
      const auto t0 = std::chrono::steady_clock::now();
      auto c = experiment::gemm(s.shape, a, b, s.accumulate, {}, cancel, s.stream_offset);
      if (!c) return Error{c.error()};
      if (r >= 0) t.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    t.median = median(t.seconds);
    t.native = s.accumulate.kind == experiment::AccumKind::Blas && s.a == s.accumulate.format &&
               s.b == s.accumulate.format;  // dgemm on float64, sgemm on float32
    t.method = experiment::describe(s.accumulate, "OpenBLAS") + no_fast_accumulation(s);
    t.clock =
        "steady_clock, median of " + std::to_string(reps) + " after 1 warm-up, " + threads_text(allowed_threads(0));
    return t;
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace pl
