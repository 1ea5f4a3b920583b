// Matrix products on the GPU against the CPU backend (in the spirit of ggml's
// test-backend-ops): the emulated models bit for bit, the cuBLASLt paths within the
// classical bound of their accumulator, int8 exactly. Without a GPU every test is skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <ostream>
#include <random>

#include "core/accumulate/gemm.h"
#include "core/backend/backend.h"
#include "core/dtype/codec.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/experiment/matmul.h"
#include "kernels/cuda_backend.h"
#include "tests/core/values_of.h"
#include "tests/cuda/emulated_parity_cases.h"

namespace pl {
namespace {

using experiment::AccumKind;
using experiment::Accumulation;
using experiment::GemmShape;

Backend* gpu() {
  static std::unique_ptr<Backend> b = [] {
    auto r = make_cuda_backend();
    return r ? std::move(r).value() : nullptr;
  }();
  return b.get();
}

#define REQUIRE_GPU() \
  if (!gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error()

// Values of `t` drawn from a normal distribution (scaled), plus `specials` planted at the front.
std::vector<double> values_of(DType t, size_t count, double scale, uint32_t seed,
                              const std::vector<double>& specials = {}) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> dist(0.0, scale);
  std::vector<double> v(count);
  const FloatFormat* f = is_float(t) ? &info(t).format : nullptr;
  for (double& x : v) {
    const double d = dist(rng);
    x = f ? round_to(*f, d, {}) : std::clamp(std::nearbyint(d), -128.0, 127.0);
  }
  for (size_t i = 0; i < specials.size() && i < count; ++i) v[i] = specials[i];
  return v;
}

using parity_cases::EmulatedCase;

class EmulatedProductParity : public ::testing::TestWithParam<EmulatedCase> {};

TEST_P(EmulatedProductParity, BitIdenticalToCpu) {
  REQUIRE_GPU();
  const EmulatedCase c = GetParam();
  const GemmShape shape{37, 45, 300};  // tails in every dimension, several chunks
  const ProductSpec spec{shape, c.input, c.input, c.acc};
  const Support s = gpu()->supports_product(spec);
  ASSERT_TRUE(s.ok) << s.why_not;
  // Large values overflow narrow accumulators and tiny ones give inexact products: both are
  // handed back to the CPU's general code, and must still agree.
  const double big = is_float(c.input) ? decode(info(c.input).format, info(c.input).format.max_finite_code()) : 127.0;
  const auto a = values_of(c.input, shape.m * shape.k, 4.0, 1, {big, big, -big});
  const auto b = values_of(c.input, shape.n * shape.k, 4.0, 2, {big, 0.5});
  auto cpu = experiment::gemm(shape, a, b, c.acc);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  auto dev = gpu()->product(spec, a, b, {});
  ASSERT_TRUE(dev.ok()) << dev.error();
  for (size_t e = 0; e < cpu->size(); ++e)
    ASSERT_EQ(std::memcmp(&(*cpu)[e], &dev->c[e], sizeof(double)), 0)
        << describe(c.acc) << " element " << e << ": cpu " << std::hexfloat << (*cpu)[e] << " gpu " << dev->c[e];
}

INSTANTIATE_TEST_SUITE_P(Models, EmulatedProductParity, ::testing::ValuesIn(parity_cases::emulated_cases()),
                         [](const auto& info) { return std::to_string(info.index); });

struct LibraryCase {
  DType input, weight;
  Accumulation acc;
  double u;  // the accumulation's unit roundoff, allowing for tensor cores' truncation
  bool fast = false;
};

void PrintTo(const LibraryCase& c, std::ostream* os) {
  *os << name(c.input) << " x " << name(c.weight) << ", " << describe(c.acc) << (c.fast ? ", fast accumulation" : "");
}

class LibraryProductParity : public ::testing::TestWithParam<LibraryCase> {};

// |gpu - exact| <= gamma_{k+1}(u) * sum_k |a_k b_k| for every element (Higham, Theorem 3.5;
// one more rounding for a narrow output), the exact product being the double-double one.
TEST_P(LibraryProductParity, WithinTheAccumulatorsBound) {
  REQUIRE_GPU();
  const LibraryCase c = GetParam();
  const GemmShape shape{96, 80, 512};
  ProductSpec spec{shape, c.input, c.weight, c.acc, c.fast};
  const Support s = gpu()->supports_product(spec);
  if (!s.ok) GTEST_SKIP() << "this GPU: " << s.why_not;
  const auto a = values_of(c.input, shape.m * shape.k, 2.0, 3);
  const auto b = values_of(c.weight, shape.n * shape.k, 2.0, 4);
  auto dev = gpu()->product(spec, a, b, {});
  ASSERT_TRUE(dev.ok()) << dev.error();
  const auto exact = experiment::reference_gemm(shape, a, b, /*high_precision=*/true).value();
  std::vector<double> abs_a(a.size()), abs_b(b.size());
  for (size_t i = 0; i < a.size(); ++i) abs_a[i] = std::fabs(a[i]);
  for (size_t i = 0; i < b.size(); ++i) abs_b[i] = std::fabs(b[i]);
  const auto magnitude = experiment::reference_gemm(shape, abs_a, abs_b, true).value();
  const double k1 = double(shape.k + 1), gamma = k1 * c.u / (1 - k1 * c.u);
  for (size_t e = 0; e < exact.size(); ++e) {
    if (c.acc.kind == AccumKind::Int32) {
      ASSERT_EQ(dev->c[e], experiment::wrap_int32(exact[e])) << "element " << e;
      continue;
    }
    ASSERT_LE(std::fabs(dev->c[e] - exact[e]), gamma * magnitude[e])
        << dev->method << " element " << e << ": gpu " << dev->c[e] << " exact " << exact[e];
  }
  EXPECT_GT(dev->device_seconds, 0.0);
  EXPECT_NE(dev->method.find("cuBLASLt"), std::string::npos) << dev->method;
}

INSTANTIATE_TEST_SUITE_P(
    Paths, LibraryProductParity,
    ::testing::Values(
        LibraryCase{DType::float64, DType::float64, {AccumKind::Blas, DType::float64}, 0x1p-53},
        LibraryCase{DType::float32, DType::float32, {AccumKind::Blas, DType::float32}, 0x1p-24},
        LibraryCase{DType::tf32, DType::tf32, {AccumKind::Blas, DType::float32}, 0x1p-22},
        LibraryCase{DType::float16, DType::float16, {AccumKind::Blas, DType::float32}, 0x1p-22},
        LibraryCase{DType::float16, DType::float16, {AccumKind::Blas, DType::float16}, 0x1p-10},
        LibraryCase{DType::bfloat16, DType::bfloat16, {AccumKind::Blas, DType::float32}, 0x1p-22},
        LibraryCase{DType::bfloat16, DType::float16, {AccumKind::Blas, DType::float32}, 0x1p-24},
        LibraryCase{DType::float8_e4m3fn, DType::float8_e4m3fn, {AccumKind::Blas, DType::float32}, 0x1p-20},
        LibraryCase{DType::float8_e4m3fn, DType::float8_e5m2, {AccumKind::Blas, DType::float32}, 0x1p-20},
        LibraryCase{DType::float8_e5m2, DType::float8_e4m3fn, {AccumKind::Blas, DType::float32}, 0x1p-20},
        // Fast accumulation keeps partial sums in the tensor cores' narrower accumulator.
        LibraryCase{DType::float8_e4m3fn, DType::float8_e4m3fn, {AccumKind::Blas, DType::float32}, 0x1p-12, true},
        LibraryCase{DType::int8, DType::int8, {AccumKind::Int32, DType::int32}, 0}),
    [](const auto& info) { return std::to_string(info.index); });

TEST(CudaProduct, RefusesWhatItCannotRunWithTheReason) {
  REQUIRE_GPU();
  const ProductSpec e5e5{{16, 16, 16}, DType::float8_e5m2, DType::float8_e5m2, {AccumKind::Blas, DType::float32}};
  EXPECT_FALSE(gpu()->supports_product(e5e5).ok);
  // float32 x float32 products are no float32 numbers: the emulated sums refuse them.
  const ProductSpec inexact{{16, 16, 16}, DType::float32, DType::float32, {AccumKind::Sequential, DType::float16}};
  const Support s = gpu()->supports_product(inexact);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.why_not.find("not exact float32"), std::string::npos) << s.why_not;
  std::vector<double> x(256, 1.0);
  EXPECT_FALSE(gpu()->product(inexact, x, x, {}).ok());
}

// The float32 GEMM of float32 arrays as they are (the bound check's |A||B| on the device): no
// TF32 (CUBLAS_COMPUTE_32F_PEDANTIC), so on nonnegative terms every element lies within k u of
// the exact sum in any order of summation -- what the bound check's slack allows for; the same
// for a shape no multiple of anything; arrays that do not fit the shape are refused.
TEST(CudaProduct, Float32ArraysRunAsTheyAreWithoutTf32) {
  REQUIRE_GPU();
  for (const GemmShape shape : {GemmShape{37, 53, 29}, GemmShape{256, 192, 1024}}) {
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> d(0.0f, 3.0f);
    std::vector<float> a(shape.m * shape.k), b(shape.n * shape.k), c(shape.m * shape.n, -1.0f);
    for (float& x : a) x = d(rng);
    for (float& x : b) x = d(rng);
    auto method = gpu()->product_f32(shape, a, b, c);
    ASSERT_TRUE(method.ok()) << method.error();
    EXPECT_NE(method->find("CUBLAS_COMPUTE_32F_PEDANTIC"), std::string::npos) << *method;
    for (size_t i = 0; i < c.size(); ++i) {
      double exact = 0;
      for (size_t t = 0; t < shape.k; ++t)
        exact += double(a[i / shape.n * shape.k + t]) * double(b[i % shape.n * shape.k + t]);
      ASSERT_NEAR(c[i], exact, exact * double(shape.k) * 0x1p-24) << shape.m << " " << i;
    }
  }
  std::vector<float> x(16 * 16), short_c(16 * 16 - 1);
  EXPECT_FALSE(gpu()->product_f32({16, 16, 16}, x, x, short_c).ok());
}

// Operands whose owners the caller names are kept on the device for the next call with the
// same owners (ProductControl::a_owner, b_owner): the product is the same bit for bit whether
// they were uploaded or kept, other owners or other values under new owners are uploaded
// afresh, and a call without owners is unaffected.
TEST(CudaProduct, KeptOperandsGiveTheProductOfTheOwnersValues) {
  REQUIRE_GPU();
  const ProductSpec s{{64, 48, 96}, DType::bfloat16, DType::bfloat16, {AccumKind::Blas, DType::float32}};
  auto values = [](size_t count, double scale) {
    auto v = std::make_shared<std::vector<double>>(count);
    for (size_t i = 0; i < count; ++i) (*v)[i] = scale * static_cast<double>(static_cast<int>(i % 29) - 14);
    return v;  // small integers: exact in bfloat16
  };
  auto product = [&](const std::shared_ptr<std::vector<double>>& a, const std::shared_ptr<std::vector<double>>& b,
                     bool owned) {
    ProductControl control;
    if (owned) control.a_owner = a, control.b_owner = b;
    auto run = gpu()->product(s, *a, *b, control);
    EXPECT_TRUE(run.ok()) << run.error();
    return run.ok() ? run->c : std::vector<double>{};
  };
  auto a = values(64 * 96, 1.0), b = values(48 * 96, 0.5);
  const std::vector<double> plain = product(a, b, false);
  EXPECT_EQ(product(a, b, true), plain);  // uploaded and kept
  EXPECT_EQ(product(a, b, true), plain);  // the kept copies
  auto a2 = values(64 * 96, 2.0);         // other owners, other values
  std::vector<double> twice = plain;
  for (double& x : twice) x *= 2;
  EXPECT_EQ(product(a2, b, true), twice);
  EXPECT_EQ(product(a, b, false), plain);
}

TEST(CudaProduct, ABlockScaledOperandIsHandedBackNotRounded) {
  REQUIRE_GPU();
  // 1 + 2^-20 is no float8 number: the library path must refuse the data, not round it.
  const ProductSpec s{{16, 16, 16}, DType::float8_e4m3fn, DType::float8_e4m3fn, {AccumKind::Blas, DType::float32}};
  if (!gpu()->supports_product(s).ok) GTEST_SKIP() << "no fp8 GEMM on this GPU";
  std::vector<double> a(256, 1.0), b(256, 1.0);
  a[5] = 1.0 + std::ldexp(1.0, -20);
  auto r = gpu()->product(s, a, b, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("not a e4m3 number"), std::string::npos) << r.error();
}

TEST(CudaProduct, TheExperimentRunsOnTheGpuWhenAsked) {
  REQUIRE_GPU();
  register_backend(BackendChoice::Cuda, [] { return make_cuda_backend(); });
  experiment::MatmulConfig c;
  c.m = 128, c.n = 96, c.k = 256;
  c.input = c.weight = DType::bfloat16;
  c.accumulate = {AccumKind::Sequential, DType::float32};
  auto cpu = experiment::run_matmul(c);
  c.backend = BackendChoice::Cuda;
  auto dev = experiment::run_matmul(c);
  ASSERT_TRUE(cpu.ok() && dev.ok());
  EXPECT_EQ(dev->product_backend.rfind("cuda", 0), 0u) << dev->product_backend << " / " << dev->backend_note;
  EXPECT_TRUE(dev->backend_note.empty()) << dev->backend_note;
  EXPECT_EQ(test::values_of(dev->result), test::values_of(cpu->result));  // emulated: bit for bit
}

// The dot sweep on the GPU: each trial a 1 x 1 x K product through the emulated kernels, bit for
// bit the CPU's sums; the library model (cuBLASLt sgemm) within float32's bound of them.
TEST(CudaProduct, TheDotSweepRunsOnTheGpuWhenAsked) {
  REQUIRE_GPU();
  register_backend(BackendChoice::Cuda, [] { return make_cuda_backend(); });
  experiment::DotSweepConfig c;
  c.lengths = {16, 1000, 4096};
  c.trials = 16;
  c.models = {{AccumKind::Sequential, DType::float32},
              {AccumKind::Sequential, DType::bfloat16},
              {AccumKind::Kahan, DType::float32},
              {AccumKind::Chunked, DType::float16, Rounding::NearestEven, 32, 128, DType::float32},
              {AccumKind::Sequential, DType::bfloat16, Rounding::Stochastic},  // trial t's stream at t << 32
              {AccumKind::Blas, DType::float32}};
  const auto cpu = experiment::dot_sweep(c);
  c.backend = BackendChoice::Cuda;
  const auto dev = experiment::dot_sweep(c);
  ASSERT_EQ(dev.size(), cpu.size());
  for (size_t i = 0; i < dev.size(); ++i) {
    const std::string what = describe(dev[i].model) + " K=" + std::to_string(dev[i].length);
    EXPECT_EQ(dev[i].ran_on.rfind("cuda", 0), 0u) << what << ": " << dev[i].ran_on << " / " << dev[i].note;
    if (dev[i].model.kind == AccumKind::Blas) {  // another order of the same float32 sums
      for (size_t t = 0; t < dev[i].scaled_errors.size(); ++t)
        EXPECT_LE(dev[i].scaled_errors[t], dev[i].bounds.deterministic) << what << " trial " << t;
    } else {
      EXPECT_EQ(dev[i].scaled_errors, cpu[i].scaled_errors) << what;
    }
  }
}

}  // namespace
}  // namespace pl
