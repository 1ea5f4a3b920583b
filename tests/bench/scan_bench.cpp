// Google Benchmark timings of the checkpoint scan's candidate passes on this machine (never
// asserted by tests), over a 2048 x 8192 tensor of bfloat16 values with outlier rows taken in
// runs of 128 rows as the scan takes them: fused_scores (the register pass) for candidates it
// takes, alone and the three default ones together, and the bfloat16 code tally with the five
// default candidates it scores. "bytes/s" counts the tensor's bfloat16 bytes, the measure
// docs/checkpoint-scan.md sets against a memory copy.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/dtype/codec.h"
#include "core/experiment/scan/code_tally.h"
#include "core/experiment/scan/fused_scores.h"

namespace pl::experiment {
namespace {

constexpr size_t kRows = 2048, kCols = 8192;

// The weights as the scan holds them (doubles), and their bfloat16 codes.
struct Tensor {
  std::vector<double> x;
  std::vector<uint8_t> codes;
  double amax = 0;
};

const Tensor& tensor() {
  static const Tensor t = [] {
    Tensor t;
    std::mt19937_64 rng(1);
    std::normal_distribution<double> d(0, 0.02);
    t.x.resize(kRows * kCols);
    t.codes.resize(2 * kRows * kCols);
    for (size_t r = 0; r < kRows; ++r)
      for (size_t c = 0; c < kCols; ++c) {
        const double v = round_to(info(DType::bfloat16).format, d(rng) * (r % 683 == 0 ? 20 : 1), {});
        const auto bits = static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16);
        std::memcpy(&t.codes[2 * (r * kCols + c)], &bits, 2);
        t.x[r * kCols + c] = v;
        t.amax = std::max(t.amax, std::abs(v));
      }
    return t;
  }();
  return t;
}

void bytes(benchmark::State& state) {
  state.counters["bytes/s"] = benchmark::Counter(2.0 * kRows * kCols, benchmark::Counter::kIsIterationInvariantRate);
}

// The candidates over the tensor in runs of 128 rows (about a million elements, as the scan
// takes a tensor: TensorScanOptions::chunk_elements). The runs are decoded once, before the
// timing; a scan scores each run just after decoding it, while part of it is still in the cache.
void fused(benchmark::State& state, const char* candidates) {
  const Tensor& t = tensor();
  const std::vector<Candidate> c = *parse_candidates(candidates);
  constexpr size_t kRunRows = 128;
  for (auto _ : state)
    for (size_t r = 0; r < kRows; r += kRunRows)
      benchmark::DoNotOptimize(
          fused_scores(std::span(t.x).subspan(r * kCols, kRunRows * kCols), kRunRows, kCols, t.amax, c, {}));
  bytes(state);
}

void BM_Fused_fp8_per_channel(benchmark::State& s) { fused(s, "float8_e4m3fn:per-channel"); }
void BM_Fused_int8_per_channel(benchmark::State& s) { fused(s, "int8:per-channel"); }
void BM_Fused_fp4_nvfp4(benchmark::State& s) { fused(s, "float4_e2m1fn:nvfp4"); }
void BM_Fused_fp8_mx(benchmark::State& s) { fused(s, "float8_e4m3fn:mx"); }
void BM_Fused_int4_group128(benchmark::State& s) { fused(s, "int4:group:128"); }
// The default candidates the tally does not take, in one pass as the scan runs them.
void BM_Fused_default_three(benchmark::State& s) {
  fused(s, "float8_e4m3fn:per-channel,int8:per-channel,float4_e2m1fn:nvfp4");
}

// The count of the codes, then the five default candidates it takes scored from it.
void BM_Tally_bfloat16(benchmark::State& state) {
  const Tensor& t = tensor();
  const std::vector<Candidate> c = *parse_candidates(
      "bfloat16,float8_e4m3fn:per-tensor,float8_e4m3fn:mx,float6_e2m3fn:mx,float4_e2m1fn:mx");
  for (auto _ : state) {
    const auto tally = tally_bfloat16(t.codes.data(), kRows, kCols, t.amax);
    if (!tally) {
      state.SkipWithError("the tally refused the tensor");
      break;
    }
    benchmark::DoNotOptimize(tallied_scores(*tally, t.amax, c, {}));
  }
  bytes(state);
}

BENCHMARK(BM_Fused_fp8_per_channel)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Fused_int8_per_channel)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Fused_fp4_nvfp4)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Fused_fp8_mx)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Fused_int4_group128)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Fused_default_three)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Tally_bfloat16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace pl::experiment

BENCHMARK_MAIN();
