#include "core/experiment/reference_cache.h"

#include <algorithm>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "core/util/parallel.h"

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

// Each piece of 2^18 values hashed on its own, on every core, and the pieces' hashes mixed in
// order: the same hash however many threads made it. (One thread per operand read 2 x 128 MB
// at 4096^2, twice an experiment: once for each reference.)
uint64_t pieces_hash(std::span<const double> x) {
  constexpr size_t kPiece = size_t{1} << 18;
  std::vector<uint64_t> piece((x.size() + kPiece - 1) / kPiece);
  parallel_for(
      piece.size(), 0,
      [&](size_t p0, size_t p1) {
        for (size_t p = p0; p < p1; ++p)
          piece[p] = span_hash(x.subspan(p * kPiece, std::min(kPiece, x.size() - p * kPiece)));
      },
      1);
  uint64_t h = x.size();
  for (uint64_t v : piece) h = mix(h, v);
  return h;
}

}  // namespace

uint64_t operand_hash(std::span<const double> a, std::span<const double> b) {
  return mix(pieces_hash(a), pieces_hash(b));
}

uint64_t owned_operand_hash(std::span<const double> a, std::span<const double> b,
                            const std::shared_ptr<const void>& a_owner, const std::shared_ptr<const void>& b_owner) {
  if (!a_owner || !b_owner) return operand_hash(a, b);
  struct Known {
    std::weak_ptr<const void> a_owner, b_owner;  // lock() is empty once gone: a reused address never matches
    const double *a, *b;
    size_t a_size, b_size;
    uint64_t hash;
  };
  static std::mutex lock;
  static std::list<Known> known;  // the last few (an experiment asks for two, R's and Rq's)
  auto same = [&](const Known& k) {
    return k.a == a.data() && k.b == b.data() && k.a_size == a.size() && k.b_size == b.size() &&
           k.a_owner.lock() == a_owner && k.b_owner.lock() == b_owner;
  };
  {
    const std::lock_guard hold(lock);
    for (const Known& k : known)
      if (same(k)) return k.hash;
  }
  const uint64_t h = operand_hash(a, b);
  const std::lock_guard hold(lock);
  known.push_back({a_owner, b_owner, a.data(), b.data(), a.size(), b.size(), h});
  if (known.size() > 4) known.pop_front();
  return h;
}

CachedReference reference_cached(const GemmShape& s, bool high_precision, uint64_t hash,
                                 const std::function<CachedReference()>& compute, bool* hit, size_t max_bytes) {
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
