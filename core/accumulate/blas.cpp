#include "core/accumulate/blas.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "core/util/thread_limit.h"

namespace pl::blas {
namespace {
blasint as_int(size_t n) { return static_cast<blasint>(n); }

// OpenBLAS's idle workers spin (sched_yield in a loop) for 2^28 TSC cycles, ~0.1 s, after every
// call before they sleep. Precision Lab follows each product with its own two-thread analysis,
// and on a two-core machine a spinning worker takes one of those cores: the error statistics
// after an sgemm ran at about two thirds of their speed. 2^20 cycles (~0.3 ms) still keeps
// back-to-back calls warm. OPENBLAS_THREAD_TIMEOUT says so, but the library reads it once, in
// its constructor, before main(); so it is set here, the library is asked to read its
// environment again (openblas_read_env) and its workers are stopped (blas_thread_shutdown_)
// so that the next call starts them with the new timeout (both exported by OpenBLAS 0.3.x,
// looked up rather than linked so another BLAS build simply skips this). A timeout the user
// set is left alone; one OpenBLAS reads as unset (OPENBLAS_THREAD_TIMEOUT= with nothing after
// it) is not, since the workers would spin the default 2^28 cycles. Runs once, before the
// first call, while no other thread is in the library.
constexpr const char* kThreadTimeout = "20";
std::string g_thread_timeout;  // what the workers run with; "" when unknown (left alone)

// True for the call that stopped the workers (their next start takes the new timeout).
bool configure_threads() {
  static std::once_flag once;
  bool stopped = false;
  std::call_once(once, [&stopped] {
    if (auto user = user_thread_timeout(std::getenv("OPENBLAS_THREAD_TIMEOUT"))) {
      g_thread_timeout = std::to_string(*user);
      return;
    }
    auto reread = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "openblas_read_env"));
    auto stop = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"));
    if (!reread || !stop) return;
    setenv("OPENBLAS_THREAD_TIMEOUT", kThreadTimeout, 1);
    reread();
    stop();
    stopped = true;
    g_thread_timeout = kThreadTimeout;
  });
  return stopped;
}

// OpenBLAS 0.3.21 has one thread count for the whole process (openblas_set_num_threads; the
// per-call openblas_set_num_threads_local came in 0.3.27), so a call made under a ThreadLimit
// (thread_limit.h) lowers it for that call and puts it back. Every call holds this lock, so
// none runs while another has changed the count; OpenBLAS's pthread build runs one call at a
// time on its workers anyway.
std::mutex g_calls;

template <typename Call>
void call_within_thread_limit(Call&& call) {
  configure_threads();
  static const int all = openblas_get_num_threads();  // OPENBLAS_NUM_THREADS, else the cores
  const std::lock_guard hold(g_calls);
  const unsigned cap = thread_limit();
  const bool lower = cap && static_cast<int>(cap) < all;
  struct PutBack {
    bool lowered;
    ~PutBack() {
      if (lowered) openblas_set_num_threads(all);
    }
  } put_back{lower};
  if (lower) openblas_set_num_threads(static_cast<int>(cap));
  call();
}
}  // namespace

void quiet_idle_workers() {
  if (configure_threads()) return;  // (it has just stopped them)
  auto stop = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"));
  if (!stop) return;
  const std::lock_guard hold(g_calls);  // (never while a product runs)
  stop();
}

void gemm_nt(size_t m, size_t n, size_t k, const double* a, const double* b, double* c) {
  call_within_thread_limit([&] {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, as_int(m), as_int(n), as_int(k), 1.0, a, as_int(k), b,
                as_int(k), 0.0, c, as_int(n));
  });
}

void gemm_nt(size_t m, size_t n, size_t k, const float* a, const float* b, float* c) {
  call_within_thread_limit([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, as_int(m), as_int(n), as_int(k), 1.0f, a, as_int(k), b,
                as_int(k), 0.0f, c, as_int(n));
  });
}

std::optional<int> user_thread_timeout(const char* env) {
  if (!env) return std::nullopt;
  const int cycles_log2 = std::atoi(env);
  if (cycles_log2 <= 0) return std::nullopt;
  return std::clamp(cycles_log2, 4, 30);
}

Info info() {
  configure_threads();
  Info i;
  i.core = openblas_get_corename();
  i.config = openblas_get_config();
  if (const char* env = std::getenv("OPENBLAS_CORETYPE")) i.coretype_env = env;
  {
    const std::lock_guard hold(g_calls);  // (not while a capped call has lowered the count)
    i.threads = openblas_get_num_threads();
  }
  if (const unsigned cap = thread_limit(); cap && static_cast<int>(cap) < i.threads)
    i.threads = static_cast<int>(cap);  // what a call made from here uses
  i.thread_timeout = g_thread_timeout;
  return i;
}

CpuVectors cpu_vectors() {
  __builtin_cpu_init();
  CpuVectors v;
  v.avx2 = __builtin_cpu_supports("avx2");
  v.fma = __builtin_cpu_supports("fma");
  v.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  return v;
}

std::string core_advice(std::string_view core, const CpuVectors& v) {
  // OpenBLAS 0.3.21's x86-64 families with AVX2 and FMA kernels (driver/others/dynamic.c).
  for (std::string_view modern : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"})
    if (core == modern) return "";
  const char* better = v.avx512 ? "SkylakeX" : (v.avx2 && v.fma) ? "Haswell" : nullptr;
  if (!better) return "";
  return "OpenBLAS runs its " + std::string(core) + " kernels on a CPU with " +
         (v.avx512 ? "AVX-512" : "AVX2 and FMA") + " (a virtual machine's CPUID, often): start " +
         "the program with OPENBLAS_CORETYPE=" + better + " for the faster ones";
}

std::string describe(const Info& i) {
  std::string s = i.config + ", core " + i.core + ", " + threads_text(static_cast<unsigned>(i.threads));
  if (!i.coretype_env.empty()) s += " (OPENBLAS_CORETYPE=" + i.coretype_env + ")";
  if (!i.thread_timeout.empty()) s += ", idle after 2^" + i.thread_timeout + " cycles";
  return s;
}

}  // namespace pl::blas
