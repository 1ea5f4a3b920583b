#include "core/util/thread_limit.h"

namespace pl {
namespace {
thread_local unsigned g_cap = 0;
}  // namespace

unsigned thread_limit() { return g_cap; }

ThreadLimit::ThreadLimit(unsigned cap) : saved_(g_cap) {
  if (cap && (!g_cap || cap < g_cap)) g_cap = cap;
}
ThreadLimit::~ThreadLimit() { g_cap = saved_; }

}  // namespace pl
