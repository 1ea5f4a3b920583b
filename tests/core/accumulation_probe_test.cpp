// The accumulation probes read back what an adder does: on the CPU backend (OpenBLAS: round to
// nearest even, 24 bits, nothing to promote), and on a stand-in device whose "library" is a
// known emulated model -- a truncating float16 partial sum promoted to float32 every 32
// products, the shape of a float8 tensor core's -- which the probes must find exactly.
#include <gtest/gtest.h>

#include "core/backend/backend.h"
#include "core/experiment/accumulation_probe.h"
#include "core/experiment/gemm.h"
#include "tests/core/stub_backend.h"

namespace pl::experiment {
namespace {

// A device whose library product is `model`, whatever the spec asks.
class ModelDevice final : public testing_support::StubBackend {
 public:
  explicit ModelDevice(Accumulation model) : StubBackend("model", "a known adder"), model_(model) {}
  Expected<ProductRun> product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                               const ProductControl&) override {
    auto c = gemm(s.shape, a, b, model_);
    if (!c) return Error{c.error()};
    return ProductRun{std::move(c).value(), describe(model_), 0};
  }

 private:
  Accumulation model_;
};

const ProbeFinding& finding(const ProbeReport& r, const std::string& starts) {
  for (const auto& f : r.findings)
    if (f.question.rfind(starts, 0) == 0) return f;
  static ProbeFinding none{"", "missing", ""};
  return none;
}

TEST(AccumulationProbe, ReadsOpenBlasAsRoundToNearestEvenInFullFloat32) {
  auto cpu = make_cpu_backend();
  auto r = probe_accumulation(*cpu, DType::float16);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(finding(*r, "rounding").answer, "to nearest");
  EXPECT_EQ(finding(*r, "ties").answer, "to even");
  EXPECT_EQ(finding(*r, "bits seen").answer, "at least 23 (all the probe can tell)");
  EXPECT_EQ(r->accumulator_bits, 24);
  EXPECT_EQ(r->promotion_interval, 0);
  EXPECT_EQ(finding(*r, "products between").answer, "not run");
  EXPECT_EQ(r->model, "f32:sequential");
}

TEST(AccumulationProbe, FindsATruncatingNarrowPartialSumAndItsPromotionInterval) {
  ModelDevice device({AccumKind::Chunked, DType::float16, Rounding::TowardZero, 32, 32, DType::float32});
  auto r = probe_accumulation(device, DType::float8_e4m3fn);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(finding(*r, "rounding").answer, "toward zero (truncation)");
  EXPECT_EQ(r->accumulator_bits, 11);  // float16's precision
  EXPECT_EQ(r->promotion_interval, 32);
  EXPECT_EQ(finding(*r, "products between").answer, "32");
  // float16's 11 bits: tf32 has them with float32's range (what a float32 partial sum has).
  EXPECT_EQ(r->model, "tf32:chunked:32:rtz");
}

TEST(AccumulationProbe, FindsRoundingToNearestInANarrowAccumulatorWithoutPromotion) {
  ModelDevice device({AccumKind::Sequential, DType::bfloat16});
  auto r = probe_accumulation(device, DType::bfloat16);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(finding(*r, "rounding").answer, "to nearest");
  EXPECT_EQ(r->accumulator_bits, 8);
  EXPECT_EQ(r->promotion_interval, 0);
  EXPECT_EQ(finding(*r, "products between").answer, "none within 4096");
}

TEST(AccumulationProbe, IntegerSumsHaveNothingToProbe) {
  auto cpu = make_cpu_backend();
  EXPECT_FALSE(probe_accumulation(*cpu, DType::int8, {AccumKind::Int32, DType::int32}).ok());
}

}  // namespace
}  // namespace pl::experiment
