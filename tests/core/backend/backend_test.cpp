#include <cstring>
#include <vector>

#include "core/backend/backend.h"
#include "core/dtype/bulk_convert.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

TEST(Backend, CpuIsAlwaysRegistered) {
  auto b = open_backend(BackendChoice::Cpu);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->backend->name(), "cpu");
  const DeviceInfo d = b->backend->device_info();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.cores, 0);
  // The machine's memory (it read 0 before: `devices` listed the CPU with 0 GiB).
  EXPECT_GT(d.memory_gib, 0.1);
  EXPECT_EQ(d.sm_clock_mhz, 0);  // a GPU's figure
}

// One table of spellings: the parser takes exactly its names, and a name reads back.
TEST(Backend, ChoicesAreReadFromOneTable) {
  for (BackendChoice c : {BackendChoice::Cpu, BackendChoice::Cuda, BackendChoice::Auto})
    EXPECT_EQ(parse_backend_choice(backend_choice_name(c)), c);
  for (const char* bad : {"tpu", "gpu", "CPU", "", "cpu "}) EXPECT_FALSE(parse_backend_choice(bad)) << bad;
  EXPECT_EQ(backend_choice_names(), "cpu, cuda or auto");
}

TEST(Backend, ADeviceThisBuildLacksIsAClearError) {
  unregister_backend(BackendChoice::Cuda);  // (core's tests register none; a stand-in may have)
  auto b = open_backend(BackendChoice::Cuda);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), "this build has no cuda backend");
  auto chosen = open_backend(BackendChoice::Auto);  // falls back, and says so
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->backend->name(), "cpu");
  EXPECT_NE(chosen->note.find("no CUDA backend"), std::string::npos);
}

TEST(Backend, CpuRoundtripIsTheBulkReference) {
  auto b = open_backend(BackendChoice::Cpu);
  const FloatFormat& f = info(DType::float8_e4m3fn).format;
  std::vector<float> in{0.1f, 500.0f, -3.3f}, out(3), ref(3);
  ASSERT_TRUE(b->backend->roundtrip_f32(f, {}, in.data(), out.data(), 3).ok());
  roundtrip_f32_array(f, {}, in.data(), ref.data(), 3);
  EXPECT_EQ(std::memcmp(out.data(), ref.data(), sizeof(float) * 3), 0);
}

TEST(Backend, TimingReportsBothRates) {
  auto b = open_backend(BackendChoice::Cpu);
  auto t = b->backend->time_roundtrip_f32(info(DType::bfloat16).format, {}, 1 << 16, 3);
  ASSERT_TRUE(t.ok());
  EXPECT_GT(t->convert_gbps, 0);
  EXPECT_GT(t->copy_gbps, 0);
  EXPECT_FALSE(t->method.empty());
}

}  // namespace
}  // namespace pl
