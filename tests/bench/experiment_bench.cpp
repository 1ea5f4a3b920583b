// Google Benchmark timings of the experiment engine on this machine (never asserted by tests):
//  - the emulated accumulation kernels (bit-exact, in order) in GFLOP/s (2 flops a product);
//  - the bare OpenBLAS calls a matrix experiment needs, and the whole experiment, so the
//    README can state the experiment's cost as a multiple of the library calls in one run.
// scripts/bench.sh runs it (and the NumPy / PyTorch peer script).
#include <benchmark/benchmark.h>

#include <random>

#include "core/backend/blas.h"
#include "core/dtype/codec.h"
#include "core/experiment/gemm.h"
#include "core/experiment/matmul.h"
#include "core/experiment/reference_cache.h"

namespace pl::experiment {
namespace {

std::vector<double> bf16_normal(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d;
  std::vector<double> v(n);
  for (double& x : v) x = round_to(info(DType::bfloat16).format, d(rng), {});
  return v;
}

void flops(benchmark::State& state, double per_iteration) {
  state.counters["FLOP/s"] = benchmark::Counter(per_iteration, benchmark::Counter::kIsIterationInvariantRate);
}

void emulated(benchmark::State& state, const char* spec) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto a = bf16_normal(n * n, 1), b = bf16_normal(n * n, 2);
  std::string err;
  Accumulation acc;
  if (std::string(spec) == "f32:sequential") acc = {AccumKind::Sequential, DType::float32};
  else if (std::string(spec) == "f32:chunked") acc = {AccumKind::Chunked, DType::float32};
  else if (std::string(spec) == "f16:sequential") acc = {AccumKind::Sequential, DType::float16};
  else if (std::string(spec) == "bf16:chunked") acc = {AccumKind::Chunked, DType::bfloat16};
  else acc = {AccumKind::Kahan, DType::float16};
  for (auto _ : state) benchmark::DoNotOptimize(gemm({n, n, n}, a, b, acc));
  flops(state, 2.0 * n * n * n);
}

void BM_Emulated_f32_sequential(benchmark::State& s) { emulated(s, "f32:sequential"); }
void BM_Emulated_f32_chunked128(benchmark::State& s) { emulated(s, "f32:chunked"); }
void BM_Emulated_f16_sequential(benchmark::State& s) { emulated(s, "f16:sequential"); }
void BM_Emulated_bf16_chunked128(benchmark::State& s) { emulated(s, "bf16:chunked"); }
void BM_Emulated_f16_kahan(benchmark::State& s) { emulated(s, "f16:kahan"); }
BENCHMARK(BM_Emulated_f32_sequential)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f32_chunked128)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_sequential)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_bf16_chunked128)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_kahan)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_OpenBLAS_dgemm(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto a = bf16_normal(n * n, 1), b = bf16_normal(n * n, 2);
  std::vector<double> c(n * n);
  for (auto _ : state) blas::gemm_nt(n, n, n, a.data(), b.data(), c.data());
  flops(state, 2.0 * n * n * n);
}
void BM_OpenBLAS_sgemm(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto ad = bf16_normal(n * n, 1), bd = bf16_normal(n * n, 2);
  std::vector<float> a(ad.begin(), ad.end()), b(bd.begin(), bd.end()), c(n * n);
  for (auto _ : state) blas::gemm_nt(n, n, n, a.data(), b.data(), c.data());
  flops(state, 2.0 * n * n * n);
}
BENCHMARK(BM_OpenBLAS_dgemm)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_OpenBLAS_sgemm)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// The whole 1024^3 bf16 x bf16 experiment with float32 accumulation (OpenBLAS sgemm, or the
// in-order emulation), float64 reference, attribution, stats, histograms; operands drawn once
// outside the timing, as a user's tensors would already exist.
void experiment(benchmark::State& state, Accumulation acc) {
  MatmulConfig c;
  c.op = MatmulOp::Matmul;
  c.m = c.n = c.k = static_cast<size_t>(state.range(0));
  c.accumulate = acc;
  const MatmulOperands ops = generate_operands(c);
  for (auto _ : state) {
    state.PauseTiming();
    clear_reference_cache();  // the references are part of what is timed
    state.ResumeTiming();
    benchmark::DoNotOptimize(run_matmul(c, ops));
  }
}
void BM_Experiment_bf16_f32blas(benchmark::State& s) { experiment(s, {AccumKind::Blas, DType::float32}); }
void BM_Experiment_bf16_f32sequential(benchmark::State& s) {
  experiment(s, {AccumKind::Sequential, DType::float32});
}
BENCHMARK(BM_Experiment_bf16_f32blas)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Experiment_bf16_f32sequential)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace pl::experiment

BENCHMARK_MAIN();
