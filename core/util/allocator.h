// How the process's allocator treats the large arrays experiments make and free every run.
#pragma once

namespace pl {

// glibc returns a freed array of more than a few MB to the kernel (munmap, or a trim of the
// heap's top), so the next run's arrays start as fresh pages the kernel must fault in and zero:
// a 1024 x 1024 experiment makes ~15 such 8 MB arrays, and that cost a fifth of its time. This
// keeps freed memory in the process for reuse (arrays of every size: none is mapped apart; the
// heap is trimmed only past ~2 GB free at its top), at the price of holding the largest run's
// memory until exit. Call once at the start of main(), before threads start; it changes no results.
void keep_freed_memory();

}  // namespace pl
