#include "core/util/interrupt.h"

namespace pl {
namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_flag{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "a signal handler may only touch lock-free atomics");

}  // namespace

void note_interrupt(int signal) {
  g_signal.store(signal);
  g_flag.store(true);
}

int interrupt_signal() { return g_signal.load(); }

const std::atomic<bool>* interrupt_flag() { return &g_flag; }

void clear_interrupt() {
  g_signal.store(0);
  g_flag.store(false);
}

}  // namespace pl
