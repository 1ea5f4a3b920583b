// PL_CLONES: compile a hot loop for AVX2 and for baseline x86-64; the loader picks one at run
// time from the CPU it finds. Off under AddressSanitizer (it does not support ifuncs) and off
// other architectures.
#pragma once

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define PL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PL_CLONES
#endif
