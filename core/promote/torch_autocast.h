// PyTorch's autocast on the CPU (torch.autocast("cpu", dtype=torch.bfloat16)) and on CUDA
// (torch.autocast("cuda", dtype=torch.float16 or torch.bfloat16)), reproduced
// for the ops of torch_engine: which ops autocast runs in bfloat16, which inputs it casts
// (floating-point tensors other than float64; float64 stays, and so does everything else),
// and what the op then returns or raises.
//
// PyTorch 2.15.0, aten/src/ATen/autocast_mode.cpp (the CPU lower_precision_fp list) and
// autocast_mode.h (is_eligible, cached_cast); checked cell by cell against tables recorded
// under autocast (tests/data/promotion/gen_torch.py --autocast-cpu), and for 1.13.1 (Debian
// 12's python3-torch), whose CPU autocast casts the same ops and inputs. On CUDA the same seven
// ops are in autocast's lower-precision list (autocast_mode.cpp, KERNEL_CUDA
// lower_precision_fp: matmul, mm, bmm, addmm, linear, conv1d, conv2d), eligibility is the same
// (a floating-point CUDA tensor other than float64), and the op then runs as torch_cuda
// models it. Checked against PyTorch 2.11.0 under CUDA autocast recorded on an H100 in part
// (tests/data/promotion/torch2.11_autocast_cuda*_partial.json: the elementwise tables, the
// two-operand products and most of addmm with a bias; every modelled cell there matches).
#pragma once

#include <optional>

#include "core/promote/torch_engine.h"

namespace pl::promote::torch {

enum class AutocastPolicy : uint8_t {
  LowerPrecision,  // the op runs in the autocast dtype (matmul, linear, convolutions, ...)
  Untouched,       // autocast leaves the op alone (elementwise arithmetic, .to())
};
AutocastPolicy autocast_cpu_policy(Op op);

// op(a, b[, bias]) inside torch.autocast("cpu", dtype=torch.bfloat16), in release `r` (1.13.1
// is recorded the same way, tests/data/promotion/torch1.13_autocast_cpu.json).
Outcome evaluate_autocast_cpu(Op op, Operand a, Operand b, std::optional<DType> bias = std::nullopt,
                              Release r = Release::V2_15, const ConvShape* shape = nullptr);

// op(a, b[, bias]) inside torch.autocast("cuda", dtype=lower), lower float16 or bfloat16.
Outcome evaluate_autocast_cuda(DType lower, Op op, Operand a, Operand b, std::optional<DType> bias = std::nullopt);

}  // namespace pl::promote::torch
