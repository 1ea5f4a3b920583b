#include <cstring>
#include <vector>

#include "core/backend/backend.h"
#include "core/dtype/bulk_convert.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

TEST(Backend, CpuIsAlwaysRegistered) {
  auto b = open_backend("cpu");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->name(), "cpu");
  const DeviceInfo d = (*b)->device_info();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.cores, 0);
  // The machine's memory (it read 0 before: `devices` listed the CPU with 0 GiB).
  EXPECT_GT(d.memory_gib, 0.1);
  EXPECT_EQ(d.sm_clock_mhz, 0);  // a GPU's figure
}

TEST(Backend, UnknownNameIsAClearError) {
  auto b = open_backend("tpu");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("unknown backend 'tpu'"), std::string::npos);
}

TEST(Backend, CpuRoundtripIsTheBulkReference) {
  auto b = open_backend("cpu");
  const FloatFormat& f = info(DType::float8_e4m3fn).format;
  std::vector<float> in{0.1f, 500.0f, -3.3f}, out(3), ref(3);
  ASSERT_TRUE((*b)->roundtrip_f32(f, {}, in.data(), out.data(), 3).ok());
  roundtrip_f32_array(f, {}, in.data(), ref.data(), 3);
  EXPECT_EQ(std::memcmp(out.data(), ref.data(), sizeof(float) * 3), 0);
}

TEST(Backend, TimingReportsBothRates) {
  auto b = open_backend("cpu");
  auto t = (*b)->time_roundtrip_f32(info(DType::bfloat16).format, {}, 1 << 16, 3);
  ASSERT_TRUE(t.ok());
  EXPECT_GT(t->convert_gbps, 0);
  EXPECT_GT(t->copy_gbps, 0);
  EXPECT_FALSE(t->method.empty());
}

}  // namespace
}  // namespace pl
