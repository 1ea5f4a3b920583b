// The GPU's error statistics without a GPU: error_pass.h's element functions run on the host in
// a kernel's order -- 128 threads a span, each taking every 128th element, their sums merged in
// the kernel's tree, the counts in any order, pass 2's elements gathered backwards -- and
// assembled by the very functions the device driver calls (device_error_stats.h). The result
// must be the CPU's error_stats(): every count, extreme, histogram and percentile equal, the
// sums within 1e-9. What this leaves to the GPU parity suite is the CUDA plumbing alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "core/analysis/error_passes.h"
#include "core/analysis/histogram.h"
#include "kernels/device_error_stats.h"
#include "tests/cuda/error_stats_cases.h"

namespace pl::cuda {
namespace {

namespace passes = experiment::error_passes;
using testing::AttributionArrays;
using testing::AttributionComparisons;

constexpr size_t kThreads = 128;  // error_stats.cu's pass-one block

// error_stats.cu's two kernels and device_error_stats()'s host steps, on the host; nothing where
// the device hands the comparisons to the CPU (relative or ulp errors past the octave table).
std::optional<std::vector<experiment::ErrorStats>> emulated_device_stats(std::span<const experiment::Comparison> cs,
                                                                         DType output) {
  const passes::OutputMeasure m = passes::output_measure(output, 0);
  const size_t n = cs[0].result.size(), spans = (n + passes::kSpan - 1) / passes::kSpan;
  const experiment::OctaveBins& rel_bins = experiment::OctaveBins::get(passes::kRelPerOctave);
  const experiment::OctaveBins& ulp_bins = experiment::OctaveBins::get(passes::kUlpPerOctave);
  const auto rel_past = static_cast<uint32_t>(rel_bins.slots()), ulp_past = static_cast<uint32_t>(ulp_bins.slots());
  std::vector<experiment::ErrorStats> stats;
  for (const experiment::Comparison& c : cs) {
    PassParams p = pass_params(m);
    if (c.bound) set_bound(p, *c.bound, c.bound->abs_product.data(), c.bound->bias.data());
    std::vector<uint16_t> keys(n);
    std::vector<PassSums> span_sums(spans);
    std::vector<unsigned> key_counts(passes::kKeys, 0);
    std::vector<unsigned long long> rel(rel_bins.counted_slots(), 0), ulps(ulp_bins.counted_slots(), 0),
        bound(rel_bins.counted_slots(), 0);
    for (size_t s = 0; s < spans; ++s) {
      const size_t begin = s * passes::kSpan, end = std::min(n, begin + passes::kSpan);
      std::array<PassSums, kThreads> thread{};
      for (size_t t = 0; t < kThreads; ++t)
        for (size_t i = begin + t; i < end; i += kThreads) {
          const ElementSlots slots = pass_one(c.result[i], c.reference[i], i, p, thread[t], rel_bins.entries().data(),
                                              rel_past, ulp_bins.entries().data(), ulp_past);
          keys[i] = slots.key;
          if (slots.key != experiment::kNoErrorKey) ++key_counts[slots.key];
          if (slots.rel != rel_past + 3) ++rel[slots.rel];
          if (slots.ulps != ulp_past + 3) ++ulps[slots.ulps];
          if (slots.bound != rel_past + 3) ++bound[slots.bound];
        }
      for (size_t stride = kThreads / 2; stride > 0; stride /= 2)  // the kernel's tree
        for (size_t t = 0; t < stride; ++t) merge_sums(thread[t], thread[t + stride]);
      span_sums[s] = thread[0];
    }
    const passes::FirstPass first = assemble_first_pass(c, span_sums, key_counts, rel, ulps, bound);
    passes::Plan plan = passes::plan(c, first, m);
    if (plan.log_histograms) return std::nullopt;
    const GatherSizes sizes = gather_sizes(plan, first);
    // Pass 2: the elements binned alone, the percentiles' keys' members counted by fine key.
    std::vector<double> alone;
    std::vector<unsigned> fine(3 * kFineBins, 0);
    for (size_t i = n; i-- > 0;) {  // another order than the CPU's
      const uint8_t a = plan.action[keys[i]];
      const double e = c.result[i] - c.reference[i];
      if (a & kPassBinAlone) alone.push_back(e);
      if (const int q = (a >> 1) - 1; q >= 0)
        ++fine[static_cast<size_t>(q) * kFineBins + (fine_key(e) & (kFineBins - 1))];
    }
    EXPECT_EQ(alone.size(), sizes.alone);
    for (size_t q = 0; q < 3; ++q) {
      size_t counted = 0;
      for (uint32_t f = 0; f < kFineBins; ++f) counted += fine[q * kFineBins + f];
      EXPECT_EQ(counted, sizes.members[q]);
    }
    // Pass 3: each percentile's fine key's members.
    const FineTargets targets = refine_percentiles(plan, fine);
    std::array<std::vector<double>, 3> members;
    for (size_t i = 0; i < n; ++i) {
      if (!pass_three_candidate(keys[i], targets.key.data())) continue;
      const double e = c.result[i] - c.reference[i];
      for (size_t q = 0; q < 3; ++q)
        if (fine_key(e) == targets.key[q]) members[q].push_back(std::fabs(e));
    }
    for (size_t q = 0; q < 3; ++q) EXPECT_EQ(members[q].size(), targets.count[q]);
    passes::Gathered g = gathered(plan, alone, std::move(members));
    stats.push_back(passes::finish(c, n, plan, g, first));
  }
  return stats;
}

void check_attribution(size_t m, size_t n, uint64_t seed, bool specials, DType output) {
  const AttributionArrays a = testing::attribution_arrays(m, n, seed, specials);
  AttributionComparisons cpu, emulated;
  testing::fill_comparisons(a, cpu);
  testing::fill_comparisons(a, emulated);
  const auto want = experiment::error_stats(cpu.list, output);
  const auto got = emulated_device_stats(emulated.list, output);
  ASSERT_TRUE(got) << "the device would decline these comparisons";
  testing::expect_same_attribution(*got, emulated, want, cpu,
                                   std::string(name(output)) + " " + std::to_string(m) + "x" + std::to_string(n));
}

TEST(DeviceErrorPasses, EqualTheCpuOnOrdinaryErrors) {
  check_attribution(300, 700, 1, false, DType::float32);  // 3.2 spans: the last one short
}

TEST(DeviceErrorPasses, EqualTheCpuWithNanInfZerosSubnormalsAndSaturation) {
  check_attribution(300, 700, 2, true, DType::float32);
  check_attribution(257, 511, 3, true, DType::bfloat16);
}

TEST(DeviceErrorPasses, EqualTheCpuForAFloat64Output) {
  check_attribution(129, 1000, 4, false, DType::float64);  // error_in_ulps' division path
}

// A float64 output's relative errors against subnormal references (over the floor 2^-1022) and
// its ulps there (2^-1074) reach past 2^1023, beyond the octave table: such values must be binned
// one by one, which the device leaves to the CPU (device_error_stats says so in its error).
TEST(DeviceErrorPasses, DeclineWhenErrorsRangePastTheOctaveTable) {
  const AttributionArrays a = testing::attribution_arrays(129, 1000, 4, true);
  AttributionComparisons c;
  testing::fill_comparisons(a, c);
  EXPECT_FALSE(emulated_device_stats(c.list, DType::float64));
}

TEST(DeviceErrorPasses, EqualTheCpuForOneShortSpan) { check_attribution(3, 5, 5, false, DType::float16); }

// The fine key orders errors as |e| does, across both signs, and begins with the error key's
// magnitude: on the neighbours of key boundaries (where error_key takes a negative error's
// |e| - 1 ulp) and on random errors of every size.
TEST(DeviceErrorPasses, FineKeysOrderErrorsByMagnitudeAndExtendTheirKey) {
  std::vector<double> es = {0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            0x1p-1074,
                            -0x1p-1074,
                            std::numeric_limits<double>::max(),
                            -std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity()};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 64; ++i) {  // each side of a fine-key boundary and of a key boundary
    const uint64_t edge = ((1 + rng() % 2046) << 52) | ((rng() & 0xfff) << 36);  // finite, past 0
    const uint64_t near[] = {edge - 1, edge, edge + 1, edge | 0xfffffffffull, edge & ~0xffffffffffffull};
    for (uint64_t bits : near)
      for (uint64_t sign : {uint64_t{0}, uint64_t{1} << 63}) es.push_back(std::bit_cast<double>(bits | sign));
  }
  for (int i = 0; i < 2000; ++i)
    es.push_back(std::bit_cast<double>((rng() & 0x800fffffffffffffull) | ((rng() % 2047) << 52)));
  for (double x : es) {
    ASSERT_EQ(fine_key(x) >> kFineBits, key_magnitude(experiment::error_key(x))) << std::hexfloat << x;
    for (double y : es) {
      if (fine_key(x) < fine_key(y)) {
        ASSERT_LE(std::fabs(x), std::fabs(y)) << std::hexfloat << x << " " << y;
      }
    }
  }
}

// Pass 3 brings back a fine key's members, not a percentile's whole key, and the percentiles
// are still the CPU's: errors crowded into a few keys (a hundred thousand elements each).
TEST(DeviceErrorPasses, PassThreeGathersAFineKeyNotTheWholeKey) {
  const size_t n = 400000;
  std::vector<double> result(n), reference(n);
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> u(1.0, 1.25);  // two and a half keys of |e| at 2^-20
  for (size_t i = 0; i < n; ++i) {
    reference[i] = 1.0 + double(i % 1000);
    result[i] = reference[i] + (i % 3 == 0 ? -1 : 1) * u(rng) * 0x1p-20;
  }
  experiment::Comparison c;
  c.result = result, c.reference = reference;
  const passes::OutputMeasure m = passes::output_measure(DType::float64, 0);
  const auto want = experiment::error_stats(std::span<const experiment::Comparison>(&c, 1), DType::float64);
  const auto got = emulated_device_stats(std::span<const experiment::Comparison>(&c, 1), DType::float64);
  ASSERT_TRUE(got);
  EXPECT_EQ((*got)[0].p50_abs, want[0].p50_abs);
  EXPECT_EQ((*got)[0].p90_abs, want[0].p90_abs);
  EXPECT_EQ((*got)[0].p99_abs, want[0].p99_abs);
  // What pass 3 gathers against the members of the median's key.
  passes::FirstPass first = passes::fresh_first_pass(c);
  for (size_t i = 0; i < n; ++i) first.keys[experiment::error_key(result[i] - reference[i])] += 1;
  first.sums.count = n;
  passes::Plan plan = passes::plan(c, first, m);
  const size_t key_members = first.keys[plan.magnitude[0]] + first.keys[plan.magnitude[0] | passes::kMagnitudes];
  std::vector<unsigned> fine(3 * kFineBins, 0);
  for (size_t i = 0; i < n; ++i) {
    const double e = result[i] - reference[i];
    const uint32_t f = fine_key(e);
    for (size_t q = 0; q < 3; ++q)
      if (plan.owner[q] == q && f >> kFineBits == plan.magnitude[q]) ++fine[q * kFineBins + (f & (kFineBins - 1))];
  }
  const FineTargets t = refine_percentiles(plan, fine);
  EXPECT_GT(key_members, 100000u);
  EXPECT_LT(t.count[0], key_members / 100);
}

// Mutation check of the test itself: a pass that drops one element's key count must show.
TEST(DeviceErrorPasses, ALostElementIsSeen) {
  const AttributionArrays a = testing::attribution_arrays(64, 64, 6, false);
  AttributionComparisons cpu;
  testing::fill_comparisons(a, cpu);
  const auto want = experiment::error_stats(cpu.list, DType::float32);
  AttributionArrays shorter = a;
  shorter.result[17] = std::numeric_limits<double>::quiet_NaN();  // one element fewer compared
  AttributionComparisons other;
  testing::fill_comparisons(shorter, other);
  const auto got = emulated_device_stats(other.list, DType::float32);
  ASSERT_TRUE(got);
  EXPECT_NE((*got)[0].count, want[0].count);
  EXPECT_NE(other.h[0].signed_error.total() - other.h[0].signed_error.nonfinite,
            cpu.h[0].signed_error.total() - cpu.h[0].signed_error.nonfinite);
}

}  // namespace
}  // namespace pl::cuda
