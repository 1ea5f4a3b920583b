// PyTorch's dtype rules, reproduced: type promotion, result_type with operand
// categories, and what common operations return or raise on the CPU.
//
// Reproduces PyTorch 2.15.0 (CPU build), checked cell by cell against tables
// recorded from the real library (tests/data/promotion/gen_torch.py). The
// rules follow c10/core/ScalarType.cpp (promoteTypes), aten/src/ATen/native/
// TypeProperties.cpp (result_type, combine_categories), TensorIterator's CPU
// casting, and each kernel's AT_DISPATCH list; each function says which.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "core/promote/outcome.h"

namespace pl::promote::torch {

inline constexpr std::string_view kVersion = "2.15.0";

enum class Op : uint8_t {
  Add, Sub, Mul, Div,           // elementwise; div is true division
  Matmul, Mm, Bmm, Addmm,       // matrix products (addmm: bias + a @ b)
  Linear, Conv1d, Conv2d,       // torch.nn.functional, optional bias
  To,                           // a.to(b's dtype)
};
inline constexpr int kOpCount = 12;

std::string_view op_name(Op op);
std::optional<Op> parse_op(std::string_view name);
bool op_is_elementwise(Op op);
bool op_takes_bias(Op op);  // addmm, linear, conv1d, conv2d

// torch.promote_types(a, b).
Outcome promote_types(DType a, DType b);

// torch.result_type over the operands, in order.
Outcome result_type(std::span<const Operand> operands);

// What op(a, b[, bias]) returns or raises on the CPU. Matrix ops, convolutions and .to()
// are modelled for dimensioned tensors only (other kinds give an outcome whose error_type
// is "precision-lab", never a made-up PyTorch message); `bias` is the bias dtype.
Outcome evaluate(Op op, Operand a, Operand b, std::optional<DType> bias = std::nullopt);

}  // namespace pl::promote::torch
