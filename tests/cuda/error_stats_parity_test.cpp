// The error statistics with both passes on the GPU against the CPU's error_stats(): every count,
// extreme, histogram and percentile equal, the sums within 1e-9 (another order of addition), on
// arrays with NaN, Inf, zeros, subnormals and saturation, and a whole experiment's attribution.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/experiment/matmul.h"
#include "kernels/cuda_backend.h"
#include "tests/cuda/error_stats_cases.h"

namespace pl {
namespace {

Backend* gpu() {
  static std::unique_ptr<Backend> b = [] {
    auto r = make_cuda_backend();
    return r ? std::move(r).value() : nullptr;
  }();
  return b.get();
}

class ErrorStatsParity : public ::testing::TestWithParam<std::tuple<DType, bool, size_t>> {};

TEST_P(ErrorStatsParity, EqualsTheCpu) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error();
  const auto [output, specials, side] = GetParam();
  const auto a = cuda::testing::attribution_arrays(side, side + 3, 11, specials);
  cuda::testing::AttributionComparisons cpu, device;
  cuda::testing::fill_comparisons(a, cpu);
  cuda::testing::fill_comparisons(a, device);
  const auto want = experiment::error_stats(cpu.list, output);
  auto got = gpu()->error_stats(device.list, output, 0);
  ASSERT_TRUE(got.ok()) << got.error();
  cuda::testing::expect_same_attribution(*got, device, want, cpu, std::string(name(output)));
}

INSTANTIATE_TEST_SUITE_P(Attribution, ErrorStatsParity,
                         ::testing::Combine(::testing::Values(DType::float32, DType::bfloat16, DType::float8_e4m3fn),
                                            ::testing::Values(false, true),
                                            ::testing::Values(size_t{5}, size_t{700}, size_t{2048})));

TEST(ErrorStatsParity, Float64OutputsWithinTheOctaveTable) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error();
  const auto a = cuda::testing::attribution_arrays(300, 301, 12, false);
  cuda::testing::AttributionComparisons cpu, device;
  cuda::testing::fill_comparisons(a, cpu);
  cuda::testing::fill_comparisons(a, device);
  const auto want = experiment::error_stats(cpu.list, DType::float64);
  auto got = gpu()->error_stats(device.list, DType::float64, 0);
  ASSERT_TRUE(got.ok()) << got.error();
  cuda::testing::expect_same_attribution(*got, device, want, cpu, "float64");
}

// Past the octave table the device declines with the reason (the experiment then uses the CPU).
TEST(ErrorStatsParity, DeclinesErrorsPastTheOctaveTable) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error();
  const auto a = cuda::testing::attribution_arrays(129, 1000, 4, true);
  cuda::testing::AttributionComparisons c;
  cuda::testing::fill_comparisons(a, c);
  auto got = gpu()->error_stats(c.list, DType::float64, 0);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().find("octave table"), std::string::npos) << got.error();
}

// A whole experiment on CUDA: its statistics made there equal those the CPU makes of the very
// arrays the run kept.
TEST(ErrorStatsParity, AnExperimentsAttributionIsMadeOnTheGpu) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error();
  // (Each test may run in a process of its own: register "cuda" here, not in another test.)
  register_backend(BackendChoice::Cuda, [] { return make_cuda_backend(); });
  experiment::MatmulConfig c;
  c.m = 512, c.n = 384, c.k = 256;
  c.backend = BackendChoice::Cuda;
  auto r = experiment::run_matmul(c);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->analysis_backend.rfind("cuda", 0), 0u) << r->analysis_backend << " / " << r->backend_note;
  experiment::ErrorHistograms h;
  auto result = r->result->host();
  auto reference = r->reference->host();
  ASSERT_TRUE(result && reference) << "reading the arrays back failed";
  const auto cpu = experiment::error_stats(*result, *reference, c.output, 0, &h);
  cuda::testing::expect_same_stats(r->total.stats, cpu, "total");
  cuda::testing::expect_same_histogram(r->total.signed_error, h.signed_error, "total signed");
  cuda::testing::expect_same_histogram(r->total.relative, h.relative, "total relative");
  cuda::testing::expect_same_histogram(r->total.ulps, h.ulps, "total ulps");
}

}  // namespace
}  // namespace pl
