// What an exception that reaches the edge of a run says to the user: the CLI's commands, the
// window's worker threads and the thread pool's tasks catch everything there, so that no
// exception ends the process (std::terminate, the window gone) and the user reads why.
#pragma once

#include <exception>
#include <new>
#include <string>

namespace pl {

// The text of `e`: std::bad_alloc says it ran out of memory and what to try.
inline std::string exception_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    return "out of memory: the run asked for more memory than this machine gave (a smaller shape, or closing other "
           "programs, may fit)";
  } catch (const std::exception& x) {
    return std::string("unexpected error: ") + x.what();
  } catch (...) {
    return "unexpected error";
  }
}

}  // namespace pl
