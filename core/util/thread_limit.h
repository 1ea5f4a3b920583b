// A run's cap on the CPU threads it uses: an experiment file's "threads", the CLI's --threads,
// the window's "threads" field. While a ThreadLimit lives on a thread, parallel_for there uses
// at most that many threads, and the loops it hands to other threads share the same budget
// (each of T chunks gets cap / T of it, at least 1), so loops inside loops stay within it too.
// OpenBLAS calls made under a cap use at most that many of its threads (blas.cpp).
//
// Precision Lab's own results never depend on it: every parallel loop here writes disjoint
// elements or adds its partial sums in a fixed order (error_stats.cpp's spans), so a capped
// run gives the same bits. OpenBLAS's do: its sgemm splits rows between threads and sums an
// element with another kernel when the split changes (f32:blas names the count it ran on).
#pragma once

#include <algorithm>
#include <string>
#include <thread>

namespace pl {

// The cap on the calling thread; 0 when there is none (all cores).
unsigned thread_limit();

// Caps the calling thread for its lifetime at `cap` (0: no new cap), never above a cap already
// set there (an MLP's layer under the MLP's), and puts back the one before.
class ThreadLimit {
 public:
  explicit ThreadLimit(unsigned cap);
  ~ThreadLimit();
  ThreadLimit(const ThreadLimit&) = delete;
  ThreadLimit& operator=(const ThreadLimit&) = delete;

 private:
  unsigned saved_;
};

inline unsigned hardware_threads() {
  const unsigned t = std::thread::hardware_concurrency();
  return t ? t : 1;
}

// How many threads a loop asking for `requested` (0: all cores) may use here.
inline unsigned allowed_threads(unsigned requested) {
  const unsigned wanted = requested ? requested : hardware_threads();
  const unsigned cap = thread_limit();
  return cap ? std::min(wanted, cap) : wanted;
}

// The cap each of `parts` pieces of work started under the current one gets: an even share,
// at least 1; none when there is none.
inline unsigned share_of_limit(unsigned parts) {
  const unsigned cap = thread_limit();
  return cap ? std::max(1u, cap / std::max(1u, parts)) : 0;
}

// "1 thread", "2 threads": how results and timings name the count they ran on.
inline std::string threads_text(unsigned n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }

}  // namespace pl
