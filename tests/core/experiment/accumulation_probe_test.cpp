// The accumulation probes read back what an adder does: on the CPU backend (OpenBLAS: round to
// nearest even, 24 bits, nothing to promote), and on a stand-in device whose "library" is a
// known emulated model -- a truncating float16 partial sum promoted to float32 every 32
// products, the shape of a float8 tensor core's -- which the probes must find exactly.
#include <gtest/gtest.h>

#include "core/accumulate/accumulation_spec.h"
#include "core/accumulate/gemm.h"
#include "core/backend/backend.h"
#include "core/experiment/accumulation_probe.h"
#include "core/experiment/dot_sweep.h"
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

// A float32 adder that rounds to nearest at every step but keeps `lanes` partial sums, position
// p along K going to lane p % lanes, added in lane order at the end (OpenBLAS 0.3.21's Haswell
// and Zen sgemm kernels keep two: found on an AVX-512 Zen machine run with
// OPENBLAS_CORETYPE=Haswell); `backwards` runs K from its end instead.
class LanesDevice final : public testing_support::StubBackend {
 public:
  LanesDevice(size_t lanes, bool backwards)
      : StubBackend("lanes", "float32 lanes"), lanes_(lanes), backwards_(backwards) {}
  Expected<ProductRun> product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                               const ProductControl&) override {
    const size_t m = s.shape.m, n = s.shape.n, k = s.shape.k;
    std::vector<double> c(m * n);
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j) {
        std::vector<float> lane(lanes_, 0.0f);
        for (size_t t = 0; t < k; ++t) {
          const size_t p = backwards_ ? k - 1 - t : t;
          // The products of float16 numbers are exact in float32: one rounding, the sum's.
          lane[p % lanes_] += static_cast<float>(a[i * k + p] * b[j * k + p]);
        }
        float sum = 0.0f;
        for (float l : lane) sum += l;
        c[i * n + j] = sum;
      }
    return ProductRun{std::move(c), "lanes", 0};
  }

 private:
  size_t lanes_;
  bool backwards_;
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

// Whatever order a correctly rounding float32 adder takes, the probes read it as one: before,
// two lanes read as truncation with 1 bit seen, and adding backwards as 0 bits seen.
TEST(AccumulationProbe, ReadsAnAdderThatRoundsToNearestTheSameInAnyOrder) {
  for (size_t lanes : {1, 2, 4, 8})
    for (bool backwards : {false, true}) {
      LanesDevice device(lanes, backwards);
      auto r = probe_accumulation(device, DType::float16);
      ASSERT_TRUE(r.ok()) << r.error();
      const std::string where = std::to_string(lanes) + " lanes" + (backwards ? ", backwards" : "");
      EXPECT_EQ(finding(*r, "rounding").answer, "to nearest") << where << ": " << finding(*r, "rounding").evidence;
      EXPECT_EQ(finding(*r, "ties").answer, "to even") << where << ": " << finding(*r, "ties").evidence;
      EXPECT_EQ(finding(*r, "bits seen").answer, "at least 23 (all the probe can tell)")
          << where << ": " << finding(*r, "bits seen").evidence;
      EXPECT_EQ(r->accumulator_bits, 24) << where;
      EXPECT_EQ(r->model, "f32:sequential") << where;
      // One lane is the sequential model itself; more lanes add in another order, which the
      // comparison on random inputs shows.
      const std::string check = finding(*r, "the model against").answer;
      if (lanes == 1 && !backwards) EXPECT_EQ(check, "4096 of 4096 elements bit-identical") << where;
      else EXPECT_NE(check.find("%)"), std::string::npos) << where << ": " << check;
    }
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

// float4_e2m1fn's products span too few octaves for 1 and 1.5 x 2^-7 at any common scale: the
// probes that need the rounding say so, not that the sum is not rounded to nearest.
TEST(AccumulationProbe, ADtypeTooNarrowForTheTermsSaysWhyEachProbeDidNotRun) {
  auto cpu = make_cpu_backend();
  auto r = probe_accumulation(*cpu, DType::float4_e2m1fn);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(finding(*r, "rounding").answer, "not run");
  EXPECT_NE(finding(*r, "rounding").evidence.find("cannot hold these terms"), std::string::npos);
  EXPECT_EQ(finding(*r, "ties").answer, "not run");
  EXPECT_EQ(finding(*r, "ties").evidence, "needs the rounding found above");
  EXPECT_EQ(finding(*r, "bits seen").evidence, "needs the rounding found above");
  EXPECT_TRUE(r->model.empty());
}

Accumulation multiterm(int block, int extra, Rounding r) {
  Accumulation a{AccumKind::Multiterm, DType::float32, r, block};
  a.extra_bits = extra;
  return a;
}

// A tensor core's multi-term adder (Fasi et al.): the probes find its width, rounding and extra
// bits, the normalisation probe finds that raising one term lowers the sum, and where the block
// ends -- so the model they report is the device's own, for 16-bit and 8-bit inputs alike.
TEST(AccumulationProbe, FindsAMultitermAdderItsBlockAndItsExtraBits) {
  struct Case {
    Accumulation model;
    DType input;
  };
  for (const Case& c : {Case{multiterm(16, 2, Rounding::TowardZero), DType::float16},
                        Case{multiterm(16, 2, Rounding::TowardZero), DType::bfloat16},
                        Case{multiterm(16, 2, Rounding::TowardZero), DType::float8_e4m3fn},
                        Case{multiterm(8, 0, Rounding::TowardZero), DType::float16},
                        Case{multiterm(4, 1, Rounding::TowardZero), DType::bfloat16},
                        Case{multiterm(32, 3, Rounding::TowardZero), DType::float16},
                        Case{multiterm(32, 2, Rounding::NearestEven), DType::float16}}) {
    ModelDevice device(c.model);
    auto r = probe_accumulation(device, c.input);
    ASSERT_TRUE(r.ok()) << r.error();
    const std::string where = describe(c.model) + ", " + std::string(name(c.input));
    const ProbeFinding& f = finding(*r, "normalisation");
    EXPECT_EQ(r->block_terms, c.model.block) << where << ": " << f.answer << " / " << f.evidence;
    EXPECT_EQ(r->extra_bits, c.model.extra_bits) << where;
    EXPECT_EQ(f.answer, "once per block of " + std::to_string(c.model.block) + " products (a multi-term adder, " +
                            std::to_string(c.model.extra_bits) + " extra bits)")
        << where;
    EXPECT_EQ(r->model, accumulation_spec(c.model)) << where;
    // The model found reproduces the device on random inputs, bit for bit.
    EXPECT_EQ(finding(*r, "the model against").answer, "4096 of 4096 elements bit-identical") << where;
  }
}

// A model given, not read (accumulation-probe --check-model): the device's own adder reproduces
// every element, another block or rounding fewer; a product the backend lacks is an error.
TEST(AccumulationProbe, ChecksAGivenModelAgainstTheDevice) {
  ModelDevice device(multiterm(16, 2, Rounding::TowardZero));
  const Accumulation blas{AccumKind::Blas, DType::float32};
  auto same = check_model(device, DType::bfloat16, blas, false, multiterm(16, 2, Rounding::TowardZero));
  ASSERT_TRUE(same.ok()) << same.error();
  EXPECT_EQ(same->answer, "4096 of 4096 elements bit-identical");
  for (const Accumulation& other : {multiterm(8, 2, Rounding::TowardZero), multiterm(16, 0, Rounding::TowardZero),
                                    Accumulation{AccumKind::Sequential, DType::float32}}) {
    auto f = check_model(device, DType::bfloat16, blas, false, other);
    ASSERT_TRUE(f.ok()) << f.error();
    EXPECT_NE(f->answer, "4096 of 4096 elements bit-identical") << describe(other);
    EXPECT_NE(f->answer.find(" of 4096 elements bit-identical ("), std::string::npos) << f->answer;
    EXPECT_NE(f->evidence.find("the largest difference"), std::string::npos) << f->evidence;
  }
  EXPECT_FALSE(check_model(device, DType::int8, {AccumKind::Int32, DType::int32}, false, blas).ok());
}

// Blocks too short to hold the small terms the probe needs (with 3 extra bits, 10 terms; a
// block of 4 adds them in three steps, each rounded): no sign of a multi-term adder, and the
// evidence names both readings.
TEST(AccumulationProbe, BlocksShorterThanTheSmallTermsShowNoSignAndSaySo) {
  ModelDevice device(multiterm(4, 3, Rounding::TowardZero));
  auto r = probe_accumulation(device, DType::bfloat16);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(finding(*r, "bits seen").answer, "3");
  const ProbeFinding& f = finding(*r, "normalisation");
  EXPECT_EQ(f.answer, "no sign of a multi-term adder") << f.evidence;
  EXPECT_NE(f.evidence.find("10 small terms from K = 4, 8, 16, 32, 64, 128"), std::string::npos) << f.evidence;
  EXPECT_NE(f.evidence.find("or blocks shorter than the small terms"), std::string::npos) << f.evidence;
  EXPECT_EQ(r->block_terms, 0);
  EXPECT_EQ(r->model, "f32:sequential:rtz");
}

// OpenBLAS sees every bit the probes can place: the normalisation probe cannot place its small
// terms just below what the adder sees, and says so.
TEST(AccumulationProbe, AnAdderThatSeesEveryBitIsNotProbedForBlocks) {
  auto cpu = make_cpu_backend();
  auto r = probe_accumulation(*cpu, DType::bfloat16);
  ASSERT_TRUE(r.ok()) << r.error();
  const ProbeFinding& f = finding(*r, "normalisation");
  EXPECT_EQ(f.answer, "not run");
  EXPECT_NE(f.evidence.find("sees at least 23 bits"), std::string::npos) << f.evidence;
}

TEST(AccumulationProbe, IntegerSumsHaveNothingToProbe) {
  auto cpu = make_cpu_backend();
  EXPECT_FALSE(probe_accumulation(*cpu, DType::int8, {AccumKind::Int32, DType::int32}).ok());
}

}  // namespace
}  // namespace pl::experiment
