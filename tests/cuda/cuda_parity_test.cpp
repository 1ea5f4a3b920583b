// CUDA against the CPU reference, bit for bit (conversions are exact, so the tolerance is zero).
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/dtype/bulk_convert.h"
#include "core/dtype/codec.h"
#include "core/dtype/dtype.h"
#include "core/dtype/format_lookup.h"
#include "kernels/cuda_backend.h"
#include "kernels/staged_copy.h"

namespace pl {
namespace {

std::unique_ptr<Backend>& gpu() {
  static std::unique_ptr<Backend> b = [] {
    auto r = make_cuda_backend();
    return r ? std::move(r).value() : nullptr;
  }();
  return b;
}

TEST(CudaBackend, NoGpuIsAnErrorValueNotACrash) {
  auto r = make_cuda_backend();
  if (r) GTEST_SKIP() << "a GPU is present: " << (*r)->device_info().name;
  EXPECT_FALSE(r.error().empty());
}

// What the device says of itself: its SMs, memory and clocks (name, compute capability,
// SMs, memory, versions, clocks), every one read off the device, none made up.
TEST(CudaBackend, DeviceInfoReadsTheDevicesOwnFigures) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error();
  const DeviceInfo d = gpu()->device_info();
  EXPECT_FALSE(d.name.empty());
  EXPECT_FALSE(d.compute_capability.empty());
  EXPECT_GT(d.cores, 0);
  EXPECT_GT(d.memory_gib, 0.0);
  EXPECT_GT(d.sm_clock_mhz, 100) << d.runtime;
  EXPECT_GT(d.memory_clock_mhz, 100) << d.runtime;
  EXPECT_NE(d.runtime.find(" MHz"), std::string::npos) << d.runtime;
}

class RoundtripParity : public ::testing::TestWithParam<std::tuple<DType, int>> {};

TEST_P(RoundtripParity, BitIdenticalToCpu) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error();
  auto [t, mode] = GetParam();
  const FloatFormat& f = info(t).format;
  CastOptions o;
  o.rounding = static_cast<Rounding>(mode);
  o.seed = 5;
  Support s = gpu()->supports_roundtrip(f, o);
  if (!s.ok) GTEST_SKIP() << "unsupported on CUDA: " << s.why_not;
  std::mt19937 rng(77);
  std::vector<float> in(1 << 20);
  for (auto& x : in) x = std::bit_cast<float>(static_cast<uint32_t>(rng()));
  for (size_t i = 0; i < 4096; ++i) in[i] = std::ldexp(float(i) - 2048.0f, int(i % 40) - 20);
  std::vector<float> cpu(in.size()), dev(in.size());
  roundtrip_f32_array(f, o, in.data(), cpu.data(), in.size());
  ASSERT_TRUE(gpu()->roundtrip_f32(f, o, in.data(), dev.data(), in.size()).ok());
  for (size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(cpu[i]), std::bit_cast<uint32_t>(dev[i]))
        << info(t).name << " " << rounding_name(o.rounding) << " x=" << std::hexfloat << in[i];
}

// The float64 round trip (the cast experiment's elements) against round_each on the CPU, bit
// for bit: random bit patterns, values across each format's range, ties and specials.
class RoundtripF64Parity : public ::testing::TestWithParam<std::tuple<DType, int>> {};

TEST_P(RoundtripF64Parity, BitIdenticalToCpu) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error();
  auto [t, mode] = GetParam();
  const FloatFormat& f = info(t).format;
  CastOptions o;
  o.rounding = static_cast<Rounding>(mode);
  o.seed = 6;
  std::mt19937_64 rng(78);
  std::vector<double> in(1 << 20);
  for (auto& x : in) x = std::bit_cast<double>(rng());
  for (size_t i = 0; i < 8192; ++i) in[i] = std::ldexp(double(i) - 4096.0, int(i % 60) - 30) * 1.0078125;
  for (size_t c = 0; c < 256 && c <= f.code_mask(); ++c) in[8192 + c] = decode(f, c) * (1 + 0x1p-60);
  std::vector<double> cpu(in.size()), dev = in;
  round_each(f, in, cpu, o);
  auto done = gpu()->roundtrip_f64(f, o, dev);
  if (!done && t == DType::float8_e8m0fnu) GTEST_SKIP() << done.error();
  ASSERT_TRUE(done.ok()) << done.error();
  for (size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint64_t>(cpu[i]), std::bit_cast<uint64_t>(dev[i]))
        << info(t).name << " " << rounding_name(o.rounding) << " x=" << std::hexfloat << in[i];
}

// Every float format of the table, and custom formats as a user names them (custom_dtype.h).
std::vector<DType> float_dtypes() {
  std::vector<DType> out;
  for (const auto& row : all_dtypes())
    if (row.kind == DTypeKind::Float) out.push_back(row.id);
  for (const char* custom : {"e5m7", "e3m3:finite", "e4m4b5:fnuz", "e6m9:fn", "e2m0:finite", "e9m20"})
    out.push_back(*parse_dtype(custom));
  return out;
}

// "float16_stochastic", "e4m4b5_fnuz_rne": a test's name from its (dtype, rounding mode)
// parameter, in the letters, digits and '_' gtest allows.
std::string format_and_mode(const ::testing::TestParamInfo<std::tuple<DType, int>>& p) {
  std::string n =
      std::string(name(std::get<0>(p.param))) + "_" + rounding_name(static_cast<Rounding>(std::get<1>(p.param)));
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllFormatsAndModes, RoundtripParity,
                         ::testing::Combine(::testing::ValuesIn(float_dtypes()), ::testing::Range(0, kRoundingCount)),
                         format_and_mode);
INSTANTIATE_TEST_SUITE_P(AllFormatsAndModes, RoundtripF64Parity,
                         ::testing::Combine(::testing::ValuesIn(float_dtypes()), ::testing::Range(0, kRoundingCount)),
                         format_and_mode);

// The staged copies (staged_copy.h): arrays across the chunk boundaries, tails of odd length,
// and one under the staging threshold, there and back bit for bit -- every product and round
// trip above moves its arrays this way.
TEST(StagedCopy, ThereAndBackBitForBit) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device: " << make_cuda_backend().error();
  for (size_t bytes : {size_t{1000}, (size_t{16} << 20) - 8, (size_t{16} << 20) + 8, (size_t{40} << 20) + 1234}) {
    std::vector<uint8_t> host(bytes), back(bytes, 0);
    std::mt19937_64 rng(bytes);
    for (auto& b : host) b = static_cast<uint8_t>(rng());
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    EXPECT_EQ(cuda::copy_to_device(d, host.data(), bytes), cudaSuccess);
    EXPECT_EQ(cuda::copy_to_host(back.data(), d, bytes), cudaSuccess);
    cudaFree(d);
    EXPECT_TRUE(host == back) << bytes << " bytes";
  }
}

}  // namespace
}  // namespace pl
