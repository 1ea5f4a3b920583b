// The quantised-operand cache (core/experiment/quantised_cache.h): an operand is handed back
// only for the same source object, slot and key -- every field of the key changed misses -- and
// a re-run of the window's kind gives the bits of a run that quantised afresh.
#include "core/experiment/quantised_cache.h"

#include <gtest/gtest.h>

#include "tests/core/test_util.h"

#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "core/experiment/matmul.h"
#include "core/experiment/reference_cache.h"

namespace pl::experiment {
namespace {

struct Source {
  std::vector<double> values;
};

std::shared_ptr<const Source> source_of(size_t n, double scale) {
  auto s = std::make_shared<Source>();
  for (size_t i = 0; i < n; ++i) s->values.push_back(scale * (static_cast<double>(i % 97) - 48.3) / 7.0);
  return s;
}

QuantiseKey key_for(size_t rows, size_t cols) {
  QuantiseKey k;
  k.rows = rows, k.cols = cols, k.dtype = DType::float8_e4m3fn;
  k.scaling = Scaling{ScalingKind::PerTensor};
  return k;
}

std::shared_ptr<const Quantised> through_cache(const std::shared_ptr<const Source>& s, QuantiseSlot slot,
                                               const QuantiseKey& k, bool* hit) {
  return quantised_cached(
      s, slot, k, [&] { return quantise(s->values, k.rows, k.cols, k.dtype, k.scaling, k.cast, k.history_amax); }, hit);
}

TEST(QuantisedCache, TheSameSourceSlotAndKeyGetTheOperandBack) {
  clear_quantised_cache();
  const auto s = source_of(64 * 32, 1.0);
  const QuantiseKey k = key_for(64, 32);
  bool hit = true;
  const auto first = through_cache(s, QuantiseSlot::Input, k, &hit);
  EXPECT_FALSE(hit);
  const auto again = through_cache(s, QuantiseSlot::Input, k, &hit);
  EXPECT_TRUE(hit);
  EXPECT_EQ(first, again);
  const Quantised direct = quantise(s->values, 64, 32, k.dtype, k.scaling, k.cast);
  ASSERT_EQ(direct.values.size(), again->values.size());
  EXPECT_EQ(0, std::memcmp(direct.values.data(), again->values.data(), direct.values.size() * sizeof(double)));
  // The other slot has its own entry.
  through_cache(s, QuantiseSlot::Weight, k, &hit);
  EXPECT_FALSE(hit);
  through_cache(s, QuantiseSlot::Input, k, &hit);
  EXPECT_TRUE(hit);
}

TEST(QuantisedCache, EveryFieldOfTheKeyChangedMisses) {
  const auto s = source_of(64 * 32, 1.0);
  const QuantiseKey base = key_for(64, 32);
  const std::vector<std::function<void(QuantiseKey&)>> changes = {
      [](QuantiseKey& k) { k.rows = 32, k.cols = 64; },
      [](QuantiseKey& k) { k.cols = 16, k.rows = 128; },
      [](QuantiseKey& k) { k.dtype = DType::float8_e5m2; },
      [](QuantiseKey& k) { k.via = DType::bfloat16; },
      [](QuantiseKey& k) { k.scaling.kind = ScalingKind::PerChannel; },
      [](QuantiseKey& k) { k.scaling.history = 8; },
      [](QuantiseKey& k) { k.cast.rounding = Rounding::Stochastic; },
      [](QuantiseKey& k) { k.cast.overflow = Overflow::Saturate; },
      [](QuantiseKey& k) { k.cast.flush_input_subnormals = true; },
      [](QuantiseKey& k) { k.cast.flush_output_subnormals = true; },
      [](QuantiseKey& k) { k.cast.path = CastPath::ViaFloat32; },
      [](QuantiseKey& k) { k.cast.seed = 7; },
      [](QuantiseKey& k) { k.history_amax = 3.5; },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    clear_quantised_cache();
    bool hit = true;
    through_cache(s, QuantiseSlot::Weight, base, &hit);
    QuantiseKey changed = base;
    changes[i](changed);
    EXPECT_FALSE(changed == base) << "change " << i;
    through_cache(s, QuantiseSlot::Weight, changed, &hit);
    EXPECT_FALSE(hit) << "change " << i;
  }
}

TEST(QuantisedCache, OnlyTheVerySourceObjectMatches) {
  clear_quantised_cache();
  const QuantiseKey k = key_for(64, 32);
  bool hit = true;
  auto s = source_of(64 * 32, 1.0);
  through_cache(s, QuantiseSlot::Input, k, &hit);
  // Equal values in another object: its identity is all the cache knows, so it misses.
  const auto twin = source_of(64 * 32, 1.0);
  through_cache(twin, QuantiseSlot::Input, k, &hit);
  EXPECT_FALSE(hit);
  // Once the source is gone, nothing matches its entry (an object made at its address later
  // holds other values).
  s.reset();
  auto later = source_of(64 * 32, 2.0);
  through_cache(later, QuantiseSlot::Input, k, &hit);
  EXPECT_FALSE(hit);
  // Without a source object nothing is kept.
  const std::shared_ptr<const Source> none;
  const auto values = source_of(64 * 32, 1.0);
  for (int i = 0; i < 2; ++i)
    quantised_cached(
        none, QuantiseSlot::Input, k, [&] { return quantise(values->values, 64, 32, k.dtype, k.scaling, k.cast); },
        &hit);
  EXPECT_FALSE(hit);
}

// The window's re-run: drawn operands, another output dtype, then another input dtype. Each
// result has the bits of the same run with nothing kept.
TEST(QuantisedCache, ARerunGivesTheBitsOfAFreshRun) {
  MatmulConfig c;
  c.m = 24, c.n = 20, c.k = 40;
  c.input = c.weight = DType::float8_e4m3fn;
  c.input_scaling = c.weight_scaling = Scaling{ScalingKind::PerTensor};
  c.cast.rounding = Rounding::Stochastic;
  auto fresh = [](const MatmulConfig& cfg) {
    clear_quantised_cache();
    clear_reference_cache();
    return run_matmul(cfg);
  };
  ASSERT_TRUE(run_matmul(c));
  // Each change, and whether both operands' rounding stays as it was.
  const std::vector<std::pair<std::function<void(MatmulConfig&)>, bool>> changes = {
      {[](MatmulConfig& x) { x.output = DType::float16; }, true},
      {[](MatmulConfig& x) { x.input = DType::float8_e5m2; }, false},
      {[](MatmulConfig& x) { x.cast.seed = 99; }, false},  // (stochastic rounding)
  };
  for (const auto& [change, operands_kept] : changes) {
    change(c);
    auto kept = run_matmul(c);
    auto again = fresh(c);
    ASSERT_TRUE(kept && again);
    const auto kept_result = test::values_of(kept->result), again_result = test::values_of(again->result);
    const auto kept_acc = test::values_of(kept->accumulated), again_acc = test::values_of(again->accumulated);
    ASSERT_EQ(kept_result.size(), again_result.size());
    EXPECT_EQ(0, std::memcmp(kept_result.data(), again_result.data(), kept_result.size() * sizeof(double)));
    EXPECT_EQ(0, std::memcmp(kept_acc.data(), again_acc.data(), kept_acc.size() * sizeof(double)));
    EXPECT_EQ(kept->input.stats.max_abs, again->input.stats.max_abs);
    // The bound check's |A||B| kept with the operands (abs_product.h) checks the same way.
    EXPECT_EQ(kept->bound_method.find("(kept from the run before)") != std::string::npos, operands_kept)
        << kept->bound_method;
    EXPECT_EQ(again->bound_method.find("(kept"), std::string::npos);
    EXPECT_EQ(kept->max_scaled_arithmetic, again->max_scaled_arithmetic);
    EXPECT_EQ(kept->within_deterministic, again->within_deterministic);
    EXPECT_EQ(kept->within_probabilistic, again->within_probabilistic);
  }
}

}  // namespace
}  // namespace pl::experiment
