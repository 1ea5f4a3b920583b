#include "core/backend/blas.h"

#include <cblas.h>

#include <cstdlib>

namespace pl::blas {
namespace {
blasint as_int(size_t n) { return static_cast<blasint>(n); }
}  // namespace

void gemm_nt(size_t m, size_t n, size_t k, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, as_int(m), as_int(n), as_int(k), 1.0, a,
              as_int(k), b, as_int(k), 0.0, c, as_int(n));
}

void gemm_nt(size_t m, size_t n, size_t k, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, as_int(m), as_int(n), as_int(k), 1.0f, a,
              as_int(k), b, as_int(k), 0.0f, c, as_int(n));
}

Info info() {
  Info i;
  i.core = openblas_get_corename();
  i.config = openblas_get_config();
  if (const char* env = std::getenv("OPENBLAS_CORETYPE")) i.coretype_env = env;
  i.threads = openblas_get_num_threads();
  return i;
}

std::string describe(const Info& i) {
  std::string s = i.config + ", core " + i.core + ", " + std::to_string(i.threads) + " threads";
  if (!i.coretype_env.empty()) s += " (OPENBLAS_CORETYPE=" + i.coretype_env + ")";
  return s;
}

}  // namespace pl::blas
