#include "core/util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace pl {
namespace {

thread_local bool is_worker = false;

class Pool {
 public:
  explicit Pool(unsigned workers) {
    for (unsigned w = 0; w < workers; ++w) threads_.emplace_back([this, w] { serve(w + 1); });
  }

  bool run(size_t count, const std::function<void(size_t)>& task) {
    if (is_worker || threads_.empty()) return false;
    std::unique_lock busy(busy_, std::try_to_lock);
    if (!busy) return false;
    {
      std::lock_guard hold(lock_);
      task_ = &task;
      count_ = count;
      next_ = threads_.size() + 1;  // past the tasks given out by seat
      unfinished_ = threads_.size();
      ++generation_;
    }
    wake_.notify_all();
    // Task 0 here and task w + 1 on worker w, then any left to whoever is free: a seat each,
    // since a worker still waking must not find its task taken by the caller (which would then
    // run the loop's halves one after the other).
    std::exception_ptr failed;  // the workers still hold `task`: wait for them before it goes
    try {
      if (count > 0) task(0);
      take_tasks(task, count);
    } catch (...) {
      next_ = count;
      failed = std::current_exception();
    }
    std::unique_lock hold(lock_);
    done_.wait(hold, [&] { return unfinished_ == 0; });  // every worker is back: none still reads task
    task_ = nullptr;
    const std::exception_ptr on_worker = std::exchange(worker_failed_, nullptr);
    if (failed || on_worker) std::rethrow_exception(failed ? failed : on_worker);
    return true;
  }

 private:
  void take_tasks(const std::function<void(size_t)>& task, size_t count) {
    for (size_t i; (i = next_.fetch_add(1)) < count;) task(i);
  }

  void serve(size_t seat) {
    is_worker = true;
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(size_t)>* task;
      size_t count;
      {
        std::unique_lock hold(lock_);
        wake_.wait(hold, [&] { return generation_ != seen; });
        seen = generation_;
        task = task_;
        count = count_;
      }
      // A task's exception (std::bad_alloc) is the caller's to rethrow: escaping this thread
      // it would end the process. The tasks not yet taken are skipped.
      std::exception_ptr failed;
      try {
        if (seat < count) (*task)(seat);
        take_tasks(*task, count);
      } catch (...) {
        next_ = count;
        failed = std::current_exception();
      }
      std::lock_guard hold(lock_);
      if (failed && !worker_failed_) worker_failed_ = failed;
      if (--unfinished_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex busy_;  // held by the caller whose tasks run
  std::mutex lock_;  // guards what follows (next_ is taken without it)
  std::condition_variable wake_, done_;
  const std::function<void(size_t)>* task_ = nullptr;
  std::exception_ptr worker_failed_;  // the first task that threw on a worker
  size_t count_ = 0, unfinished_ = 0;
  uint64_t generation_ = 0;
  std::atomic<size_t> next_{0};
};

}  // namespace

bool run_on_pool(size_t count, const std::function<void(size_t)>& task) {
  // Never destroyed: the workers wait on it until the process ends (a pool destroyed at exit
  // could still be in use by a thread that outlives main).
  static Pool* const pool = new Pool(std::max(1u, std::thread::hardware_concurrency()) - 1);
  // PRECISION_LAB_NO_POOL=1: threads started for every loop, as before the pool (to compare).
  static const bool off = std::getenv("PRECISION_LAB_NO_POOL") != nullptr;
  return !off && pool->run(count, task);
}

}  // namespace pl
