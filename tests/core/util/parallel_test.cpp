// parallel_for on the shared workers: every index once, whatever calls it -- loops one after
// another, a loop inside a loop (the pool is busy: threads of its own), loops from several
// threads at once (one gets the pool, the others threads of their own).
#include <atomic>
#include <chrono>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/util/parallel.h"
#include "core/util/thread_limit.h"
#include "core/util/thread_pool.h"

namespace pl {
namespace {

// Counts how often each index was visited; every count must be one.
void expect_each_once(size_t n, const std::function<void(std::function<void(size_t, size_t)>)>& loop) {
  std::vector<std::atomic<int>> seen(n);
  loop([&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) seen[i].fetch_add(1);
  });
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
}

TEST(Parallel, EveryIndexOnceLoopAfterLoop) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{1} << 16, (size_t{1} << 20) + 7})
    for (int round = 0; round < 20; ++round) expect_each_once(n, [&](auto body) { parallel_for(n, 0, body); });
}

TEST(Parallel, ALoopInsideALoopRunsOnThreadsOfItsOwn) {
  const size_t outer = 8, inner = size_t{1} << 16;
  std::vector<std::atomic<int>> seen(outer * inner);
  parallel_for(
      outer, 0,
      [&](size_t b, size_t e) {
        for (size_t o = b; o < e; ++o)
          parallel_for(inner, 0, [&](size_t ib, size_t ie) {
            for (size_t i = ib; i < ie; ++i) seen[o * inner + i].fetch_add(1);
          });
      },
      1);
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1) << i;
}

TEST(Parallel, LoopsFromSeveralThreadsAtOnce) {
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        const size_t n = size_t{1} << 15;
        std::vector<std::atomic<int>> seen(n);
        parallel_for(n, 0, [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) seen[i].fetch_add(1);
        });
        for (size_t i = 0; i < n; ++i) failures += seen[i].load() != 1;
      }
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
}

// The pool declines a caller that is one of its own workers (a task that parallelises again).
TEST(Parallel, ThePoolDeclinesItsOwnWorkers) {
  std::atomic<int> declined{0}, ran{0};
  const bool used = run_on_pool(64, [&](size_t) {
    ran.fetch_add(1);
    if (!run_on_pool(2, [](size_t) {})) declined.fetch_add(1);
  });
  if (!used) GTEST_SKIP() << "one hardware thread: no pool";
  EXPECT_EQ(ran.load(), 64);
  EXPECT_EQ(declined.load(), 64);  // the caller's own tasks too: the pool is busy with them
}

// A task that throws on the calling thread: the exception comes out once the workers are done
// with the loop (they still read it), and the pool serves the next loop.
TEST(Parallel, AnExceptionWaitsForTheWorkersAndLeavesThePoolUsable) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread: no pool";
  std::atomic<int> ran{0};
  EXPECT_THROW(run_on_pool(2,
                           [&](size_t t) {
                             ran.fetch_add(1);
                             if (t == 0) throw std::runtime_error("task 0");
                           }),
               std::runtime_error);
  EXPECT_GE(ran.load(), 1);
  expect_each_once(size_t{1} << 16, [&](auto body) { parallel_for(size_t{1} << 16, 0, body); });
}

// A task that throws on a worker (std::bad_alloc in a chunk): the caller rethrows it once every
// worker is back. Escaping the worker's thread, it would end the process in std::terminate.
TEST(Parallel, AnExceptionOnAWorkerIsRethrownOnTheCaller) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread: no pool";
  const std::thread::id caller = std::this_thread::get_id();
  for (int round = 0; round < 20; ++round) {
    EXPECT_THROW(
        run_on_pool(8,
                    [&](size_t) {
                      if (std::this_thread::get_id() != caller) throw std::bad_alloc();
                      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // leaves tasks to the workers
                    }),
        std::bad_alloc);
  }
  expect_each_once(size_t{1} << 16, [&](auto body) { parallel_for(size_t{1} << 16, 0, body); });
}

// A loop inside a loop runs on threads of its own (the pool is busy); a chunk's exception there
// is rethrown too, on the chunk that started the loop and so on the outer caller.
TEST(Parallel, AnExceptionInALoopInsideALoopComesOut) {
  if (hardware_threads() < 2) GTEST_SKIP() << "one hardware thread: every loop runs on one";
  const size_t outer = 4, inner = size_t{1} << 16;
  EXPECT_THROW(parallel_for(
                   outer, 0,
                   [&](size_t, size_t) {
                     parallel_for(inner, 0, [&](size_t b, size_t) {
                       if (b > 0) throw std::bad_alloc();  // a chunk other than the caller's
                     });
                   },
                   1),
               std::bad_alloc);
  EXPECT_THROW(parallel_for(inner, 0,
                            [&](size_t b, size_t) {
                              if (b > 0) throw std::runtime_error("later chunk");
                            }),
               std::runtime_error);
  expect_each_once(size_t{1} << 16, [&](auto body) { parallel_for(size_t{1} << 16, 0, body); });
}

// The threads a loop ran on (by id), a loop inside each of its chunks included.
std::set<std::thread::id> threads_used(size_t outer, size_t inner) {
  std::mutex lock;
  std::set<std::thread::id> ids;
  parallel_for(
      outer, 0,
      [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i)
          parallel_for(
              inner, 0,
              [&](size_t, size_t) {
                const std::lock_guard hold(lock);
                ids.insert(std::this_thread::get_id());
              },
              1);
      },
      1);
  return ids;
}

// A run's "threads" (thread_limit.h): the loops under a ThreadLimit, and the loops inside their
// chunks, run on at most that many threads; without one they use every core.
TEST(ThreadLimit, LoopsAndTheLoopsInsideThemStayWithinTheCap) {
  if (hardware_threads() < 2) GTEST_SKIP() << "one hardware thread: every loop runs on one";
  EXPECT_GE(threads_used(8, 64).size(), 2u);  // uncapped: the pool, and threads of the inner loops
  {
    const ThreadLimit one(1);
    EXPECT_EQ(threads_used(8, 64).size(), 1u);
    EXPECT_EQ(allowed_threads(0), 1u);
    EXPECT_EQ(allowed_threads(8), 1u);
  }
  {
    const ThreadLimit two(2);
    for (int round = 0; round < 20; ++round) EXPECT_LE(threads_used(8, 64).size(), 2u);
    expect_each_once(size_t{1} << 18, [&](auto body) { parallel_for(size_t{1} << 18, 0, body); });
  }
  EXPECT_EQ(thread_limit(), 0u);  // put back
}

TEST(ThreadLimit, NeverWidensTheCapItIsMadeUnderAndPutsItBack) {
  EXPECT_EQ(thread_limit(), 0u);
  {
    const ThreadLimit outer(3);
    EXPECT_EQ(thread_limit(), 3u);
    {
      const ThreadLimit wider(8);
      EXPECT_EQ(thread_limit(), 3u);
      const ThreadLimit none(0);
      EXPECT_EQ(thread_limit(), 3u);
      const ThreadLimit narrower(2);
      EXPECT_EQ(thread_limit(), 2u);
      EXPECT_EQ(share_of_limit(2), 1u);
      EXPECT_EQ(share_of_limit(5), 1u);  // at least one
    }
    EXPECT_EQ(thread_limit(), 3u);
  }
  EXPECT_EQ(thread_limit(), 0u);
  EXPECT_EQ(share_of_limit(4), 0u);  // no cap to share
  EXPECT_EQ(allowed_threads(0), hardware_threads());
}

}  // namespace
}  // namespace pl
