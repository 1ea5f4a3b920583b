// A matrix product as a backend runs it: C (m x n) = A (m x k) * B^T (B stored n x k), the
// operands already values of their dtypes (quantised by the experiment), summed under one of
// accumulate.h's models. The CPU backend runs experiment::gemm; the CUDA backend runs the
// "library" model through cuBLASLt (tensor cores, as users' code does) and the emulated
// models through its own kernels, bit for bit the CPU's.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/accumulate/gemm.h"
#include "core/dtype/dtype.h"

namespace pl {

struct ProductSpec {
  experiment::GemmShape shape;
  DType a = DType::float32, b = DType::float32;  // the dtypes the operands' values are in
  experiment::Accumulation accumulate;
  // Float8 on tensor cores: let partial sums skip the periodic promotion to full float32
  // (CUBLASLT_MATMUL_DESC_FAST_ACCUM). Only the CUDA library path reads it.
  bool fast_accumulation = false;
  // Added to every element's stochastic stream offset (gemm.h): a product that is one of many
  // draws -- the dot sweep's trial t runs as a 1 x 1 product at t << 32, as dot() would.
  uint64_t stream_offset = 0;
};

struct ProductRun {
  std::vector<double> c;      // m x n, row-major, every value in the model's result dtype
  std::string method;         // what ran: "cuBLASLt bf16 x bf16 -> f32 (algo 12, ...)"
  double device_seconds = 0;  // the product alone on the device (0 when not timed)
};

// A product timed on its device: each repetition after warm-up, and their median.
struct ProductTiming {
  std::vector<double> seconds;
  double median = 0;
  std::string method;   // what ran: "cuBLASLt bf16 x bf16 -> f32, CUBLAS_COMPUTE_32F"
  std::string clock;    // how it was timed: "CUDA events, median of 20 after 3 warm-ups, ..."
  bool native = false;  // the device computes in the operands' dtype (not their values as float32)
};

// Progress (fraction of the product done, called from the caller's thread) and cancel.
struct ProductControl {
  std::function<void(double)> progress;
  const std::atomic<bool>* cancel = nullptr;
  // Optional: objects that own a and b and keep them unchanged while they live (an experiment's
  // quantised operands, core/experiment/quantised_cache.h). A device may then keep its copies of
  // a and b for a later call with the very same owners instead of packing and uploading them
  // again (the window re-runs with another accumulation model or output on the same operands).
  std::shared_ptr<const void> a_owner, b_owner;
};

}  // namespace pl
