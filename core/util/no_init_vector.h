// A std::vector whose new elements start uninitialised, for the large arrays that a parallel
// loop fills right after they are made.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace pl {

// std::allocator, except that value-initialising an element -- what vector(n) and resize(n) do
// -- leaves it default-initialised: nothing written, for a trivial type. Every other
// construction is std::allocator's.
//
// Why: std::vector<double>(n) zeroes its n elements on the calling thread before the loop that
// fills them on every core. On fresh pages that zeroing is also where the kernel faults each
// page in, one at a time: several times the cost of the memset itself, tens of milliseconds
// for a 4096^2 float64 array, and it does not shrink with more cores -- an H100 host's 16 took
// 111 ms to quantise two 4096^2 operands (docs/gpu-results/). Left uninitialised, the
// array's first touch is the parallel fill's, each core faulting in its own share.
template <typename T>
class NoInitAllocator : public std::allocator<T> {
 public:
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };

  NoInitAllocator() noexcept = default;
  template <typename U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}

  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;  // default-, not value-initialised
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T, typename U>
bool operator==(const NoInitAllocator<T>&, const NoInitAllocator<U>&) noexcept {
  return true;
}

// vector(n) and resize(n) leave the new elements to be written: every one must be, before it is
// read (the callers' parallel loops write each element exactly once).
template <typename T>
using NoInitVector = std::vector<T, NoInitAllocator<T>>;

}  // namespace pl
