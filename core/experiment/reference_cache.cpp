#include "core/experiment/reference_cache.h"

#include <cstring>
#include <list>
#include <mutex>

namespace pl::experiment {
namespace {

struct Entry {
  GemmShape shape;
  bool high;
  uint64_t hash;
  CachedReference ref;
};

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::list<Entry>& cache() {
  static std::list<Entry> c;
  return c;
}

uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}

}  // namespace

uint64_t operand_hash(std::span<const double> a, std::span<const double> b) {
  uint64_t h = mix(a.size(), b.size());
  for (auto span : {a, b}) {
    // Four independent lanes (a multiply chain each), so hashing runs near memory speed.
    uint64_t lane[4] = {1, 2, 3, 4};
    size_t i = 0;
    for (; i + 4 <= span.size(); i += 4)
      for (int l = 0; l < 4; ++l) {
        uint64_t bits;
        std::memcpy(&bits, &span[i + l], sizeof bits);
        lane[l] = (lane[l] ^ bits) * 0x100000001B3ull + 0x9E3779B97F4A7C15ull;
      }
    for (; i < span.size(); ++i) {
      uint64_t bits;
      std::memcpy(&bits, &span[i], sizeof bits);
      lane[0] = mix(lane[0], bits);
    }
    for (uint64_t x : lane) h = mix(h, x);
  }
  return h;
}

CachedReference reference_cached(const GemmShape& s, bool high_precision, uint64_t hash,
                                 const std::function<CachedReference()>& compute, bool* hit,
                                 size_t max_bytes) {
  {
    std::lock_guard lock(cache_mutex());
    for (auto it = cache().begin(); it != cache().end(); ++it)
      if (it->shape.m == s.m && it->shape.n == s.n && it->shape.k == s.k && it->high == high_precision &&
          it->hash == hash) {
        cache().splice(cache().end(), cache(), it);  // most recently used last
        if (hit) *hit = true;
        return cache().back().ref;
      }
  }
  if (hit) *hit = false;
  CachedReference r = compute();  // outside the lock: it may take seconds
  const size_t bytes = r.values.size() * sizeof(double);
  std::lock_guard lock(cache_mutex());
  if (bytes > max_bytes) return r;
  size_t held = bytes;
  for (const auto& e : cache()) held += e.ref.values.size() * sizeof(double);
  while (held > max_bytes && !cache().empty()) {
    held -= cache().front().ref.values.size() * sizeof(double);
    cache().pop_front();
  }
  cache().push_back({s, high_precision, hash, r});
  return r;
}

void clear_reference_cache() {
  std::lock_guard lock(cache_mutex());
  cache().clear();
}

}  // namespace pl::experiment
