// PyTorch 2.11.0 on CUDA as recorded on an NVIDIA H100 80GB HBM3 (CUDA 13.0) by
// tests/data/promotion/gen_torch.py --device cuda: every cell of its tables -- 22 dtypes, the
// four elementwise ops with every recorded operand-kind pair, the matrix products,
// convolutions and .to(), with and without a bias -- answered from the recording
// (assets/promotion/torch2.11_cuda.json, compiled in), texts included. Where the torch-cuda
// model (torch_cuda.h, PyTorch 2.15) says "not modelled", this answers for the release that
// was recorded. 97 cells end in a kernel's device-side assert: that is their outcome.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "core/promote/torch_engine.h"

namespace pl::promote::torch {

inline constexpr std::string_view kRecordedCudaVersion = "2.11.0";

// Does the recording hold this dtype? (2.11 has no bcomplex32.)
bool recorded_cuda_has_dtype(DType t);
// The dtypes PyTorch 2.11 has that the recording leaves out: int4 and uint4.
std::span<const DType> recorded_cuda_unmodelled();

// The recorded outcome of op(a, b[, bias]) with every tensor on the GPU; a combination the
// recording has no table for (a zero-dim operand of a matrix product, a scalar against a
// scalar) answers "not recorded" (error type "precision-lab").
Outcome evaluate_recorded_cuda(Op op, Operand a, Operand b, std::optional<DType> bias = std::nullopt);

}  // namespace pl::promote::torch
