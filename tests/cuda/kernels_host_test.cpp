// The CUDA backend's host-side decisions, tested on every machine (no GPU needed): how operands
// are packed for cuBLASLt, which cuBLASLt GEMM a product runs, and which models the GPU's own
// kernels take.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <ostream>
#include <random>

#include "core/accumulate/gemm.h"
#include "core/dtype/codec.h"
#include "kernels/cublaslt_api.h"
#include "kernels/emulated_gemm.cuh"
#include "kernels/emulated_plan.h"
#include "kernels/emulated_sum.h"
#include "kernels/lt_plan.h"
#include "kernels/operand_pack.h"
#include "tests/cuda/emulated_parity_cases.h"

namespace pl::cuda {
namespace {

using experiment::AccumKind;

TEST(OperandPack, EveryElementTypeRoundTripsAndPadsWithZeros) {
  const std::vector<double> v = {1.0, -2.5, 0.0, 448.0, -0.375, 96.0};  // e4m3 and int8-free values
  for (Element e : {Element::F64, Element::F32, Element::F16, Element::BF16, Element::E4M3, Element::E5M2}) {
    auto p = pack_rows(v, 2, 3, 16, e);
    ASSERT_TRUE(p.ok()) << element_name(e) << ": " << p.error();
    EXPECT_EQ(p->bytes.size(), 2 * 16 * element_bytes(e));
    EXPECT_EQ(unpack_rows(p->bytes.data(), 2, 3, 16, e), v) << element_name(e);
    for (size_t c = 3; c < 16; ++c)  // the padding of row 1 is zero bytes
      for (size_t byte = 0; byte < element_bytes(e); ++byte) EXPECT_EQ(p->bytes[(16 + c) * element_bytes(e) + byte], 0);
  }
}

TEST(OperandPack, StoresTheCodecsBits) {
  // bfloat16 is float32's upper half; e4m3's 448 is 0x7E, e5m2's -0.375 is 0xB6.
  auto bf = pack_rows(std::vector<double>{1.0}, 1, 1, 1, Element::BF16);
  ASSERT_TRUE(bf.ok());
  EXPECT_EQ(bf->bytes[0] | bf->bytes[1] << 8, 0x3F80);
  auto e4 = pack_rows(std::vector<double>{448.0}, 1, 1, 1, Element::E4M3);
  ASSERT_TRUE(e4.ok());
  EXPECT_EQ(e4->bytes[0], 0x7E);
  auto e5 = pack_rows(std::vector<double>{-0.375}, 1, 1, 1, Element::E5M2);
  ASSERT_TRUE(e5.ok());
  EXPECT_EQ(e5->bytes[0], 0xB6);
  auto i8 = pack_rows(std::vector<double>{-128.0, 127.0}, 1, 2, 2, Element::I8);
  ASSERT_TRUE(i8.ok());
  EXPECT_EQ(i8->bytes[0], 0x80);
  EXPECT_EQ(i8->bytes[1], 0x7F);
}

TEST(OperandPack, AValueTheTypeCannotHoldIsAnErrorNotARounding) {
  // 1 + 2^-9 is no bfloat16; 500 is past e4m3's 448; 1.5 and 128 are no int8; 0.1 no float32.
  struct Case {
    double v;
    Element e;
  };
  for (Case c : {Case{1.0 + std::ldexp(1.0, -9), Element::BF16}, Case{500.0, Element::E4M3}, Case{1.5, Element::I8},
                 Case{128.0, Element::I8}, Case{0.1, Element::F32}}) {
    auto p = pack_rows(std::vector<double>{0.0, c.v}, 1, 2, 2, c.e);
    ASSERT_FALSE(p.ok()) << element_name(c.e) << " " << c.v;
    EXPECT_NE(p.error().find("element 1"), std::string::npos) << p.error();
    EXPECT_NE(p.error().find(std::string("not a ") + element_name(c.e)), std::string::npos) << p.error();
  }
  EXPECT_FALSE(pack_rows(std::vector<double>{1.0}, 2, 2, 2, Element::F32).ok());  // sizes
}

// float16, bfloat16 and the float8 formats are packed from their float32 bits, not through the
// codec: every one of their codes must come out as the codec stores it (NaNs: some NaN), and
// values between two neighbours -- the float32 midpoint, one bit more than the format holds,
// and the next double -- must still be refused.
TEST(OperandPack, HalfAndByteCodesAreTheCodecsForEveryPatternAndNeighboursAreRefused) {
  for (Element e : {Element::F16, Element::BF16, Element::E4M3, Element::E5M2}) {
    const DType t = e == Element::F16    ? DType::float16
                    : e == Element::BF16 ? DType::bfloat16
                    : e == Element::E4M3 ? DType::float8_e4m3fn
                                         : DType::float8_e5m2;
    const FloatFormat& f = info(t).format;
    const uint32_t codes = 1u << (8 * element_bytes(e)), top = codes / 2 - 1;
    std::vector<double> values, between;
    for (uint32_t code = 0; code < codes; ++code) {
      const double v = decode(f, code);
      values.push_back(v);
      const double next = decode(f, code + 1);  // the neighbour away from zero (same sign)
      if (std::isfinite(v) && std::isfinite(next) && (code & top) != top) {
        between.push_back((v + next) / 2);
        between.push_back(std::nextafter(v, next));
      }
    }
    const size_t rows = codes / 256;
    auto p = pack_rows(values, rows, 256, 256, e);
    ASSERT_TRUE(p.ok()) << element_name(e) << ": " << p.error();
    for (uint32_t code = 0; code < codes; ++code) {
      const uint16_t got =
          codes == 256 ? p->bytes[code] : static_cast<uint16_t>(p->bytes[2 * code] | p->bytes[2 * code + 1] << 8);
      if (std::isnan(values[code])) EXPECT_TRUE(std::isnan(decode(f, got))) << element_name(e) << " " << code;
      else ASSERT_EQ(got, encode(f, values[code], CastOptions{}).code) << element_name(e) << " " << values[code];
    }
    EXPECT_EQ(unpack_rows(p->bytes.data(), rows, 256, 256, e).size(), values.size());
    size_t refused = 0;
    for (double v : between) refused += !pack_rows(std::vector<double>{v}, 1, 1, 1, e).ok();
    EXPECT_EQ(refused, between.size()) << element_name(e);
  }
}

TEST(OperandPack, ALargeResultUnpacksOnEveryThreadInOrder) {
  std::vector<double> v(300 * 200);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) - 7000.5;
  auto p = pack_rows(v, 300, 200, 208, Element::F64);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(unpack_rows(p->bytes.data(), 300, 200, 208, Element::F64), v);
}

ProductSpec spec(DType a, DType b, AccumKind kind, DType format, bool fast = false) {
  ProductSpec s{{64, 64, 64}, a, b, {kind, format}, fast};
  if (kind == AccumKind::Int32) s.accumulate.format = DType::int32;
  return s;
}

TEST(LtPlan, SameDtypePairsRunTheTensorCorePathUsersGet) {
  struct Case {
    DType t;
    AccumKind kind;
    DType acc;
    const char* label;
    size_t align;
    int cc;
  };
  for (Case c :
       {Case{DType::float32, AccumKind::Blas, DType::float32, "f32 x f32 -> f32, CUBLAS_COMPUTE_32F_PEDANTIC", 1, 0},
        Case{DType::tf32, AccumKind::Blas, DType::float32, "f32 x f32 -> f32, CUBLAS_COMPUTE_32F_FAST_TF32", 1, 0},
        Case{DType::float16, AccumKind::Blas, DType::float32, "f16 x f16 -> f32, CUBLAS_COMPUTE_32F", 1, 0},
        Case{DType::float16, AccumKind::Blas, DType::float16, "f16 x f16 -> f16, CUBLAS_COMPUTE_16F", 1, 0},
        Case{DType::bfloat16, AccumKind::Blas, DType::float32, "bf16 x bf16 -> f32, CUBLAS_COMPUTE_32F", 1, 0},
        Case{DType::float8_e4m3fn, AccumKind::Blas, DType::float32, "e4m3 x e4m3 -> f32, CUBLAS_COMPUTE_32F", 16, 89},
        Case{DType::int8, AccumKind::Int32, DType::int32, "i8 x i8 -> i32, CUBLAS_COMPUTE_32I", 16, 0},
        Case{DType::float64, AccumKind::Blas, DType::float64, "f64 x f64 -> f64, CUBLAS_COMPUTE_64F", 1, 0}}) {
    auto p = plan_library_product(spec(c.t, c.t, c.kind, c.acc));
    ASSERT_TRUE(p.ok()) << name(c.t) << ": " << p.error();
    EXPECT_EQ(p->label, c.label);
    EXPECT_EQ(p->align, c.align) << c.label;
    EXPECT_EQ(p->min_compute_capability, c.cc) << c.label;
  }
}

TEST(LtPlan, Float8PairsAndFastAccumulation) {
  auto mixed =
      plan_library_product(spec(DType::float8_e5m2, DType::float8_e4m3fn, AccumKind::Blas, DType::float32, true));
  ASSERT_TRUE(mixed.ok()) << mixed.error();
  EXPECT_EQ(mixed->input, Element::E5M2);
  EXPECT_EQ(mixed->weight, Element::E4M3);
  EXPECT_TRUE(mixed->fast_accumulation);
  EXPECT_NE(mixed->label.find("fast accumulation"), std::string::npos);
  auto e5e5 = plan_library_product(spec(DType::float8_e5m2, DType::float8_e5m2, AccumKind::Blas, DType::float32));
  ASSERT_FALSE(e5e5.ok());
  EXPECT_NE(e5e5.error().find("one operand must be e4m3"), std::string::npos);
}

TEST(LtPlan, OtherPairsRunAsFloat32OrAreRefusedWithTheReason) {
  auto mixed = plan_library_product(spec(DType::bfloat16, DType::float16, AccumKind::Blas, DType::float32));
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(mixed->compute, LtCompute::F32Pedantic);
  EXPECT_NE(mixed->label.find("bfloat16 x float16 values as float32"), std::string::npos) << mixed->label;
  EXPECT_FALSE(plan_library_product(spec(DType::bfloat16, DType::bfloat16, AccumKind::Blas, DType::float16)).ok());
  auto u8 = plan_library_product(spec(DType::uint8, DType::uint8, AccumKind::Int32, DType::int32));
  ASSERT_FALSE(u8.ok());
  EXPECT_NE(u8.error().find("signed int8"), std::string::npos);
  EXPECT_FALSE(
      plan_library_product(spec(DType::bfloat16, DType::bfloat16, AccumKind::Sequential, DType::float32)).ok());
}

TEST(EmulatedPlan, TakesSequentialAndChunkedSumsOfExactProducts) {
  auto f32 = plan_emulated_product(spec(DType::bfloat16, DType::bfloat16, AccumKind::Sequential, DType::float32));
  ASSERT_TRUE(f32.ok()) << f32.error();
  EXPECT_TRUE(f32->inner.hardware_f32);
  EXPECT_FALSE(f32->chunked);
  auto s = spec(DType::float8_e4m3fn, DType::float8_e4m3fn, AccumKind::Chunked, DType::float16);
  s.accumulate.chunk = 32;
  auto chunked = plan_emulated_product(s);
  ASSERT_TRUE(chunked.ok()) << chunked.error();
  EXPECT_TRUE(chunked->chunked);
  EXPECT_EQ(chunked->chunk, 32u);
  EXPECT_FALSE(chunked->inner.hardware_f32);
  EXPECT_EQ(chunked->inner.largest, 65504.0f);  // float16's largest finite value
  EXPECT_TRUE(chunked->outer.hardware_f32);
}

// int4 and uint4 values are integers of 8 bits or fewer, as int8's: their products with bfloat16
// are exact float32 numbers (they were counted as 64 bits, and refused). A group's integers come
// as float32 (matmul.h's product_dtype): against bfloat16 their products are not.
TEST(EmulatedPlan, FourBitIntegersAreNarrowAndGroupValuesAreFloat32) {
  for (DType t : {DType::int8, DType::int4, DType::uint4}) {
    auto p = plan_emulated_product(spec(DType::bfloat16, t, AccumKind::Sequential, DType::float32));
    EXPECT_TRUE(p.ok()) << name(t) << ": " << p.error();
  }
  auto group = plan_emulated_product(spec(DType::bfloat16, DType::float32, AccumKind::Sequential, DType::float32));
  ASSERT_FALSE(group.ok());
  EXPECT_NE(group.error().find("not exact float32"), std::string::npos) << group.error();
}

TEST(EmulatedPlan, TakesPairwiseAndKahanSums) {
  auto pw = spec(DType::float16, DType::float16, AccumKind::Pairwise, DType::float16);
  pw.accumulate.block = 8;
  auto p = plan_emulated_product(pw);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->kind, EmulatedKind::Pairwise);
  EXPECT_EQ(p->block, 8u);
  EXPECT_FALSE(p->inner.hardware_f32);
  auto k = plan_emulated_product(spec(DType::bfloat16, DType::bfloat16, AccumKind::Kahan, DType::float32));
  ASSERT_TRUE(k.ok()) << k.error();
  EXPECT_EQ(k->kind, EmulatedKind::Kahan);
  EXPECT_TRUE(k->inner.hardware_f32);
}

TEST(EmulatedPlan, TakesMultitermSumsThroughTheExactRoute) {
  auto mt = spec(DType::bfloat16, DType::bfloat16, AccumKind::Multiterm, DType::float32);
  mt.accumulate.block = 16, mt.accumulate.extra_bits = 2, mt.accumulate.rounding = Rounding::TowardZero;
  auto p = plan_emulated_product(mt);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->kind, EmulatedKind::Multiterm);
  EXPECT_EQ(p->block, 16u);
  EXPECT_EQ(p->extra_bits, 2);
  EXPECT_TRUE(p->inner.exact_path);  // one rounding of an exact float64 value per block
  mt.accumulate.extra_bits = 40;     // more than float64 can add exactly
  auto refused = plan_emulated_product(mt);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("extra bits"), std::string::npos) << refused.error();
}

// Every launch's grid fits CUDA's y limit, slabs are whole tiles, and they cover m in about
// sixteen steps. (Found by review, unrun on a GPU: 2^24 rows -- the largest dimension an
// experiment accepts -- made slabs of 65536 tiles, and the launch failed.)
TEST(EmulatedPlan, SlabsFitTheGridAndCoverEveryRow) {
  for (size_t m : {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{1000}, size_t{4096}, size_t{1} << 20,
                   (size_t{1} << 24) - 1, size_t{1} << 24}) {
    const size_t slab = emulated_slab_rows(m);
    EXPECT_EQ(slab % kEmulatedTile, 0u) << m;
    EXPECT_LE(slab / kEmulatedTile, kMaxGridY) << m;
    EXPECT_GE(slab, kEmulatedTile) << m;
    const size_t slabs = (m + slab - 1) / slab;
    EXPECT_LE(slabs, 17u) << m;  // progress in steps of about a sixteenth
    if (m >= 16 * kEmulatedTile) {
      EXPECT_GE(slabs, 15u) << m;
    }
  }
  EXPECT_EQ(emulated_slab_rows(size_t{1} << 24), kMaxGridY * kEmulatedTile);
}

// Every model the GPU parity suite runs is one the GPU plans: a case it refuses would fail only
// on a machine with a GPU (e8m12:fn's did).
TEST(EmulatedPlan, PlansEveryModelTheGpuParitySuiteRuns) {
  for (const parity_cases::EmulatedCase& c : parity_cases::emulated_cases()) {
    if (c.acc.kind == AccumKind::Float64) continue;  // the device's float64 products, no plan
    auto p = plan_emulated_product({{37, 45, 300}, c.input, c.input, c.acc});
    EXPECT_TRUE(p.ok()) << name(c.input) << ", " << describe(c.acc) << ": " << p.error();
  }
}

TEST(EmulatedPlan, RefusesWhatItCannotDoExactly) {
  struct Case {
    ProductSpec s;
    const char* why;
  };
  for (const Case& c :
       {Case{spec(DType::bfloat16, DType::bfloat16, AccumKind::Blas, DType::float32), "blas"},
        Case{spec(DType::bfloat16, DType::bfloat16, AccumKind::Int32, DType::int32), "int32"},
        Case{spec(DType::float32, DType::float32, AccumKind::Sequential, DType::float32), "not exact float32"},
        Case{spec(DType::float16, DType::float16, AccumKind::Sequential, DType::float8_e8m0fnu),
             "runs on the CPU only"},
        // fn's top binade is finite: e8m12:fn's largest lies past float32's
        Case{spec(DType::float16, DType::float16, AccumKind::Kahan, *parse_dtype("e8m12:fn")), "within float32"}}) {
    auto p = plan_emulated_product(c.s);
    ASSERT_FALSE(p.ok()) << c.why;
    EXPECT_NE(p.error().find(c.why), std::string::npos) << p.error();
  }
}

TEST(CublasLtApi, LoadsTheMajorVersionTheHeadersDeclare) {
  auto api = cublaslt_api();
  if (!api) GTEST_SKIP() << api.error();  // a machine without the CUDA libraries
  EXPECT_EQ((*api)->version() / 10000, size_t{CUBLAS_VER_MAJOR});
  cublasLtHandle_t h = nullptr;  // a handle needs no GPU
  if ((*api)->create(&h) == CUBLAS_STATUS_SUCCESS) (*api)->destroy(h);
}

// The GPU's element sums (emulated_sum.h, the very functions the kernels run) computed on the
// host, flagged elements recomputed as the backend does, against the CPU's GEMM: bit for bit,
// for every model the GPU takes, with overflow, inexact products and NaN planted in the data.
struct SumCase {
  DType input;
  experiment::Accumulation acc;
};

void PrintTo(const SumCase& c, std::ostream* os) { *os << name(c.input) << ", " << describe(c.acc); }

class EmulatedSumMatchesCpu : public ::testing::TestWithParam<SumCase> {};

TEST_P(EmulatedSumMatchesCpu, BitForBit) {
  const SumCase c = GetParam();
  const experiment::GemmShape shape{9, 11, 203};
  const ProductSpec spec{shape, c.input, c.input, c.acc};
  auto model = plan_emulated_product(spec);
  ASSERT_TRUE(model.ok()) << model.error();
  const FloatFormat& f = info(c.input).format;
  std::mt19937 rng(11);
  std::normal_distribution<double> dist(0.0, 3.0);
  auto draw = [&](size_t count) {
    std::vector<double> v(count);
    for (double& x : v) x = round_to(f, dist(rng), {});
    return v;
  };
  auto a = draw(shape.m * shape.k), b = draw(shape.n * shape.k);
  const double big = decode(f, f.max_finite_code());
  a[0] = big, a[1] = big, a[2] = -big;  // overflow in narrow accumulators
  a[shape.k] = std::ldexp(1.0, -60);    // inexact (underflowing) products
  b[shape.k + 1] = std::ldexp(1.0, -70);
  a[2 * shape.k + 5] = NAN;  // NaN
  auto cpu = experiment::gemm(shape, a, b, c.acc);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  const std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
  size_t flagged = 0;
  for (size_t i = 0; i < shape.m; ++i)
    for (size_t j = 0; j < shape.n; ++j) {
      bool bad = false;
      double v = element_sum(af.data() + i * shape.k, bf.data() + j * shape.k, shape.k, *model, bad,
                             stream_offset(i, j, shape.n));
      if (bad) {
        ++flagged;
        v = experiment::dot(std::span(a).subspan(i * shape.k, shape.k), std::span(b).subspan(j * shape.k, shape.k),
                            c.acc, experiment::gemm_stream_offset(i, j, shape.n));
      }
      const double want = (*cpu)[i * shape.n + j];
      ASSERT_EQ(std::memcmp(&v, &want, sizeof v), 0) << describe(c.acc) << " element (" << i << ", " << j
                                                     << "): gpu sum " << std::hexfloat << v << ", cpu " << want;
    }
  EXPECT_GT(flagged, 0u);  // the planted specials were handed back
}

// The GPU's first stochastic draw of an element is the CPU's.
TEST(EmulatedSum, StreamOffsetsAreTheCpus) {
  for (size_t i : {0, 1, 7, 4095})
    for (size_t j : {0, 3, 1000}) EXPECT_EQ(stream_offset(i, j, 1024), experiment::gemm_stream_offset(i, j, 1024));
}

// A product's stream offset (the dot sweep's trial t at t << 32) reaches the model, and the
// element sum the kernels compute from it draws what the CPU's dot product draws there.
TEST(EmulatedSum, AProductsStreamOffsetIsAddedAsOnTheCpu) {
  const size_t k = 300;
  ProductSpec s{{1, 1, k}, DType::bfloat16, DType::bfloat16, {AccumKind::Sequential, DType::bfloat16}};
  s.accumulate.rounding = Rounding::Stochastic;
  s.stream_offset = uint64_t{5} << 32;
  auto model = plan_emulated_product(s);
  ASSERT_TRUE(model.ok()) << model.error();
  EXPECT_EQ(model->stream_base, s.stream_offset);
  std::mt19937_64 rng(11);
  std::normal_distribution<double> d;
  std::vector<double> a(k), b(k);
  for (size_t i = 0; i < k; ++i)
    a[i] = static_cast<float>(round_to(info(DType::bfloat16).format, d(rng), {})),
    b[i] = static_cast<float>(round_to(info(DType::bfloat16).format, d(rng), {}));
  const std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
  bool bad = false;
  const double gpu = element_sum(af.data(), bf.data(), k, *model, bad, model->stream_base + stream_offset(0, 0, 1));
  ASSERT_FALSE(bad);
  const double trial5 = experiment::dot(a, b, s.accumulate, s.stream_offset);
  EXPECT_EQ(gpu, trial5);
  auto cpu = experiment::gemm(s.shape, a, b, s.accumulate, {}, nullptr, s.stream_offset);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  EXPECT_EQ((*cpu)[0], trial5);
  EXPECT_NE(trial5, experiment::dot(a, b, s.accumulate, 0));  // another stream, other draws
}

// An exact zero sum is -0 when rounding toward -Inf (IEEE 754 6.3), as the CPU's models have it.
TEST(EmulatedSum, AnExactZeroSumRoundingDownIsNegativeZero) {
  experiment::Accumulation down{AccumKind::Sequential, DType::float16};
  down.rounding = Rounding::Down;
  auto model = plan_emulated_product({{1, 1, 2}, DType::float16, DType::float16, down});
  ASSERT_TRUE(model.ok()) << model.error();
  const float a[2] = {1.5f, -1.5f}, b[2] = {1.0f, 1.0f};
  bool bad = false;
  const float v = element_sum(a, b, 2, *model, bad, 0);
  EXPECT_FALSE(bad);
  EXPECT_EQ(v, 0.0f);
  EXPECT_TRUE(std::signbit(v));
  const double cpu = experiment::dot(std::vector<double>{1.5, -1.5}, std::vector<double>{1.0, 1.0}, down);
  EXPECT_TRUE(std::signbit(cpu));
}

experiment::Accumulation acc(AccumKind kind, DType format, int size = 32, DType outer = DType::float32,
                             Rounding rounding = Rounding::NearestEven) {
  experiment::Accumulation a{kind, format};
  a.block = a.chunk = size;
  a.outer = outer;
  a.rounding = rounding;
  return a;
}

experiment::Accumulation multiterm(int block, int extra_bits, DType format, Rounding rounding) {
  experiment::Accumulation a{AccumKind::Multiterm, format, rounding, block};
  a.extra_bits = extra_bits;
  return a;
}

INSTANTIATE_TEST_SUITE_P(
    Models, EmulatedSumMatchesCpu,
    ::testing::Values(
        SumCase{DType::bfloat16, acc(AccumKind::Sequential, DType::float32)},
        SumCase{DType::bfloat16, acc(AccumKind::Sequential, DType::bfloat16)},
        SumCase{DType::float16, acc(AccumKind::Sequential, DType::float16)},
        SumCase{DType::float8_e4m3fn, acc(AccumKind::Sequential, DType::float8_e5m2)},
        SumCase{DType::float8_e5m2, acc(AccumKind::Chunked, DType::float16, 32)},
        SumCase{DType::float8_e4m3fn, acc(AccumKind::Chunked, DType::tf32, 64)},
        SumCase{DType::float4_e2m1fn, acc(AccumKind::Chunked, DType::bfloat16, 16, DType::float16)},
        SumCase{DType::bfloat16, acc(AccumKind::Pairwise, DType::float32, 32)},
        SumCase{DType::float16, acc(AccumKind::Pairwise, DType::float16, 8)},
        SumCase{DType::float6_e3m2fn, acc(AccumKind::Pairwise, DType::bfloat16, 1)},
        SumCase{DType::bfloat16, acc(AccumKind::Kahan, DType::float32)},
        SumCase{DType::float16, acc(AccumKind::Kahan, DType::float16)},
        SumCase{DType::float8_e4m3fn, acc(AccumKind::Kahan, DType::bfloat16)},
        // the deterministic modes besides nearest-even, narrow accumulators only
        SumCase{DType::bfloat16, acc(AccumKind::Sequential, DType::bfloat16, 32, DType::float32, Rounding::TowardZero)},
        SumCase{DType::float16, acc(AccumKind::Sequential, DType::float16, 32, DType::float32, Rounding::Up)},
        SumCase{DType::float16, acc(AccumKind::Sequential, DType::float16, 32, DType::float32, Rounding::Down)},
        SumCase{DType::float8_e4m3fn,
                acc(AccumKind::Sequential, DType::float8_e5m2, 32, DType::float32, Rounding::NearestAway)},
        SumCase{DType::float8_e5m2, acc(AccumKind::Chunked, DType::float16, 32, DType::bfloat16, Rounding::Down)},
        SumCase{DType::float16, acc(AccumKind::Pairwise, DType::float16, 8, DType::float32, Rounding::TowardZero)},
        SumCase{DType::float8_e4m3fn, acc(AccumKind::Kahan, DType::bfloat16, 32, DType::float32, Rounding::Up)},
        // stochastic rounding (float64 route, the CPU's draws), and float32 accumulators
        // in directed modes
        SumCase{DType::bfloat16, acc(AccumKind::Sequential, DType::bfloat16, 32, DType::float32, Rounding::Stochastic)},
        SumCase{DType::float16, acc(AccumKind::Sequential, DType::float16, 32, DType::float32, Rounding::Stochastic)},
        SumCase{DType::float8_e5m2, acc(AccumKind::Chunked, DType::float16, 32, DType::bfloat16, Rounding::Stochastic)},
        SumCase{DType::float16, acc(AccumKind::Pairwise, DType::bfloat16, 8, DType::float32, Rounding::Stochastic)},
        SumCase{DType::float8_e4m3fn, acc(AccumKind::Kahan, DType::float16, 32, DType::float32, Rounding::Stochastic)},
        SumCase{DType::bfloat16, acc(AccumKind::Sequential, DType::float32, 32, DType::float32, Rounding::Stochastic)},
        SumCase{DType::bfloat16, acc(AccumKind::Sequential, DType::float32, 32, DType::float32, Rounding::TowardZero)},
        SumCase{DType::float16, acc(AccumKind::Pairwise, DType::float32, 8, DType::float32, Rounding::Down)},
        SumCase{DType::bfloat16, acc(AccumKind::Kahan, DType::float32, 32, DType::float32, Rounding::Up)},
        // the multi-term adder: a tensor core's (float32, truncating), other blocks,
        // extra bits, formats and modes, stochastic included
        SumCase{DType::bfloat16, multiterm(16, 2, DType::float32, Rounding::TowardZero)},
        SumCase{DType::float16, multiterm(8, 0, DType::float32, Rounding::TowardZero)},
        SumCase{DType::float16, multiterm(4, 3, DType::float32, Rounding::NearestEven)},
        SumCase{DType::float8_e4m3fn, multiterm(32, 1, DType::bfloat16, Rounding::Down)},
        SumCase{DType::float8_e5m2, multiterm(1, 0, DType::float16, Rounding::Up)},
        SumCase{DType::bfloat16, multiterm(16, 2, DType::float32, Rounding::Stochastic)},
        SumCase{DType::float4_e2m1fn, multiterm(64, 5, DType::tf32, Rounding::NearestAway)},
        // custom formats, as the GPU parity suite runs them
        SumCase{*parse_dtype("e5m7"), acc(AccumKind::Sequential, *parse_dtype("e6m9"))},
        SumCase{*parse_dtype("e4m4b5:fnuz"),
                acc(AccumKind::Kahan, *parse_dtype("e7m12:fn"), 32, DType::float32, Rounding::Stochastic)}),
    [](const auto& info) { return std::to_string(info.index); });

}  // namespace
}  // namespace pl::cuda
