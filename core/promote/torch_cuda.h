// PyTorch 2.15.0 on a CUDA device, for the float types a model is trained in: float16,
// bfloat16, float32, float64 (tensors and bias; a Python scalar of any category may join them).
// Other tensor dtypes answer "not modelled" (error type "precision-lab").
//
// Checked cell by cell against PyTorch 2.11.0 recorded on an H100 (
// assets/promotion/torch2.11_cuda.json; 1,572 modelled cells, all equal but for the one
// documented 2.11 -> 2.15 change, tests/core/promote/torch_promotion_test.cpp). What CUDA does
// differently from the CPU there:
//  - promotion (elementwise ops) is device-independent (c10 promoteTypes, TensorIterator), but
//    CUDA has complex32 kernels the CPU lacks: float16 with a complex Python scalar divides
//    (complex32) where the CPU raises '"div_cpu" not implemented for 'ComplexHalf''. bfloat16
//    with a complex scalar is bcomplex32 in 2.15, unrecorded on CUDA: not modelled;
//  - mm, matmul and linear without a bias reach addmm_out_cuda_impl (ATen/native/cuda/Blas.cpp),
//    whose check reads "expected mat1 and mat2 to have the same dtype" where the CPU's reads
//    "m1 and m2"; with a bias, addmm's and linear's own checks come first, as on the CPU;
//  - bmm's CUDA kernel checks its second operand: "expected scalar type Float but found Half";
//  - conv1d/conv2d check the bias dtype in their frontend (the CPU text), then the cuDNN path
//    calls check_input_same_type_as_parameters (Convolution.cpp), which prints each tensor's
//    type: its legacy name where one exists ("torch.cuda.FloatTensor"), else Backend +
//    ScalarType + "Type" ("CUDABFloat16Type"), as users report from GPUs, e.g. "Input type
//    (torch.cuda.FloatTensor) and weight type (CUDABFloat16Type) should be the same"
//    (github.com/AnswerDotAI/byaldi/issues/48, KimMeen/Time-LLM/issues/138).
// The 2.11 recording also shows 97 cells of other dtypes where a kernel's device-side assert is
// the outcome (77 with float4_e2m1fn_x2, 20 with complex32 against a float8 zero-dim tensor).
#pragma once

#include <optional>

#include "core/promote/torch_engine.h"

namespace pl::promote::torch {

// Does the CUDA model cover this dtype? float16, bfloat16, float32, float64.
bool cuda_models_dtype(DType t);

// op(a, b[, bias]) with every tensor on a CUDA device (cuDNN available, as on any GPU build).
Outcome evaluate_cuda(Op op, Operand a, Operand b, std::optional<DType> bias = std::nullopt);

}  // namespace pl::promote::torch
