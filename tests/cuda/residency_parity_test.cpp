// An experiment's arrays kept on the GPU (core/backend/held_values.h): a library product, its
// output rounding, the references with their bias, the statistics and the heat map stay in the
// device's memory, and what they hold is what the host's own steps give from the same arrays --
// the output rounding and the bias bit for bit, the statistics as the CPU makes them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "core/accumulate/output_steps.h"
#include "core/analysis/pooled_difference.h"
#include "core/backend/backend.h"
#include "core/dtype/codec.h"
#include "core/experiment/matmul.h"
#include "core/experiment/quantised_cache.h"
#include "core/experiment/reference_cache.h"
#include "kernels/cuda_backend.h"
#include "tests/core/values_of.h"
#include "tests/cuda/error_stats_cases.h"

namespace pl {
namespace {

using experiment::AccumKind;
using experiment::MatmulConfig;

bool have_gpu() {
  static const bool yes = make_cuda_backend().ok();
  return yes;
}

#define REQUIRE_GPU()                                                                 \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error(); \
  register_backend(BackendChoice::Cuda, [] { return make_cuda_backend(); })

MatmulConfig library_bf16() {
  MatmulConfig c;
  c.m = 256, c.n = 192, c.k = 320;
  c.input = c.weight = DType::bfloat16;
  c.accumulate = {AccumKind::Blas, DType::float32};
  c.output = DType::bfloat16;
  c.cast.rounding = Rounding::Stochastic;  // the device's output rounding draws index e for element e
  c.cast.seed = 77;
  c.seed = 5;
  c.backend = BackendChoice::Cuda;
  return c;
}

// The result is Cacc rounded to the output dtype as round_each rounds it; the heat map is the
// host's pooling of C - R; the statistics are the CPU's of the arrays the run kept.
void expect_consistent(const experiment::MatmulResult& r) {
  const auto result = test::values_of(r.result), acc = test::values_of(r.accumulated),
             ref = test::values_of(r.reference), rq = test::values_of(r.rounded_reference);
  std::vector<double> rounded(acc.size());
  round_each(info(r.config.output).format, acc, rounded, r.config.cast);
  ASSERT_EQ(result.size(), rounded.size());
  EXPECT_EQ(0, std::memcmp(result.data(), rounded.data(), result.size() * sizeof(double)));
  const auto map = experiment::pooled_difference(result, ref, r.config.m, r.config.n, 512);
  EXPECT_EQ(r.error_map.rows, map.rows);
  EXPECT_EQ(0, std::memcmp(r.error_map.values.data(), map.values.data(), map.values.size() * sizeof(double)));
  cuda::testing::expect_same_stats(r.total.stats, experiment::error_stats(result, ref, r.config.output), "total");
  cuda::testing::expect_same_stats(r.input.stats, experiment::error_stats(rq, ref, r.config.output), "input");
  cuda::testing::expect_same_stats(r.output.stats, experiment::error_stats(result, acc, r.config.output), "output");
}

TEST(CudaResidency, ALibraryProductsArraysStayOnTheGpuAndAgreeWithTheHostSteps) {
  REQUIRE_GPU();
  auto r = experiment::run_matmul(library_bf16());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->backend_note.empty()) << r->backend_note;
  EXPECT_EQ(r->analysis_backend.rfind("cuda", 0), 0u) << r->analysis_backend;
  for (const Held* a : {&r->result, &r->accumulated, &r->reference, &r->rounded_reference})
    EXPECT_NE((*a)->holder(), 0u) << "an array came back to the host";
  expect_consistent(*r);
  // The references are the CPU's dgemm's but for the order of the sums.
  MatmulConfig cpu_config = library_bf16();
  cpu_config.backend = BackendChoice::Cpu;
  auto cpu = experiment::run_matmul(cpu_config);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  const auto ref = test::values_of(r->reference), cpu_ref = test::values_of(cpu->reference);
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(ref[i], cpu_ref[i], 1e-12 * (1 + std::fabs(cpu_ref[i]))) << i;
}

// Scales and a bias: the whole run stays on the GPU, and the bias is added to the references
// there exactly as the host adds it.
TEST(CudaResidency, TheBiasIsAddedOnTheGpuAsTheHostAddsIt) {
  REQUIRE_GPU();
  experiment::clear_reference_cache();
  MatmulConfig c = library_bf16();
  c.input = c.weight = DType::float8_e4m3fn;
  c.input_scaling.kind = c.weight_scaling.kind = experiment::ScalingKind::PerTensor;
  const auto drawn = experiment::generate_operands(c);
  experiment::MatmulOperands with_bias = drawn;
  with_bias.bias.resize(c.n);
  for (size_t j = 0; j < c.n; ++j) with_bias.bias[j] = std::ldexp(double(j % 17) - 8, -3) + 1e-9 * double(j);
  c.bias = DType::float32;
  auto biased = experiment::run_matmul(c, with_bias);
  ASSERT_TRUE(biased.ok()) << biased.error();
  EXPECT_TRUE(biased->backend_note.empty()) << biased->backend_note;
  EXPECT_NE(biased->reference->holder(), 0u);
  EXPECT_NE(biased->accumulated->holder(), 0u);
  expect_consistent(*biased);
  c.bias.reset();
  auto plain = experiment::run_matmul(c, drawn);  // the same dgemm, from the cache
  ASSERT_TRUE(plain.ok()) << plain.error();
  const auto r0 = test::values_of(plain->reference), r1 = test::values_of(biased->reference);
  ASSERT_EQ(r0.size(), r1.size());
  for (size_t i = 0; i < r0.size(); ++i) ASSERT_EQ(r1[i], r0[i] + with_bias.bias[i % c.n]) << i;
}

// The epilogue kernel (epilogue_element.h) against the CPU's apply_epilogue on the very sums the
// GPU made: every library model's result format, scales, a bias, stochastic output rounding.
TEST(CudaResidency, TheEpilogueOnTheGpuIsTheCpusBitForBit) {
  REQUIRE_GPU();
  auto device = make_cuda_backend();
  ASSERT_TRUE(device.ok()) << device.error();
  auto cpu = make_cpu_backend();
  const experiment::GemmShape shape{96, 80, 128};
  struct Case {
    DType in;
    experiment::Accumulation acc;
  };
  for (const Case& k : {Case{DType::bfloat16, {AccumKind::Blas, DType::float32}},
                        Case{DType::float16, {AccumKind::Blas, DType::float16}},
                        Case{DType::int8, {AccumKind::Int32, DType::float32}}}) {
    std::vector<double> a(shape.m * shape.k), b(shape.n * shape.k), fa(shape.m), fb(shape.n), bias(shape.n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = double(int(i * 37 % 23) - 11) * (k.in == DType::int8 ? 1 : 0.125);
    for (size_t i = 0; i < b.size(); ++i) b[i] = double(int(i * 53 % 19) - 9) * (k.in == DType::int8 ? 1 : 0.25);
    for (size_t i = 0; i < fa.size(); ++i) fa[i] = static_cast<float>(1.0 + 0.37 * double(i % 7));
    for (size_t j = 0; j < fb.size(); ++j) fb[j] = static_cast<float>(0.5 + 0.11 * double(j % 5));
    for (size_t j = 0; j < bias.size(); ++j) bias[j] = round_to(info(DType::bfloat16).format, 0.3 * double(j) - 7, {});
    const ProductSpec spec{shape, k.in, k.in, k.acc};
    auto sums = (*device)->product_held(spec, a, b, {});
    ASSERT_TRUE(sums.ok()) << sums.error();
    ASSERT_NE(sums->c->holder(), 0u) << "the library product's sums came back";
    CastOptions cast;
    cast.rounding = Rounding::Stochastic, cast.seed = 3;
    const experiment::OutputSteps steps{shape.m, shape.n, k.acc, fa, fb, bias, DType::bfloat16, cast};
    auto on_gpu = (*device)->finish_output(steps, sums->c);
    ASSERT_TRUE(on_gpu.ok()) << on_gpu.error();
    auto on_cpu = cpu->finish_output(steps, hold_on_host(test::values_of(sums->c)));
    ASSERT_TRUE(on_cpu.ok()) << on_cpu.error();
    const auto ga = test::values_of(on_gpu->accumulated), ca = test::values_of(on_cpu->accumulated);
    const auto gr = test::values_of(on_gpu->result), cr = test::values_of(on_cpu->result);
    ASSERT_EQ(ga.size(), ca.size());
    EXPECT_EQ(0, std::memcmp(ga.data(), ca.data(), ga.size() * sizeof(double))) << describe(k.acc);
    EXPECT_EQ(0, std::memcmp(gr.data(), cr.data(), gr.size() * sizeof(double))) << describe(k.acc);
  }
}

// An emulated model's sums stay on the GPU too, the elements the CPU recomputes (sums past
// float16's range here, in every fifth row) written back into them there: bit for bit the CPU's.
TEST(CudaResidency, AnEmulatedProductsSumsStayOnTheGpuWithTheCpusElementsWrittenBack) {
  REQUIRE_GPU();
  MatmulConfig c = library_bf16();
  c.accumulate = {AccumKind::Sequential, DType::float16};
  c.cast = {};
  experiment::MatmulOperands ops = experiment::generate_operands(c);
  for (size_t i = 0; i < c.m; i += 5)
    for (size_t kk = 0; kk < c.k; ++kk) ops.a[i * c.k + kk] = std::ldexp(std::fabs(ops.a[i * c.k + kk]) + 1, 9);
  for (double& w : ops.b) w = std::fabs(w) + 1;
  auto dev = experiment::run_matmul(c, ops);
  ASSERT_TRUE(dev.ok()) << dev.error();
  EXPECT_NE(dev->product_method.find("recomputed on the CPU"), std::string::npos) << dev->product_method;
  EXPECT_NE(dev->accumulated->holder(), 0u) << "the sums came back";
  EXPECT_TRUE(dev->backend_note.empty()) << dev->backend_note;
  c.backend = BackendChoice::Cpu;
  auto cpu = experiment::run_matmul(c, ops);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  const auto da = test::values_of(dev->accumulated), ca = test::values_of(cpu->accumulated);
  ASSERT_EQ(da.size(), ca.size());
  EXPECT_EQ(0, std::memcmp(da.data(), ca.data(), da.size() * sizeof(double)));
  EXPECT_EQ(test::values_of(dev->result), test::values_of(cpu->result));
}

// A re-run on the same operands with another output: the same arrays of the product, kept.
TEST(CudaResidency, AReRunKeepsTheProductsOperandsAndReferences) {
  REQUIRE_GPU();
  MatmulConfig c = library_bf16();
  auto first = experiment::run_matmul(c);
  c.output = DType::float16;
  auto again = experiment::run_matmul(c);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_NE(again->reference_method.find("(cached)"), std::string::npos) << again->reference_method;
  EXPECT_EQ(again->reference, first->reference);  // the very array on the device
  EXPECT_EQ(test::values_of(again->accumulated), test::values_of(first->accumulated));
  expect_consistent(*again);
}

}  // namespace
}  // namespace pl
