// cuBLASLt, loaded when the first library product runs (dlopen), not linked: a machine without
// the CUDA libraries still starts the app -- the CPU backend runs everything, and a library
// product on CUDA reports "cuBLASLt not found" and falls back to the CPU. (cudart is linked
// statically for the same reason.)
#pragma once

#include <cublasLt.h>

#include "core/util/expected.h"

namespace pl::cuda {

struct CublasLtApi {
  decltype(&cublasLtCreate) create;
  decltype(&cublasLtDestroy) destroy;
  decltype(&cublasLtGetStatusString) status_string;
  decltype(&cublasLtMatmulDescCreate) desc_create;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set;
  decltype(&cublasLtMatrixLayoutCreate) layout_create;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic;
  decltype(&cublasLtMatmul) matmul;
  decltype(&cublasLtGetVersion) version;
};

// Loaded once per process (libcublasLt.so.13, the major version the headers are); the error
// names the library and dlerror()'s reason.
Expected<const CublasLtApi*> cublaslt_api();

}  // namespace pl::cuda
