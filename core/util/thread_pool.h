// The worker threads parallel_for runs on: started once (one fewer than the hardware threads:
// the caller is the last), instead of a thread started and joined for every loop, which costs
// tens of microseconds a thread -- about a millisecond over the twenty-odd loops of one
// experiment, a large part of a small one the window re-runs live.
#pragma once

#include <cstddef>
#include <functional>

namespace pl {

// Runs task(0) .. task(count - 1) on the calling thread and the pool's workers, and returns
// true when all have finished. Returns false at once, running nothing, when the pool is busy
// with another caller's tasks or the caller is one of its workers (a loop inside a loop): the
// caller then runs the tasks another way.
bool run_on_pool(size_t count, const std::function<void(size_t)>& task);

}  // namespace pl
