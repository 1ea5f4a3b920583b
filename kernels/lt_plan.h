// Which cuBLASLt GEMM runs a "library" product (AccumKind::Blas, or Int32 for int8), decided
// from the spec alone -- host code without cuBLAS, tested on machines without a GPU.
//
// Same-dtype pairs run the tensor-core path users get from PyTorch: float16 and bfloat16 with
// float32 accumulation, tf32 (CUBLAS_COMPUTE_32F_FAST_TF32), float8 e4m3/e5m2 pairs (sm_89
// and later; e5m2 x e5m2 is not a cuBLASLt combination), int8 -> int32, float16 with float16
// accumulation (CUBLAS_COMPUTE_16F). float32 runs CUBLAS_COMPUTE_32F_PEDANTIC (no TF32, no
// reduced-precision reductions). Any other pair whose values are float32 numbers runs as
// float32, as the CPU backend runs it through sgemm. (cuBLAS 13.0, the toolkit here.)
#pragma once

#include <string>

#include "core/backend/product.h"
#include "core/util/expected.h"
#include "kernels/operand_pack.h"

namespace pl::cuda {

enum class LtCompute : uint8_t { F64, F32Pedantic, F32FastTf32, F32, F16, I32 };
const char* lt_compute_name(LtCompute c);  // "CUBLAS_COMPUTE_32F", ...

struct LtPlan {
  Element input, weight, out;  // storage of the experiment's A (input), B (weight), and of D
  LtCompute compute;
  size_t align = 1;                // m, n, k padded to multiples of this (16 for fp8 and int8)
  int min_compute_capability = 0;  // major * 10 + minor: 89 for fp8
  bool fast_accumulation = false;  // fp8 only
  bool native = true;              // false: the dtypes' values run as float32 (emulation)
  std::string label;               // "bf16 x bf16 -> f32, CUBLAS_COMPUTE_32F"
};

// The plan for a library product, or why cuBLASLt cannot run it.
Expected<LtPlan> plan_library_product(const ProductSpec& s);

}  // namespace pl::cuda
