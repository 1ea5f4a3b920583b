#include "core/experiment/quantised_cache.h"

#include <array>
#include <bit>
#include <mutex>

namespace pl::experiment {

// A field added to either struct must join the comparison below (a key that ignores it would
// hand back an operand rounded another way): these sizes fail the build until it does.
static_assert(sizeof(CastOptions) == 16, "CastOptions changed: compare the new field in operator== below");
static_assert(sizeof(Scaling) == 24, "Scaling changed: compare the new field in operator== below");

bool operator==(const QuantiseKey& a, const QuantiseKey& b) {
  const CastOptions &x = a.cast, &y = b.cast;
  return a.rows == b.rows && a.cols == b.cols && a.dtype == b.dtype && a.via == b.via &&
         a.scaling.kind == b.scaling.kind && a.scaling.history == b.scaling.history && a.scaling.group == b.scaling.group &&
         std::bit_cast<uint64_t>(a.scaling.tensor_amax) == std::bit_cast<uint64_t>(b.scaling.tensor_amax) && x.rounding == y.rounding &&
         x.overflow == y.overflow && x.flush_input_subnormals == y.flush_input_subnormals &&
         x.flush_output_subnormals == y.flush_output_subnormals && x.path == y.path && x.seed == y.seed &&
         std::bit_cast<uint64_t>(a.history_amax) == std::bit_cast<uint64_t>(b.history_amax);
}

namespace {

struct Entry {
  std::weak_ptr<const void> source;
  QuantiseKey key;
  std::shared_ptr<const Quantised> value;
};

struct Cache {
  std::mutex lock;
  std::array<Entry, 2> slots;  // by QuantiseSlot
};

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

std::shared_ptr<const Quantised> quantised_cached(const std::shared_ptr<const void>& source, QuantiseSlot slot,
                                                  const QuantiseKey& key, const std::function<Quantised()>& compute,
                                                  bool* hit) {
  Cache& c = cache();
  Entry& e = c.slots[static_cast<size_t>(slot)];
  {
    const std::lock_guard hold(c.lock);
    // lock() is empty once the source object is gone, so an object made later at the same
    // address never matches an entry of the old one.
    if (source && e.value && e.source.lock() == source && e.key == key) {
      if (hit) *hit = true;
      return e.value;
    }
  }
  if (hit) *hit = false;
  auto value = std::make_shared<const Quantised>(compute());
  if (source) {
    const std::lock_guard hold(c.lock);
    e = Entry{source, key, value};
  }
  return value;
}

void clear_quantised_cache() {
  Cache& c = cache();
  const std::lock_guard hold(c.lock);
  c.slots = {};
}

}  // namespace pl::experiment
