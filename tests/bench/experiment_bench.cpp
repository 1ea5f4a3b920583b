// Google Benchmark timings of the experiment engine on this machine (never asserted by tests):
//  - the emulated accumulation kernels (bit-exact, in order) in GFLOP/s (2 flops a product);
//  - the bare OpenBLAS calls a matrix experiment needs, and the whole experiment, so the
//    README can state the experiment's cost as a multiple of the library calls in one run.
// scripts/bench.sh runs it (and the NumPy / PyTorch peer script).
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <thread>

#include "core/accumulate/blas.h"
#include "core/accumulate/gemm.h"
#include "core/analysis/error_stats.h"
#include "core/analysis/histogram.h"
#include "core/dtype/codec.h"
#include "core/experiment/matmul.h"
#include "core/experiment/reference_cache.h"
#include "core/quantise/scaling.h"
#include "core/util/allocator.h"

namespace pl::experiment {
namespace {

std::vector<double> bf16_normal(size_t n, uint64_t seed, double scale = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0, scale);
  std::vector<double> v(n);
  for (double& x : v) x = round_to(info(DType::bfloat16).format, d(rng), {});
  return v;
}

void flops(benchmark::State& state, double per_iteration) {
  state.counters["FLOP/s"] = benchmark::Counter(per_iteration, benchmark::Counter::kIsIterationInvariantRate);
}

void emulated(benchmark::State& state, const char* spec, double scale = 1) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto a = bf16_normal(n * n, 1, scale), b = bf16_normal(n * n, 2, scale);
  std::string err;
  Accumulation acc;
  if (std::string(spec) == "f32:sequential") acc = {AccumKind::Sequential, DType::float32};
  else if (std::string(spec) == "f32:chunked") acc = {AccumKind::Chunked, DType::float32};
  else if (std::string(spec) == "f16:sequential") acc = {AccumKind::Sequential, DType::float16};
  else if (std::string(spec) == "bf16:chunked") acc = {AccumKind::Chunked, DType::bfloat16};
  else if (std::string(spec) == "f32:pairwise") acc = {AccumKind::Pairwise, DType::float32};
  else if (std::string(spec) == "f16:pairwise") acc = {AccumKind::Pairwise, DType::float16};
  else if (std::string(spec) == "f32:kahan") acc = {AccumKind::Kahan, DType::float32};
  else if (std::string(spec) == "bf16:kahan") acc = {AccumKind::Kahan, DType::bfloat16};
  else if (std::string(spec) == "f32:multiterm:16:2:rtz")
    acc = {AccumKind::Multiterm, DType::float32, Rounding::TowardZero, 16, 128, DType::float32, 2};
  else acc = {AccumKind::Kahan, DType::float16};
  for (auto _ : state) benchmark::DoNotOptimize(gemm({n, n, n}, a, b, acc));
  flops(state, 2.0 * n * n * n);
}

void BM_Emulated_f32_sequential(benchmark::State& s) { emulated(s, "f32:sequential"); }
void BM_Emulated_f32_chunked128(benchmark::State& s) { emulated(s, "f32:chunked"); }
void BM_Emulated_f32_multiterm(benchmark::State& s) { emulated(s, "f32:multiterm:16:2:rtz"); }
void BM_Emulated_f16_sequential(benchmark::State& s) { emulated(s, "f16:sequential"); }
void BM_Emulated_bf16_chunked128(benchmark::State& s) { emulated(s, "bf16:chunked"); }
void BM_Emulated_f16_kahan(benchmark::State& s) { emulated(s, "f16:kahan"); }
// Operands of standard deviation 8: Kahan's sums watched for overflow (emulated_f32_inputs).
void BM_Emulated_f16_kahan_watched(benchmark::State& s) { emulated(s, "f16:kahan", 8); }
void BM_Emulated_f32_pairwise(benchmark::State& s) { emulated(s, "f32:pairwise"); }
void BM_Emulated_f32_kahan(benchmark::State& s) { emulated(s, "f32:kahan"); }
void BM_Emulated_bf16_kahan(benchmark::State& s) { emulated(s, "bf16:kahan"); }
void BM_Emulated_f16_pairwise(benchmark::State& s) { emulated(s, "f16:pairwise"); }
// float32 operands: their products are not float32 numbers. A float16 accumulator then runs the
// wide kernels (float64 products, float32 lanes); a float32 one the CPU's fused multiply-add.
// (scale: the operands' standard deviation. Kahan's narrow kernel watches its sums for overflow
// only where the products could reach the format's largest value -- at 512^3 into float16, for
// standard deviations past about 1.6: the _watched benchmarks take 8.)
// (outlier: a[0] = b[0] = 256, a product past the largest float16 value in one lane, which the
// general code redoes: the kernel then watches both y and t.)
void emulated_f32_inputs(benchmark::State& state, const Accumulation& acc, double scale = 1, bool outlier = false) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(4);
  std::normal_distribution<double> d(0, scale);
  std::vector<double> a(n * n), b(n * n);
  for (double& x : a) x = static_cast<float>(d(rng));
  for (double& x : b) x = static_cast<float>(d(rng));
  if (outlier) a[0] = b[0] = 256;
  for (auto _ : state) benchmark::DoNotOptimize(gemm({n, n, n}, a, b, acc));
  flops(state, 2.0 * n * n * n);
}
void BM_Emulated_f16_sequential_f32_inputs(benchmark::State& s) {
  emulated_f32_inputs(s, {AccumKind::Sequential, DType::float16});
}
void BM_Emulated_f32_sequential_f32_inputs(benchmark::State& s) {
  emulated_f32_inputs(s, {AccumKind::Sequential, DType::float32});
}
void BM_Emulated_f32_kahan_f32_inputs(benchmark::State& s) {
  emulated_f32_inputs(s, {AccumKind::Kahan, DType::float32});
}
void BM_Emulated_f16_kahan_f32_inputs(benchmark::State& s) {
  emulated_f32_inputs(s, {AccumKind::Kahan, DType::float16});
}
void BM_Emulated_f16_kahan_f32_inputs_watched(benchmark::State& s) {
  emulated_f32_inputs(s, {AccumKind::Kahan, DType::float16}, 8);
}
void BM_Emulated_f16_kahan_f32_inputs_full_watch(benchmark::State& s) {
  emulated_f32_inputs(s, {AccumKind::Kahan, DType::float16}, 1, true);
}
void BM_Emulated_bf16_sequential_f32_inputs(benchmark::State& s) {
  emulated_f32_inputs(s, {AccumKind::Sequential, DType::bfloat16});
}
BENCHMARK(BM_Emulated_f32_sequential)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f32_chunked128)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f32_multiterm)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_sequential)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_bf16_chunked128)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_kahan)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_kahan_watched)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_bf16_kahan)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f32_kahan)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f32_pairwise)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_pairwise)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_sequential_f32_inputs)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f32_sequential_f32_inputs)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f32_kahan_f32_inputs)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_kahan_f32_inputs)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_kahan_f32_inputs_watched)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_f16_kahan_f32_inputs_full_watch)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Emulated_bf16_sequential_f32_inputs)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();

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

// One error component of a 1024 x 1024 output (what run_matmul does four times): a bf16
// result against a float64 reference, statistics with and without the three histograms; and
// the histograms alone (values counted per second).
struct Component {
  std::vector<double> reference, result;
  explicit Component(size_t n) : reference(n), result(n) {
    std::mt19937_64 rng(3);
    std::normal_distribution<double> d(0, 32);
    for (size_t i = 0; i < n; ++i) {
      reference[i] = d(rng);
      result[i] = round_to(info(DType::bfloat16).format, reference[i], {});
    }
  }
};
void BM_ErrorStats(benchmark::State& state) {
  const Component c(1 << 20);
  ErrorHistograms h;
  for (auto _ : state)
    benchmark::DoNotOptimize(error_stats(c.result, c.reference, DType::bfloat16, 0, state.range(0) ? &h : nullptr));
  state.SetItemsProcessed(state.iterations() * (1 << 20));
}
BENCHMARK(BM_ErrorStats)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The four components together, as measure_components (matmul.cpp) asks for them: total,
// input rounding, arithmetic, output rounding, with histograms -- four arrays of 8 MB, more
// than this machine's 32 MB L3 holds with the rest.
void BM_ErrorStatsFourComponents(benchmark::State& state) {
  const size_t n = size_t{1} << 20;
  const Component c(n);
  std::vector<double> rounded(n), accumulated(n);
  for (size_t i = 0; i < n; ++i) {  // stand-ins with errors of each component's size
    rounded[i] = c.reference[i] * (1 + 0x1p-9 * std::sin(double(i)));
    accumulated[i] = rounded[i] * (1 + 0x1p-22 * std::cos(double(i)));
  }
  ErrorHistograms h[4];
  const std::vector<Comparison> comparisons = {{c.result, c.reference, &h[0], {}},
                                               {rounded, c.reference, &h[1], {}},
                                               {accumulated, rounded, &h[2], {}},
                                               {c.result, accumulated, &h[3], {}}};
  for (auto _ : state) benchmark::DoNotOptimize(error_stats(comparisons, DType::bfloat16));
  state.SetItemsProcessed(state.iterations() * 4 * static_cast<int64_t>(n));
}
BENCHMARK(BM_ErrorStatsFourComponents)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Histogram(benchmark::State& state) {
  const Component c(1 << 20);
  std::vector<double> values(c.result.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = c.result[i] - c.reference[i];
  double top = 0;
  for (double& v : values) {
    if (state.range(0)) v = std::fabs(v);
    top = std::max(top, std::fabs(v));
  }
  for (auto _ : state) {  // ranged as error_stats ranges them
    Histogram h = state.range(0) ? log_bins_auto(1e-9, top, 8) : signed_error_bins(top);
    add(h, values);
    benchmark::DoNotOptimize(h.counts.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(values.size()));
}
BENCHMARK(BM_Histogram)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// Rounding float64 data into a format in each mode (the argument: 0 nearest-even, 2 toward
// zero, 5 stochastic): one operand of 1024 x 1024 normal values through float8_e4m3fn's
// per-tensor recipe (quantise: its scales on one thread, the rounding on all), and an experiment's output,
// the same number of values into bfloat16 (round_each, every thread).
void BM_Quantise(benchmark::State& state) {
  const Component c(1 << 20);
  CastOptions o;
  o.rounding = static_cast<Rounding>(state.range(0));
  const Scaling per_tensor{ScalingKind::PerTensor};
  for (auto _ : state)
    benchmark::DoNotOptimize(quantise(c.reference, 1024, 1024, DType::float8_e4m3fn, per_tensor, o).values.data());
  state.SetItemsProcessed(state.iterations() * (1 << 20));
}
BENCHMARK(BM_Quantise)->Arg(0)->Arg(2)->Arg(5)->Unit(benchmark::kMillisecond)->UseRealTime();

// An experiment's usual operand: 2048 x 2048 values into bfloat16 without a scale (a copy, the
// rounding, and the saturated and flushed counts).
void BM_QuantiseNone(benchmark::State& state) {
  const Component c(1 << 22);
  for (auto _ : state)
    benchmark::DoNotOptimize(
        quantise(c.reference, 2048, 2048, DType::bfloat16, Scaling{}, CastOptions{}).values.data());
  state.SetItemsProcessed(state.iterations() * (1 << 22));
}
BENCHMARK(BM_QuantiseNone)->Unit(benchmark::kMillisecond)->UseRealTime();

// The window's case at 4096 x 4096: a dtype changed, so an operand is quantised anew on the
// experiment's worker thread. There an array past 64 MB (glibc's largest heap for a thread)
// is a fresh mapping whatever keep_freed_memory() says, so every run faults its pages in.
void BM_QuantiseNone_4096_worker(benchmark::State& state) {
  const Component c(size_t{1} << 24);
  for (auto _ : state) {
    std::thread worker([&] {
      benchmark::DoNotOptimize(
          quantise(c.reference, 4096, 4096, DType::bfloat16, Scaling{}, CastOptions{}).values.data());
    });
    worker.join();
  }
  state.SetItemsProcessed(state.iterations() * (size_t{1} << 24));
}
BENCHMARK(BM_QuantiseNone_4096_worker)->Unit(benchmark::kMillisecond)->UseRealTime();

// The scaled recipes on a 2048 x 2048 operand (the argument: 1 per-tensor float8_e4m3fn, 3
// per-channel int8, 5 MX float8_e4m3fn, 6 NVFP4): the scales, the rounding, the block scales
// multiplied back and the dequantised copy.
void BM_QuantiseRecipe(benchmark::State& state) {
  const Component c(1 << 22);
  const auto kind = static_cast<ScalingKind>(state.range(0));
  const DType t = kind == ScalingKind::PerChannel ? DType::int8
                  : kind == ScalingKind::NVFP4    ? DType::float4_e2m1fn
                                                  : DType::float8_e4m3fn;
  for (auto _ : state)
    benchmark::DoNotOptimize(quantise(c.reference, 2048, 2048, t, Scaling{kind}, CastOptions{}).values.data());
  state.SetItemsProcessed(state.iterations() * (1 << 22));
}
BENCHMARK(BM_QuantiseRecipe)->Arg(1)->Arg(3)->Arg(5)->Arg(6)->Unit(benchmark::kMillisecond)->UseRealTime();

// The reference cache's key: a hash of every bit of two 2048 x 2048 operands (what each
// experiment pays twice, for the reference and for the rounded operands' one).
void BM_OperandHash(benchmark::State& state) {
  const Component c(1 << 22);
  for (auto _ : state) benchmark::DoNotOptimize(operand_hash(c.reference, c.result));
  state.SetItemsProcessed(state.iterations() * (2 << 22));
}
BENCHMARK(BM_OperandHash)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RoundEach(benchmark::State& state) {
  const Component c(1 << 20);
  CastOptions o;
  o.rounding = static_cast<Rounding>(state.range(0));
  std::vector<double> out(c.reference.size());
  for (auto _ : state) {
    round_each(info(DType::bfloat16).format, c.reference, out, o);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * (1 << 20));
}
BENCHMARK(BM_RoundEach)->Arg(0)->Arg(2)->Arg(5)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same into float4_e2m1fn of data mostly past its range (the conversion bench's pattern:
// |x| up to 650, float4's largest 6), where a rounding must take the overflow result.
void BM_RoundEach_float4_saturating(benchmark::State& state) {
  std::vector<double> in(1 << 20), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = (double(i % 1000003) - 500000.0) * 1.3e-3;
  CastOptions o;
  o.rounding = static_cast<Rounding>(state.range(0));
  for (auto _ : state) {
    round_each(info(DType::float4_e2m1fn).format, in, out, o);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * (1 << 20));
}
BENCHMARK(BM_RoundEach_float4_saturating)->Arg(0)->Arg(5)->Unit(benchmark::kMillisecond)->UseRealTime();

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
void BM_Experiment_bf16_f32sequential(benchmark::State& s) { experiment(s, {AccumKind::Sequential, DType::float32}); }
BENCHMARK(BM_Experiment_bf16_f32blas)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Experiment_bf16_f32sequential)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// What the window does on every change of a setting: the same config run again with its operands
// drawn from the data sources (the operands and the reference of the original ones cached from
// the run before; the rounded ones' reference computed again, as a changed dtype needs).
void rerun(benchmark::State& state, MatmulConfig c) {
  c.m = c.n = c.k = static_cast<size_t>(state.range(0));
  benchmark::DoNotOptimize(run_matmul(c));  // the first run: draws and caches
  for (auto _ : state) benchmark::DoNotOptimize(run_matmul(c));
}
void BM_Experiment_rerun(benchmark::State& state) { rerun(state, MatmulConfig{}); }
BENCHMARK(BM_Experiment_rerun)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same for a float8 recipe: e4m3 operands with per-tensor scales and a bfloat16 bias into a
// bfloat16 output -- the epilogue (scale, bias, each rounded once) runs on every element.
void BM_Experiment_rerun_fp8(benchmark::State& state) {
  MatmulConfig c;
  c.input = c.weight = DType::float8_e4m3fn;
  c.input_scaling = c.weight_scaling = Scaling{ScalingKind::PerTensor};
  c.bias = DType::bfloat16;
  c.output = DType::bfloat16;
  rerun(state, c);
}
BENCHMARK(BM_Experiment_rerun_fp8)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same with delayed scaling: each operand's amax over a history of 16 earlier tensors drawn
// from its data source.
void BM_Experiment_rerun_delayed(benchmark::State& state) {
  MatmulConfig c;
  c.input = c.weight = DType::float8_e4m3fn;
  c.input_scaling = c.weight_scaling = Scaling{ScalingKind::PerTensorDelayed};
  rerun(state, c);
}
BENCHMARK(BM_Experiment_rerun_delayed)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace pl::experiment

int main(int argc, char** argv) {
  pl::keep_freed_memory();  // as the app does (app/main.cpp)
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
