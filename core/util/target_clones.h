// PL_CLONES: compile a hot loop for x86-64-v4 (AVX-512), for x86-64-v3 (AVX2 and FMA) and for
// baseline x86-64; the loader picks one at run time from the CPU it finds. (The AVX-512 build of
// the error statistics is about a tenth faster than the AVX2 one on Zen 4.) The FMA the first two
// allow is never used implicitly (-ffp-contract=off, everywhere), only where code asks for a
// fused multiply-add (the float32 GEMM lanes). Off under AddressSanitizer and ThreadSanitizer
// (the loader runs an ifunc's resolver before the sanitizer's runtime is up: a TSan build of the
// core tests crashed in one before main), off under clang (clang 14 takes no target_clones on
// a function template, and defines no __SANITIZE_ADDRESS__ for the fuzz build's ASan: the
// project builds with GCC, clang only for scripts/fuzz.sh) and off other architectures.
#pragma once

#if defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define PL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PL_CLONES
#endif
