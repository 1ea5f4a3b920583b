// keep_freed_memory(): an array the size an experiment makes, freed and made again, comes back
// without the kernel faulting its pages in anew (glibc's default returns it to the kernel).
// NoInitVector: making a large array writes none of it (so its pages are first touched by the
// loop that fills it, on every core), while a value given to construct with is still written.
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/util/allocator.h"
#include "core/util/no_init_vector.h"
#include "core/util/sanitized.h"
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
#if PL_SANITIZED
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

TEST(NoInitVector, MakingALargeArrayTouchesNoneOfItsPages) {
#if PL_SANITIZED
  GTEST_SKIP() << "a sanitizer's allocator writes its shadow memory for every allocation";
#endif
  // 256 MB: more than any array this test binary made and freed before (a fresh mapping, or
  // heap the kernel has not faulted in), so std::vector's zeroing would fault in all 65536 pages.
  constexpr size_t kValues = size_t{1} << 25;
  const long before = minor_faults();
  NoInitVector<double> v(kValues);
  const long made = minor_faults() - before;
  v.front() = 1.0, v.back() = 2.0;
  EXPECT_LT(made, 64) << "pages faulted in by making the array";
  EXPECT_EQ(v.size(), kValues);
  EXPECT_EQ(v.front() + v.back(), 3.0);
}

TEST(NoInitVector, AValueGivenIsWritten) {
  NoInitVector<double> zeros(4096, 0.0);
  EXPECT_TRUE(std::all_of(zeros.begin(), zeros.end(), [](double x) { return x == 0.0; }));
  NoInitVector<uint8_t> bytes{1, 2, 3};
  bytes.resize(6, 7);
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), (std::vector<uint8_t>{1, 2, 3, 7, 7, 7}));
  const std::vector<double> from = {0.5, -1.5};
  const NoInitVector<double> copied(from.begin(), from.end());
  EXPECT_EQ(copied[0], 0.5);
  EXPECT_EQ(copied[1], -1.5);
}

}  // namespace
}  // namespace pl
