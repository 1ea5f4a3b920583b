// keep_freed_memory(): an array the size an experiment makes, freed and made again, comes back
// without the kernel faulting its pages in anew (glibc's default returns it to the kernel).
#include <sys/resource.h>

#include <vector>

#include "core/util/allocator.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

long minor_faults() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return r.ru_minflt;
}

TEST(Allocator, FreedArraysAreReusedWithoutPageFaults) {
#if !defined(__GLIBC__)
  GTEST_SKIP() << "not glibc: keep_freed_memory() does nothing here";
#endif
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator replaces glibc's and ignores mallopt";
#endif
  keep_freed_memory();
  constexpr size_t kValues = size_t{1} << 20;  // 8 MB, one 1024 x 1024 float64 matrix
  { std::vector<double> warm(kValues, 1.0); }   // faulted in once, then freed
  const long before = minor_faults();
  for (int i = 0; i < 4; ++i) {
    std::vector<double> again(kValues, 2.0);
    ASSERT_EQ(again[kValues - 1], 2.0);
  }
  // 2048 faults per pass when the pages go back to the kernel (4 KiB pages); a few otherwise.
  EXPECT_LT(minor_faults() - before, 200);
}

}  // namespace
}  // namespace pl
