#include "kernels/cublaslt_api.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace pl::cuda {
namespace {

// The soname of the major version the headers declare (CUBLAS_VER_MAJOR), then the unversioned
// development link as a last resort.
#define PL_STRINGIFY2(x) #x
#define PL_STRINGIFY(x) PL_STRINGIFY2(x)
const char* const kLibraries[] = {"libcublasLt.so." PL_STRINGIFY(CUBLAS_VER_MAJOR), "libcublasLt.so"};

template <typename F>
bool bind(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, symbol));
  return out != nullptr;
}

Expected<CublasLtApi> load() {
  void* lib = nullptr;
  std::string why;
  for (const char* name : kLibraries) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    why += (why.empty() ? "" : "; ") + std::string(dlerror());
  }
  if (!lib) return Error{"cuBLASLt not found (" + why + ")"};
  CublasLtApi api{};
  const bool ok = bind(lib, "cublasLtCreate", api.create) && bind(lib, "cublasLtDestroy", api.destroy) &&
                  bind(lib, "cublasLtGetStatusString", api.status_string) &&
                  bind(lib, "cublasLtMatmulDescCreate", api.desc_create) &&
                  bind(lib, "cublasLtMatmulDescDestroy", api.desc_destroy) &&
                  bind(lib, "cublasLtMatmulDescSetAttribute", api.desc_set) &&
                  bind(lib, "cublasLtMatrixLayoutCreate", api.layout_create) &&
                  bind(lib, "cublasLtMatrixLayoutDestroy", api.layout_destroy) &&
                  bind(lib, "cublasLtMatmulPreferenceCreate", api.pref_create) &&
                  bind(lib, "cublasLtMatmulPreferenceDestroy", api.pref_destroy) &&
                  bind(lib, "cublasLtMatmulPreferenceSetAttribute", api.pref_set) &&
                  bind(lib, "cublasLtMatmulAlgoGetHeuristic", api.heuristic) &&
                  bind(lib, "cublasLtMatmul", api.matmul) && bind(lib, "cublasLtGetVersion", api.version);
  if (!ok) return Error{"cuBLASLt is missing a function this build needs (" + std::string(dlerror()) + ")"};
  return api;  // the library stays loaded for the process
}

}  // namespace

Expected<const CublasLtApi*> cublaslt_api() {
  static std::once_flag once;
  static Expected<CublasLtApi> api = Error{""};
  std::call_once(once, [] { api = load(); });
  if (!api) return Error{api.error()};
  return &*api;
}

}  // namespace pl::cuda
