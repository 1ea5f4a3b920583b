// precision-lab bench --op product: the bare matrix product on a backend, as the GPU check
// records it -- each dtype's n x n x n product (the library path users get: cuBLASLt on CUDA,
// OpenBLAS on the CPU, or the accumulation model given), timed on the device's own clock
// (median after warm-up, rotating operand copies on a GPU), in TFLOP/s and as a share of the
// device's published peak for that dtype.
#pragma once

#include <string>
#include <vector>

#include "core/backend/backend_choice.h"

namespace pl::cli {

struct ProductBenchArgs {
  BackendChoice backend = BackendChoice::Auto;
  std::vector<std::string> dtypes;
  std::vector<size_t> sizes;
  std::string accumulate;  // empty: the dtype's default (f64:blas, f32:blas, i32)
  bool fast_accumulation = false;
  int reps = 20;
  bool json = false;
};

int run_product_bench(const ProductBenchArgs& a);

}  // namespace pl::cli
