// Ctrl-C, SIGTERM and SIGHUP as a request to stop: the front end's signal handler records the
// signal, long work sees it through the cancel flag it already polls, and whatever was being
// written is abandoned on the normal path (nothing half-written is left behind). Safe to call
// from a signal handler: note_interrupt only stores to lock-free atomics.
#pragma once

#include <atomic>

namespace pl {

void note_interrupt(int signal);
// The signal recorded, or 0.
int interrupt_signal();
// A cancel flag that becomes true on an interrupt (the experiments' `cancel` argument).
const std::atomic<bool>* interrupt_flag();
// Clears the record (tests).
void clear_interrupt();

}  // namespace pl
