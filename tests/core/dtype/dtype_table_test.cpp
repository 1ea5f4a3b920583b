#include <cmath>
#include <cstring>
#include <set>

#include "core/dtype/codec.h"
#include "core/dtype/format_lookup.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

TEST(DTypeTable, RowsAreInIdOrderAndNamesUnique) {
  std::set<std::string_view> names;
  for (int i = 0; i < kDTypeCount; ++i) {
    EXPECT_EQ(static_cast<int>(all_dtypes()[i].id), i);
    EXPECT_TRUE(names.insert(all_dtypes()[i].name).second) << all_dtypes()[i].name;
  }
}

TEST(DTypeTable, EveryAcceptedNameResolvesToItsRow) {
  for (const auto& row : all_dtypes())
    for (const auto& n : accepted_names(row.id)) {
      auto t = parse_dtype(n);
      ASSERT_TRUE(t.ok()) << n << ": " << t.error();
      EXPECT_EQ(*t, row.id) << n;
    }
}

TEST(DTypeTable, EpsilonIsTwiceTheUnitRoundoff) {
  for (const auto& row : all_dtypes()) {
    if (row.kind == DTypeKind::Float) {
      EXPECT_EQ(machine_epsilon(row.format), 2 * unit_roundoff(row.format)) << row.name;
    }
  }
}

// Limits derived from the table must match the extremes of ml_dtypes' own decoding of every code.
class LimitsFromGolden : public ::testing::TestWithParam<DType> {};
TEST_P(LimitsFromGolden, MatchLibraryDecoding) {
  const auto& row = info(GetParam());
  auto bytes = test::read_golden(std::string(row.name) + ".decode.f64");
  std::vector<double> v(bytes.size() / 8);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  ASSERT_EQ(v.size(), size_t{1} << row.format.total_bits());
  double max = 0, min_pos = INFINITY;
  for (double x : v)
    if (std::isfinite(x)) {
      max = std::max(max, x);
      if (x > 0) min_pos = std::min(min_pos, x);
    }
  EXPECT_EQ(max, max_finite(row.format));
  EXPECT_EQ(min_pos, min_subnormal(row.format));
}
INSTANTIATE_TEST_SUITE_P(Small, LimitsFromGolden, ::testing::ValuesIn(test::small_float_dtypes()),
                         [](const auto& p) { return test::param_name(p.param); });

TEST(DTypeTable, DocumentedLimits) {
  const auto& tf32 = info(DType::tf32).format;
  EXPECT_EQ(tf32.total_bits(), 19);
  EXPECT_EQ(info(DType::tf32).storage_bits, 32);
  EXPECT_EQ(machine_epsilon(tf32), std::ldexp(1.0, -10));
  EXPECT_EQ(min_normal(info(DType::float8_e4m3fn).format), std::ldexp(1.0, -6));
  EXPECT_EQ(min_subnormal(info(DType::float8_e4m3fn).format), std::ldexp(1.0, -9));
  EXPECT_EQ(min_normal(info(DType::float8_e5m2fnuz).format), std::ldexp(1.0, -15));
  EXPECT_EQ(max_finite(info(DType::float8_e8m0fnu).format), std::ldexp(1.0, 127));
  EXPECT_EQ(int_min(DType::int8), -128);
  EXPECT_EQ(int_max(DType::uint64), ~uint64_t{0});
  EXPECT_EQ(int_max(DType::int32), 2147483647u);
}

// int4 and uint4 are stored a byte a value (as ml_dtypes and PyTorch store them) and hold four bits.
TEST(DTypeTable, FourBitIntegersHoldFourBitsInAByte) {
  EXPECT_EQ(info(DType::int4).storage_bits, 8);
  EXPECT_EQ(value_bits(DType::int4), 4);
  EXPECT_EQ(int_min(DType::int4), -8);
  EXPECT_EQ(int_max(DType::int4), 7u);
  EXPECT_EQ(int_min(DType::uint4), 0);
  EXPECT_EQ(int_max(DType::uint4), 15u);
  EXPECT_EQ(value_bits(DType::float4_e2m1fn), 4);
  EXPECT_EQ(value_bits(DType::int8), 8);
  EXPECT_EQ(short_name(DType::int4), "i4");
  EXPECT_EQ(framework_names(DType::uint4).torch, "torch.uint4");
  EXPECT_EQ(framework_names(DType::int4).numpy, "ml_dtypes.int4");
}

}  // namespace
}  // namespace pl
