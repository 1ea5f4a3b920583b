#include "core/backend/peak_rates.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pl::peak {
namespace {

// Each published number is the product it claims to be: SMs x ops per clock x clock agrees
// with the printed figure to within one unit of its last printed digit (the sources round).
// A misprint in the table, or a wrong clock or per-SM rate, fails here.
TEST(PeakRates, PublishedFiguresAreTheirDerivation) {
  for (const Part& p : parts()) {
    ASSERT_FALSE(p.rates.empty()) << p.name;
    ASSERT_FALSE(p.source.empty()) << p.name;
    for (const Rate& r : p.rates) {
      const double derived = derived_tflops(p, r), printed = published_value(r);
      EXPECT_GT(printed, 0) << p.name << " " << name(r.dtype);
      EXPECT_LT(std::abs(derived - printed), published_last_digit(r))
          << p.name << " " << name(r.dtype) << " on " << unit_name(r.unit) << ": derived " << derived << ", printed "
          << r.published;
    }
  }
}

TEST(PeakRates, HopperHandDerivation) {
  const Part* h100 = find_part("h100 sxm5");
  ASSERT_NE(h100, nullptr);
  // 132 SMs x 4 tensor cores x 1024 dense FP16 FLOP per clock x 1.83 GHz = 989.43 TFLOP/s.
  const auto bf16 = fastest_rate(*h100, DType::bfloat16);
  ASSERT_TRUE(bf16);
  EXPECT_NEAR(derived_tflops(*h100, *bf16), 132 * 4 * 1024 * 1.83e9 / 1e12, 1e-9);
  EXPECT_EQ(bf16->published, "989.4");
  EXPECT_EQ(bf16->unit, Unit::TensorCores);
  // 132 SMs x 128 FP32 lanes x 2 x 1.98 GHz = 66.9.
  EXPECT_EQ(fastest_rate(*h100, DType::float32)->unit, Unit::CudaCores);
  EXPECT_NEAR(derived_tflops(*h100, *fastest_rate(*h100, DType::float32)), 66.9, 0.05);
  // float64's fastest path is the tensor cores (66.9), not the CUDA cores (33.5).
  EXPECT_EQ(fastest_rate(*h100, DType::float64)->unit, Unit::TensorCores);
  // Both float8 formats read one row.
  EXPECT_EQ(fastest_rate(*h100, DType::float8_e5m2)->published, "1978.9");
  EXPECT_FALSE(fastest_rate(*h100, DType::float6_e3m2fn));
}

TEST(PeakRates, SpeedupsAgainstRulesOfThumb) {
  const Part& h100 = *find_part("H100 SXM5");
  EXPECT_EQ(*speedup(h100, DType::bfloat16, DType::tf32), 2);
  EXPECT_EQ(*speedup(h100, DType::float8_e4m3fn, DType::bfloat16), 2);
  EXPECT_EQ(*speedup(h100, DType::int8, DType::float16), 2);
  // 4096 x 1830 / (256 x 1980) = 14.79: against true float32 the "2x" rule is seven times off.
  EXPECT_EQ(*speedup(h100, DType::bfloat16, DType::float32), 14.8);
  EXPECT_EQ(*speedup(h100, DType::float8_e4m3fn, DType::float32), 29.6);
  const Part& a100 = *find_part("A100 SXM4");
  EXPECT_EQ(*speedup(a100, DType::bfloat16, DType::float32), 16);
  auto none = speedup(a100, DType::float8_e4m3fn, DType::bfloat16);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), "the A100 SXM4 has no float8_e4m3fn arithmetic");
}

TEST(PeakRates, DevicesByNameAndSmCount) {
  auto h = part_for_device("NVIDIA H100 80GB HBM3", 132);
  ASSERT_TRUE(h);
  EXPECT_EQ((*h)->name, "H100 SXM5");
  EXPECT_EQ((*part_for_device("NVIDIA H200", 132))->name, "H200 SXM");
  auto cut = part_for_device("NVIDIA H100 80GB HBM3", 114);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().find("reports 114 SMs"), std::string::npos) << cut.error();
  auto unknown = part_for_device("NVIDIA GeForce RTX 4090", 128);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error(), "no published peaks for 'NVIDIA GeForce RTX 4090' in Precision Lab's table");
  EXPECT_EQ(find_part("NVIDIA H200 NVL"), nullptr);  // a different part with lower clocks
}

TEST(PeakRates, ThreeDigits) {
  EXPECT_EQ(three_digits(14.7879), 14.8);
  EXPECT_EQ(three_digits(2.0001), 2);
  EXPECT_EQ(three_digits(0.012345), 0.0123);
  EXPECT_EQ(three_digits(1234.5), 1230);
  EXPECT_EQ(three_digits(0), 0);
}

}  // namespace
}  // namespace pl::peak
