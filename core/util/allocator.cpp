#include "core/util/allocator.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems (features.h)

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pl {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the most glibc accepts on 64-bit systems
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace pl
