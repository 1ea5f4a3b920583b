#include "core/util/allocator.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems (features.h)
#include <limits>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pl {

void keep_freed_memory() {
#if defined(__GLIBC__)
  // Arrays of 32 MB and more (a 2048^2 float64 array is exactly 32 MB, and its header puts it
  // over glibc's largest mmap threshold) would still be mapped apart and unmapped when freed:
  // no mapping at all, so they come from the heap and stay there too. Mapped apart, each would be
  // faulted in afresh every run: a 2048^3 experiment's quantise stage would take nearly twice as
  // long, and its time over its BLAS calls would grow too (`bench --op matmul --sizes 2048`;
  // docs/performance.md).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);                         // (in case a later mallopt maps again)
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());  // ~2 GB free at the top before any returns
#endif
}

}  // namespace pl
