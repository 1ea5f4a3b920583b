// How the process's allocator treats the large arrays experiments make and free every run.
#pragma once

namespace pl {

// glibc returns a freed array of more than a few MB to the kernel (munmap, or a trim of the
// heap's top), so the next run's arrays start as fresh pages the kernel must fault in and zero:
// a 1024 x 1024 experiment makes ~15 such 8 MB arrays, and that cost a fifth of its time. This
// keeps freed memory in the process for reuse (arrays of every size: none is mapped apart; the
// heap is trimmed only past ~2 GB free at its top), at the price of holding the largest run's
// memory until exit. Call once at the start of main(), before threads start; it changes no results.
//
// Not past 64 MB on a thread other than main (the window's experiment worker, the matmul's
// operand threads): glibc gives each such thread its own heap of at most 64 MB, and maps a
// larger array apart whatever this says -- a 4096^2 float64 array is faulted in anew every run,
// tens of milliseconds each time. Sharing main's heap instead (M_ARENA_MAX 1) would make a
// 2048^3 re-run's statistics slower. What helps there is a first touch on every core:
// no_init_vector.h, for the arrays that a parallel loop fills.
void keep_freed_memory();

}  // namespace pl
