// The GEMM epilogue's device-safe element (core/accumulate/device/epilogue_element.h), which the GPU's
// kernel runs, against the CPU's apply_epilogue (output_steps.h, rounding through the codec)
// bit for bit: every accumulator format and rounding mode a model can have, int32 sums, scales
// and a bias, on sums next to the formats' midpoints, past their range, and Inf and NaN.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/accumulate/output_steps.h"
#include "core/dtype/codec.h"

namespace pl::experiment {
namespace {

// Sums that are hard to round: values of the format with a tiny nudge either way, and midpoints.
std::vector<double> hard_sums(DType format, size_t count, std::mt19937_64& rng) {
  const FloatFormat& f = info(format == DType::float64 ? DType::float32 : format).format;
  std::normal_distribution<double> dist(0.0, 30.0);
  std::uniform_int_distribution<int> pick(0, 6);
  std::vector<double> v(count);
  for (size_t i = 0; i < count; ++i) {
    const double x = round_to(f, dist(rng), {});
    const double ulp = std::ldexp(1.0, std::ilogb(x == 0 ? 1.0 : x) - f.mantissa_bits);
    switch (pick(rng)) {
      case 0: v[i] = x; break;
      case 1: v[i] = x + ulp / 2; break;  // a midpoint
      case 2: v[i] = std::nextafter(x + ulp / 2, 1e300); break;
      case 3: v[i] = std::nextafter(x + ulp / 2, -1e300); break;
      case 4: v[i] = std::ldexp(dist(rng), 200); break;   // past most formats' range
      case 5: v[i] = std::ldexp(x + ulp / 2, 64); break;  // a large midpoint: + a small bias ties in float64
      default: v[i] = std::ldexp(dist(rng), -30); break;
    }
  }
  v[0] = std::numeric_limits<double>::infinity();
  v[1] = std::numeric_limits<double>::quiet_NaN();
  v[2] = -0.0;
  return v;
}

TEST(OutputSteps, TheDeviceElementIsTheHostEpilogueBitForBit) {
  std::mt19937_64 rng(9);
  const size_t m = 24, n = 20;
  std::vector<Accumulation> models = {
      {AccumKind::Blas, DType::float32},
      {AccumKind::Blas, DType::float16},
      {AccumKind::Blas, DType::float64},
      {AccumKind::Int32, DType::float32},
      {AccumKind::Sequential, DType::bfloat16, Rounding::Stochastic},
      {AccumKind::Sequential, DType::float16, Rounding::TowardZero},
      {AccumKind::Chunked, DType::float8_e4m3fn, Rounding::NearestAway, 32, 8, DType::float16},
      {AccumKind::Kahan, DType::float32, Rounding::Up}};
  std::normal_distribution<double> unit(0.0, 1.0);
  for (const Accumulation& acc : models) {
    const DType format = result_dtype(acc);
    std::vector<double> fa(m), fb(n), bias(n);
    for (double& f : fa) f = static_cast<float>(std::ldexp(1.0 + std::fabs(unit(rng)), int(unit(rng) * 4)));
    for (double& f : fb) f = static_cast<float>(std::ldexp(1.0 + std::fabs(unit(rng)), int(unit(rng) * 4)));
    fa[1] = 1.0;  // an unscaled row
    for (double& b : bias) b = round_to(info(DType::bfloat16).format, unit(rng), {});
    // Powers of two keep a midpoint a midpoint: the bias then decides the rounding through lo alone.
    for (size_t j = 0; j < n; j += 3) fb[j] = 1.0;
    for (size_t i = 0; i < m; i += 4) fa[i] = 1.0;
    std::vector<double> sums = hard_sums(format, m * n, rng);
    if (acc.kind == AccumKind::Int32)
      for (double& s : sums) s = std::isfinite(s) ? std::nearbyint(std::fmod(s * 1e6, 2147483647.0)) : 12345.0;
    for (const bool with_bias : {false, true}) {
      const OutputSteps steps{
          m, n, acc, fa, fb, with_bias ? std::span<const double>(bias) : std::span<const double>(), DType::bfloat16,
          {}};
      const DeviceEpilogue device = device_epilogue(steps);
      ASSERT_TRUE(device.supported) << describe(acc);
      std::vector<double> host = sums;
      apply_epilogue(steps, host);
      for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < n; ++j) {
          const size_t e = i * n + j;
          const double got = epilogue_element(device.params, sums[e], steps.scaled(), fa[i] * fb[j],
                                              with_bias ? &bias[j] : nullptr, e);
          ASSERT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(host[e]))
              << describe(acc) << (with_bias ? ", bias" : "") << ": element " << e << " sum " << sums[e] << " got "
              << got << " want " << host[e];
        }
    }
  }
}

}  // namespace
}  // namespace pl::experiment
