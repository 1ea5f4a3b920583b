// PL_SANITIZED: 1 when this translation unit is built under AddressSanitizer or ThreadSanitizer,
// by GCC (which defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__) or clang (which says so
// only through __has_feature). Their allocators replace glibc's, so what a test measures of
// glibc's (page faults, mallopt) does not hold there.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PL_SANITIZED 1
#endif
#endif
#ifndef PL_SANITIZED
#define PL_SANITIZED 0
#endif
