// A minimal fork-join loop: splits [0, n) into one contiguous chunk per
// thread, run on the shared worker threads (thread_pool.h). Chunks of cheap
// elements are aligned to 64 so threads never share a cache line of output.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#include "core/util/thread_limit.h"
#include "core/util/thread_pool.h"

namespace pl {

// parallel_for's min_chunk for a loop over rows of `row_length` cheap elements each.
inline size_t rows_worth_a_thread(size_t row_length) {
  return std::max<size_t>(1, (size_t{1} << 14) / std::max<size_t>(row_length, 1));
}

// min_chunk: the fewest items worth a thread (~16K cheap elements; fewer for heavy items).
// threads: 0 for all cores; either way at most the caller's ThreadLimit (thread_limit.h).
template <typename Fn>  // Fn(size_t begin, size_t end)
void parallel_for(size_t n, unsigned threads, Fn&& fn, size_t min_chunk = size_t{1} << 14) {
  threads = allowed_threads(threads);
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, n / min_chunk)));
  if (threads <= 1) {
    fn(size_t{0}, n);
    return;
  }
  const size_t align = min_chunk >= 64 ? 64 : 1;
  size_t chunk = ((n + threads - 1) / threads + align - 1) / align * align;
  // Each chunk runs under its share of the caller's cap, whichever thread runs it.
  const unsigned share = share_of_limit(threads);
  // On the pool's workers (thread_pool.h); on threads started here when it is busy.
  const std::function<void(size_t)> task = [&](size_t t) {
    const size_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
    const ThreadLimit limit(share);
    if (b < e) fn(b, e);
  };
  if (run_on_pool(threads, task)) return;  // (rethrows a chunk's exception here)
  // A chunk's exception is rethrown on the caller once every thread is joined: escaping a
  // thread, it would end the process.
  std::vector<std::exception_ptr> failed(threads);
  auto run_chunk = [&](size_t t) {
    try {
      task(t);
    } catch (...) {
      failed[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t * chunk < n; ++t) pool.emplace_back(run_chunk, t);
  run_chunk(0);
  for (auto& th : pool) th.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace pl
