// A minimal fork-join loop: splits [0, n) into one contiguous chunk per
// thread. Chunks are aligned to 64 elements so threads never share a cache
// line of output.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace pl {

inline unsigned default_threads() {
  unsigned t = std::thread::hardware_concurrency();
  return t ? t : 1;
}

template <typename Fn>  // Fn(size_t begin, size_t end)
void parallel_for(size_t n, unsigned threads, Fn&& fn) {
  if (threads == 0) threads = default_threads();
  const size_t min_chunk = 1 << 14;  // below ~16K elements a thread costs more than it saves
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, n / min_chunk)));
  if (threads <= 1) {
    fn(size_t{0}, n);
    return;
  }
  size_t chunk = ((n + threads - 1) / threads + 63) / 64 * 64;
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    size_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
    if (b < e) pool.emplace_back([&fn, b, e] { fn(b, e); });
  }
  fn(size_t{0}, std::min(n, chunk));
  for (auto& th : pool) th.join();
}

}  // namespace pl
