// torch.set_float32_matmul_precision("highest" | "high" | "medium"): what a float32 matrix
// product (and convolution) then computes in, on a CUDA GPU and on the CPU.
//
// The flags each setting switches are recorded from the real library
// (tests/data/promotion/gen_torch_matmul_precision.py: PyTorch 2.15.0 from PyPI and Debian's
// 1.13.1) and checked by tests; what the flags do follows the documentation of
// torch.set_float32_matmul_precision and torch.backends (2.15.0):
//  - CUDA: "high" and "medium" both let cuBLAS run float32 products on TF32 tensor cores
//    (compute capability 8.0 or newer); no setting uses bfloat16 on CUDA. cuDNN's own flag
//    (torch.backends.cudnn.allow_tf32) is on by default, so float32 convolutions run in TF32
//    even under "highest".
//  - CPU (2.x, oneDNN): "high" asks for TF32, which PyTorch uses only on a CPU with AMX-FP16
//    (aten/src/ATen/native/mkldnn/Linear.cpp, use_mkldnn_tf32_linear). "medium" asks for
//    bfloat16: PyTorch hands the product to oneDNN on a CPU with AVX-512 BW/VL/DQ or
//    AVX-NE-CONVERT (mkldnn_bf16_device_check), and oneDNN rounds to bfloat16 only in its AMX
//    kernels (brgemm's is_bf32 asks for avx512_core_amx); elsewhere float32. 1.13 had no CPU
//    switch at all.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/promote/engine.h"
#include "core/promote/torch_engine.h"

namespace pl::promote::torch {

enum class MatmulPrecision : uint8_t { Highest, High, Medium };
std::optional<MatmulPrecision> parse_matmul_precision(std::string_view name);
std::string_view matmul_precision_name(MatmulPrecision p);

struct BackendFlag {
  std::string_view name;  // as read from torch.backends.<name>
  std::string value;      // Python's spelling: "True", "tf32"
};

struct Float32Internals {
  std::vector<BackendFlag> flags;  // what the setting leaves in torch.backends
  DType cuda_matmul;               // what a float32 matmul's operands become on a GPU of compute capability >= 8.0
  DType cuda_conv;                 // the same for a float32 convolution (cuDNN)
  DType cpu_matmul;                // on a CPU with the instructions for it (see cpu_condition)
  std::string cpu_condition;
  std::string rule;  // one sentence
};

Float32Internals float32_internals(MatmulPrecision p, Release r = Release::V2_15);

// Whether the setting bears on this question: a PyTorch engine and a matrix product or
// convolution (the ops whose operand kinds are not modelled, except .to()).
bool matmul_precision_applies(const Engine& e, std::string_view op);
// The release a PyTorch engine reproduces.
Release release_of(const Engine& e);
// What a float32 product or convolution (`op`) then computes in, as lines for a person: the
// CUDA path, the CPU path (products only), the rule and the flags.
std::vector<std::string> describe_internals(std::string_view setting, std::string_view op, const Float32Internals& in);

}  // namespace pl::promote::torch
