// PyTorch 2.15.0 on a CUDA device, for the float types a model is trained in: float16,
// bfloat16, float32, float64 (operands, bias). Other dtypes answer "not modelled" (error type
// "precision-lab"): no CUDA build of PyTorch runs on a GPU here, so those cells could be
// neither recorded nor checked.
//
// Why the modelled cells are trusted without a GPU recording:
//  - promotion (elementwise ops) is device-independent (c10 promoteTypes, TensorIterator);
//  - the dtype checks of mm / addmm / linear are in their structured meta functions
//    (aten/src/ATen/native/LinearAlgebra.cpp, TORCH_META_FUNC(mm) and ADDMM_META), which run
//    before any device kernel, so CUDA prints the texts recorded on the CPU;
//  - conv1d/conv2d check the bias dtype in their frontend (the recorded CPU text), then the
//    cuDNN path calls check_input_same_type_as_parameters (Convolution.cpp), which prints each
//    tensor's type: its legacy name where one exists ("torch.cuda.FloatTensor"), else
//    Backend + ScalarType + "Type" ("CUDABFloat16Type") -- the same rule the recorded CPU texts
//    show ("torch.FloatTensor", "CPUBoolType"), and the texts users report from GPUs, e.g.
//    "Input type (torch.cuda.FloatTensor) and weight type (CUDABFloat16Type) should be the
//    same" (github.com/AnswerDotAI/byaldi/issues/48, KimMeen/Time-LLM/issues/138).
//  - bmm of two different dtypes fails in the CUDA kernel with a text not modelled here.
#pragma once

#include <optional>

#include "core/promote/torch_engine.h"

namespace pl::promote::torch {

// Does the CUDA model cover this dtype? float16, bfloat16, float32, float64.
bool cuda_models_dtype(DType t);

// op(a, b[, bias]) with every tensor on a CUDA device (cuDNN available, as on any GPU build).
Outcome evaluate_cuda(Op op, Operand a, Operand b, std::optional<DType> bias = std::nullopt);

}  // namespace pl::promote::torch
