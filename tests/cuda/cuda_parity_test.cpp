// CUDA against the CPU reference, bit for bit (conversions are exact, so the tolerance is zero).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/dtype/bulk_convert.h"
#include "core/dtype/codec.h"
#include "core/dtype/dtype.h"
#include "kernels/cuda_backend.h"

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

std::vector<DType> float_dtypes() {
  std::vector<DType> out;
  for (const auto& row : all_dtypes())
    if (row.kind == DTypeKind::Float) out.push_back(row.id);
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    AllFormatsAndModes, RoundtripParity,
    ::testing::Combine(::testing::ValuesIn(float_dtypes()), ::testing::Range(0, kRoundingCount)),
    [](const auto& p) {
      return std::string(name(std::get<0>(p.param))) + "_" +
             rounding_name(static_cast<Rounding>(std::get<1>(p.param)));
    });

}  // namespace
}  // namespace pl
