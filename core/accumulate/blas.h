// The CPU backend's library products: OpenBLAS (Debian's libopenblas, pthread build) for
// float64 and float32 matrices. Which kernel OpenBLAS runs depends on the CPU it detects, or
// on OPENBLAS_CORETYPE when set; it changes both speed and the bits of a float32 product
// (blocking order, FMA), so every result records it. So does the thread count (a run's
// ThreadLimit, thread_limit.h): sgemm sums an element with another kernel when its rows are
// split otherwise (96 x 80 x 200: 1,033 of 7,680 sums differ between one thread and two).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pl::blas {

// Stops OpenBLAS's idle workers now (after setting their shorter idle timeout, blas.cpp); the
// next product starts them again. OpenBLAS starts them when it is loaded, and they spin
// (sched_yield in a loop) for about 0.1 s before they sleep: on a two-core machine a core the
// program's own threads do not get for its first tenth of a second (a checkpoint scan of 0.5 s
// lost a fifth of its second core to it). main() calls it at its start.
void quiet_idle_workers();

// C (m x n) = A (m x k) * B^T, with B stored n x k; all row-major.
void gemm_nt(size_t m, size_t n, size_t k, const double* a, const double* b, double* c);
void gemm_nt(size_t m, size_t n, size_t k, const float* a, const float* b, float* c);

struct Info {
  std::string core;            // openblas_get_corename(): the kernel family running, e.g. "Haswell"
  std::string config;          // openblas_get_config(): version and build options
  std::string coretype_env;    // OPENBLAS_CORETYPE as set in the environment ("" when unset)
  int threads = 0;             // what a call from the calling thread uses (its ThreadLimit, thread_limit.h)
  std::string thread_timeout;  // OPENBLAS_THREAD_TIMEOUT the workers run with: they sleep after
                               // 2^this cycles idle ("" when the library was left as it was)
};
Info info();

// The CPU's vector units, as GCC's __builtin_cpu_supports reads them.
struct CpuVectors {
  bool avx2 = false, fma = false;
  bool avx512 = false;  // F, BW, DQ and VL: what OpenBLAS's SkylakeX kernels use
};
CpuVectors cpu_vectors();

// OpenBLAS's DYNAMIC_ARCH picks its kernel family from the CPUID model; a virtual machine that
// hides the model gets an old one (the lent H100 machine's Xeon ran "Prescott", SSE3 kernels). When `core` is older
// than what `v` allows, the advice naming the family to set with OPENBLAS_CORETYPE (read at the library's load, so
// before the program starts); empty otherwise.
std::string core_advice(std::string_view core, const CpuVectors& v);

// The idle timeout OpenBLAS 0.3.x takes from an OPENBLAS_THREAD_TIMEOUT value, as its
// openblas_env.c and blas_server.c read it: atoi(), a positive value clamped to [4, 30]; an
// empty, zero, negative or non-numeric value means "unset" (the 2^28-cycle default), so it is
// no reason to leave the library alone. nullopt for those and for a null pointer.
std::optional<int> user_thread_timeout(const char* env);
std::string describe(const Info& i);  // "OpenBLAS 0.3.21 ... core Haswell, 2 threads"

}  // namespace pl::blas
