#include "core/promote/torch_cuda.h"

#include <string>

#include "core/promote/torch_names.h"

namespace pl::promote::torch {
namespace {

Outcome not_modelled(DType t) {
  return Outcome{std::nullopt, "precision-lab",
                 std::string(name(t)) + " is not modelled on CUDA (float16, bfloat16, float32 "
                 "and float64 are)",
                 "No CUDA build of PyTorch ran on a GPU to record this cell, and its kernel "
                 "lists differ from the CPU's."};
}

}  // namespace

bool cuda_models_dtype(DType t) {
  return t == DType::float16 || t == DType::bfloat16 || t == DType::float32 || t == DType::float64;
}

Outcome evaluate_cuda(Op op, Operand a, Operand b, std::optional<DType> bias) {
  for (DType t : {a.dtype, b.dtype, bias.value_or(a.dtype)})
    if (!has_dtype(t)) return evaluate(op, a, b, bias);  // PyTorch's AttributeError
  // Tensors must be of the modelled dtypes; a Python scalar of any category may join them
  // (it is wrapped on the host and only its category counts), as long as the result is.
  for (const Operand* x : {&a, &b})
    if (x->kind != OperandKind::Scalar && !cuda_models_dtype(x->dtype)) return not_modelled(x->dtype);
  if (bias && !cuda_models_dtype(*bias)) return not_modelled(*bias);
  // Device-independent up to here: promotion, meta-function checks, the conv frontend's bias
  // check. Within these four dtypes the CPU kernels never refuse, so the CPU answer is the
  // CUDA answer unless a CUDA-only check comes first.
  Outcome cpu = evaluate(op, a, b, bias);
  if (op == Op::Bmm && a.dtype != b.dtype)
    return Outcome{std::nullopt, "precision-lab",
                   "bmm of " + std::string(name(a.dtype)) + " and " + std::string(name(b.dtype)) +
                       " fails in the CUDA kernel, with a text not modelled here",
                   "Matrix products never promote in PyTorch: both operands must already share "
                   "a dtype."};
  const bool conv = op == Op::Conv1d || op == Op::Conv2d;
  const bool bias_refused = bias && *bias != a.dtype;  // the frontend's check, as on the CPU
  if (conv && !bias_refused && a.dtype != b.dtype)
    return Outcome{std::nullopt, "RuntimeError",
                   "Input type (" + tensor_type_string(a.dtype, /*cuda=*/true) + ") and weight type (" +
                       tensor_type_string(b.dtype, /*cuda=*/true) + ") should be the same",
                   "Convolutions never promote: on a GPU, cuDNN's path checks that input and "
                   "weight share a dtype -- the famous 'Input type and weight type should be the "
                   "same'."};
  if (cpu.ok() && !cuda_models_dtype(*cpu.result)) return not_modelled(*cpu.result);
  return cpu;
}

}  // namespace pl::promote::torch
