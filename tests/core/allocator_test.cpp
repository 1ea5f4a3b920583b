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
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's allocator replaces glibc's and ignores mallopt";
#endif
  keep_freed_memory();
  // 8 MB, one 1024 x 1024 float64 matrix; and 32 MB, a 2048 x 2048 one, which with its header
  // is past glibc's largest mmap threshold (mapped apart, and unmapped when freed, until
  // keep_freed_memory turned mapping off).
  for (const size_t values : {size_t{1} << 20, size_t{1} << 22}) {
    { std::vector<double> warm(values, 1.0); }  // faulted in once, then freed
    const long before = minor_faults();
    for (int i = 0; i < 4; ++i) {
      std::vector<double> again(values, 2.0);
      ASSERT_EQ(again[values - 1], 2.0);
    }
    // values / 512 faults per pass when the pages go back to the kernel (4 KiB pages); a few
    // otherwise.
    EXPECT_LT(minor_faults() - before, 200) << values * 8 / (1 << 20) << " MB";
  }
}

}  // namespace
}  // namespace pl
