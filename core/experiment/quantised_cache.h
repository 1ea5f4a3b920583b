// The quantised operands of the last experiment, kept for the next: the window re-runs a setup
// on every change of a setting, and most changes (the output dtype, the accumulation model, the
// backend, fast accumulation) leave both operands' rounding as it was, a changed input dtype the
// weight's. Rounding 2 x 16M drawn values took 107 ms of each 4096^3 update on an H100 machine
// (the "quantise" stage, docs/performance.md).
//
// Only operands drawn from data sources are kept: they live in an immutable shared object
// (matmul.cpp's drawn_operands), whose identity says the values are the same. An entry holds
// that object weakly and is found again only while it is the very object the caller holds.
// One entry per slot (input, weight): at 4096^2 each is 128 MB, twice that with a scale.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/dtype.h"
#include "core/quantise/scaling.h"

namespace pl::experiment {

// Everything besides the values that decides a quantised operand.
struct QuantiseKey {
  size_t rows = 0, cols = 0;
  DType dtype = DType::float32;
  std::optional<DType> via;  // stored in this dtype first (MatmulConfig::input_via)
  Scaling scaling;
  CastOptions cast;
  double history_amax = 0;  // PerTensorDelayed's amax of the earlier tensors
};
bool operator==(const QuantiseKey& a, const QuantiseKey& b);

enum class QuantiseSlot { Input, Weight };

// The quantised operand for `slot` of `source` under `key`: kept from the run before when that
// run quantised the same slot of the same source object under an equal key, else `compute`'s,
// which is then kept (replacing the slot's entry). Thread-safe; `hit` (optional) says which.
std::shared_ptr<const Quantised> quantised_cached(const std::shared_ptr<const void>& source, QuantiseSlot slot,
                                                  const QuantiseKey& key, const std::function<Quantised()>& compute,
                                                  bool* hit = nullptr);

// Drops every entry (benchmarks that time quantising itself).
void clear_quantised_cache();

}  // namespace pl::experiment
