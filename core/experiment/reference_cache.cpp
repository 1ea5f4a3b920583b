#include "core/experiment/reference_cache.h"

#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

namespace pl::experiment {
namespace {

struct Entry {
  GemmShape shape;
  bool high;
  uint64_t hash;
  CachedReference ref;  // its values shared with every caller that got them
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

namespace {

// Four independent lanes (a multiply chain each), so hashing runs near memory speed.
uint64_t span_hash(std::span<const double> span) {
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
  uint64_t h = 0;
  for (uint64_t x : lane) h = mix(h, x);
  return h;
}

}  // namespace

uint64_t operand_hash(std::span<const double> a, std::span<const double> b) {
  // The two operands side by side when they are large enough to be worth a thread.
  uint64_t hb = 0;
  std::thread second;
  if (a.size() + b.size() >= (size_t{1} << 17)) second = std::thread([&] { hb = span_hash(b); });
  else hb = span_hash(b);
  const uint64_t ha = span_hash(a);
  if (second.joinable()) second.join();
  return mix(mix(mix(a.size(), b.size()), ha), hb);
}

CachedReference reference_cached(const GemmShape& s, bool high_precision, uint64_t hash,
                                 const std::function<CachedReference()>& compute, bool* hit,
                                 size_t max_bytes) {
  if (hit) *hit = false;
  {
    std::lock_guard lock(cache_mutex());
    for (auto it = cache().begin(); it != cache().end(); ++it)
      if (it->shape.m == s.m && it->shape.n == s.n && it->shape.k == s.k && it->high == high_precision &&
          it->hash == hash) {
        cache().splice(cache().end(), cache(), it);  // most recently used last
        if (hit) *hit = true;
        return it->ref;
      }
  }
  CachedReference r = compute();  // outside the lock: it may take seconds
  const size_t bytes = r.values ? r.values->size() * sizeof(double) : 0;
  if (!r.values || bytes > max_bytes) return r;
  std::lock_guard lock(cache_mutex());
  size_t held = bytes;
  for (const auto& e : cache()) held += e.ref.values->size() * sizeof(double);
  while (held > max_bytes && !cache().empty()) {
    held -= cache().front().ref.values->size() * sizeof(double);
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
