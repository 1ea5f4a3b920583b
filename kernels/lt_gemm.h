// cuBLASLt products: one handle and workspace for the backend's life, the algorithm picked by
// cuBLASLt's heuristic once per (plan, shape) and cached. Row-major C (m x n) = A (m x k) *
// B^T (B stored n x k) is the column-major D (n x m) = op(B)^T * A with B transposed and A
// not: the "TN" layout that fp8 and int8 tensor-core GEMMs require.
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <string>

#include "core/util/expected.h"
#include "kernels/device_buffer.h"
#include "kernels/lt_plan.h"

namespace pl::cuda {

struct LtShape {
  size_t m = 0, n = 0, k = 0;  // padded to the plan's alignment; ld of A and B is k, of D is n
};

struct LtRun {
  float milliseconds = 0;  // the cublasLtMatmul call alone (CUDA events)
  std::string algorithm;   // "heuristic #0, workspace 4 MiB (cached)"
};

class LtGemm {
 public:
  static Expected<std::unique_ptr<LtGemm>> create();
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  // Device pointers: a (input, m x k), b (weight, n x k), d (m x n) in the plan's elements.
  Expected<LtRun> run(const LtPlan& plan, const LtShape& s, const void* a, const void* b, void* d, cudaStream_t stream);

 private:
  LtGemm() = default;
  struct Cached;
  const struct CublasLtApi* api_ = nullptr;  // loaded at create() (cublaslt_api.h)
  void* handle_ = nullptr;                   // cublasLtHandle_t (kept out of this header)
  DeviceBuffer workspace_;
  std::map<std::string, std::shared_ptr<Cached>> algorithms_;
};

}  // namespace pl::cuda
