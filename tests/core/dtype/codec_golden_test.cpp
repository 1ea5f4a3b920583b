// The codec against independent references: ml_dtypes 0.6.0 and NumPy 2.4 (round to nearest
// even) and the exact Fraction oracle of tests/data/gen_golden.py (every other mode and policy).
#include <cmath>
#include <cstring>

#include "core/dtype/codec.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

constexpr Rounding kModes[] = {Rounding::NearestEven, Rounding::NearestAway, Rounding::TowardZero, Rounding::Up,
                               Rounding::Down};
constexpr Overflow kPolicies[] = {Overflow::FormatDefault, Overflow::Saturate, Overflow::NonSaturating};

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

class Golden : public ::testing::TestWithParam<DType> {};

TEST_P(Golden, DecodeMatchesMlDtypesForEveryCode) {
  const auto& row = info(GetParam());
  auto bytes = test::read_golden(std::string(row.name) + ".decode.f64");
  for (uint64_t c = 0; c * 8 < bytes.size(); ++c) {
    double want = load<double>(&bytes[c * 8]);
    double got = decode(row.format, c);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << row.name << " code " << c;
    } else {
      EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want)) << row.name << " " << c;
    }
  }
}

TEST_P(Golden, EncodeFloat32MatchesOracleInEveryModeAndPolicy) {
  const auto& row = info(GetParam());
  auto bytes = test::read_golden(std::string(row.name) + ".encode.bin");
  constexpr size_t kRecord = 4 + 18 * 2;
  ASSERT_GT(bytes.size(), 0u);
  ASSERT_EQ(bytes.size() % kRecord, 0u);
  size_t failures = 0;
  for (size_t off = 0; off < bytes.size(); off += kRecord) {
    float x = std::bit_cast<float>(load<uint32_t>(&bytes[off]));
    for (int m = 0; m < 5; ++m)
      for (int p = 0; p < 3; ++p) {
        CastOptions o;
        o.rounding = kModes[m];
        o.overflow = kPolicies[p];
        uint16_t want = load<uint16_t>(&bytes[off + 4 + 2 * (m * 3 + p)]);
        uint64_t got = encode_f32(row.format, x, o).code;
        if (got != want && ++failures < 10)
          ADD_FAILURE() << row.name << " x=" << x << " (" << std::hexfloat << x << std::defaultfloat << ") "
                        << rounding_name(o.rounding) << "/" << overflow_name(o.overflow) << ": got 0x" << std::hex
                        << got << " want 0x" << want << std::dec;
      }
  }
  EXPECT_EQ(failures, 0u);
}

TEST_P(Golden, Float64DirectMatchesOracleAndViaFloat32MatchesMlDtypes) {
  const auto& row = info(GetParam());
  auto bytes = test::read_golden(std::string(row.name) + ".f64.bin");
  constexpr size_t kRecord = 8 + 2 + 2;
  ASSERT_GT(bytes.size(), 0u);
  CastOptions direct, via;
  via.path = CastPath::ViaFloat32;
  size_t differ = 0;
  for (size_t off = 0; off < bytes.size(); off += kRecord) {
    double x = load<double>(&bytes[off]);
    uint16_t oracle = load<uint16_t>(&bytes[off + 8]), lib = load<uint16_t>(&bytes[off + 10]);
    ASSERT_EQ(encode(row.format, x, direct).code, oracle) << row.name << " x=" << x;
    // NumPy's float16 cast from float64 rounds once; ml_dtypes' types go through float32.
    const CastOptions& lib_path = GetParam() == DType::float16 ? direct : via;
    ASSERT_EQ(encode(row.format, x, lib_path).code, lib) << row.name << " x=" << x;
    differ += oracle != lib;
  }
  if (GetParam() == DType::float16) EXPECT_EQ(differ, 0u);
  else EXPECT_GT(differ, 0u) << "expected double rounding to show up in " << row.name;
}

INSTANTIATE_TEST_SUITE_P(Small, Golden, ::testing::ValuesIn(test::small_float_dtypes()),
                         [](const auto& p) { return test::param_name(p.param); });

TEST(GoldenFloat32, Float64InputsMatchNumpyAndOracle) {
  auto bytes = test::read_golden("float32.f64.bin");
  constexpr size_t kRecord = 8 + 5 * 4;
  ASSERT_GT(bytes.size(), 0u);
  const FloatFormat f = info(DType::float32).format;
  for (size_t off = 0; off < bytes.size(); off += kRecord) {
    double x = load<double>(&bytes[off]);
    for (int m = 0; m < 5; ++m) {
      CastOptions o;
      o.rounding = kModes[m];
      uint32_t want = load<uint32_t>(&bytes[off + 8 + 4 * m]);
      ASSERT_EQ(encode(f, x, o).code, want) << x << " " << rounding_name(o.rounding);
    }
    // The hardware conversion is the same correctly rounded operation.
    ASSERT_EQ(encode(f, x, CastOptions{}).code, std::bit_cast<uint32_t>(static_cast<float>(x)));
  }
}

}  // namespace
}  // namespace pl
