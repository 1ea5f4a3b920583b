// The float64 reference products of recent runs, kept by content: re-running an experiment
// with other dtypes, recipes or models on the same operands (what the window does on every
// change) reuses the reference of the original operands instead of recomputing it. Keyed by
// the shape, the method and a 64-bit hash of every operand bit; bounded in bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/accumulate/gemm.h"
#include "core/backend/held_values.h"

namespace pl::experiment {

// The cache and every result holding a reference share one array, held where it was computed
// (a GPU's dgemm leaves it on the device): a hit copies nothing; a miss keeps the array itself.
struct CachedReference {
  Held values;
  std::string method;  // how it was computed ("OpenBLAS dgemm, core Zen", "cuBLASLt ... on H100")
};

// A hash of the operands' bits (not their values: -0 and +0, NaN payloads differ).
uint64_t operand_hash(std::span<const double> a, std::span<const double> b);

// operand_hash, remembered for operands whose owners keep them unchanged while they live (an
// experiment's drawn and quantised operands): asked again for the same arrays of the same living
// owners, it hands back the hash made before instead of reading them again (2 x 128 MB at 4096^2,
// twice an update). Null owners: hashed every time.
uint64_t owned_operand_hash(std::span<const double> a, std::span<const double> b,
                            const std::shared_ptr<const void>& a_owner, const std::shared_ptr<const void>& b_owner);

// The cached reference for (shape, high precision, hash), or `compute`'s, which is then kept.
// Thread-safe; `hit` (optional) says which. Entries beyond `max_bytes` in all are dropped,
// oldest first.
CachedReference reference_cached(const GemmShape& s, bool high_precision, uint64_t hash,
                                 const std::function<CachedReference()>& compute, bool* hit = nullptr,
                                 size_t max_bytes = size_t{512} << 20);

// Drops every entry (benchmarks time the reference itself, not a cache hit).
void clear_reference_cache();

}  // namespace pl::experiment
