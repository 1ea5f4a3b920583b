#include "core/promote/torch_cuda.h"

#include <string>

#include "core/promote/torch_names.h"

namespace pl::promote::torch {
namespace {

Outcome not_modelled(DType t) {
  return Outcome{std::nullopt, "precision-lab",
                 std::string(name(t)) +
                     " is not modelled on CUDA (float16, bfloat16, float32 "
                     "and float64 are)",
                 "Only PyTorch 2.11 was recorded on a GPU (assets/promotion/torch2.11_cuda.json), "
                 "and CUDA's kernel lists differ from the CPU's for the other dtypes."};
}

// Did the CPU answer that its kernel lacks dtype t ('"div_cpu" not implemented for 'ComplexHalf'')?
// CUDA's kernel lists differ, so such an answer is not CUDA's.
bool cpu_kernel_lacks(const Outcome& cpu, DType t) {
  return cpu.error_type == "NotImplementedError" &&
         cpu.message.find("not implemented for '" + std::string(scalar_type_name(t)) + "'") != std::string::npos;
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
  if (op == Op::Bmm && a.dtype != b.dtype)  // the CUDA kernel's check of its second operand
    return Outcome{std::nullopt, "RuntimeError",
                   "expected scalar type " + std::string(scalar_type_name(a.dtype)) + " but found " +
                       std::string(scalar_type_name(b.dtype)),
                   "Matrix products never promote in PyTorch: on a GPU, bmm's kernel checks that "
                   "both operands share the first one's dtype."};
  const bool conv = op == Op::Conv1d || op == Op::Conv2d;
  const bool bias_refused = bias && *bias != a.dtype;  // the frontend's check, as on the CPU
  if (conv && !bias_refused && a.dtype != b.dtype)
    return Outcome{std::nullopt, "RuntimeError",
                   "Input type (" + tensor_type_string(a.dtype, /*cuda=*/true) + ") and weight type (" +
                       tensor_type_string(b.dtype, /*cuda=*/true) + ") should be the same",
                   "Convolutions never promote: on a GPU, cuDNN's path checks that input and "
                   "weight share a dtype -- the famous 'Input type and weight type should be the "
                   "same'."};
  // mm, matmul and a linear without a bias reach addmm_out_cuda_impl (ATen/native/cuda/Blas.cpp),
  // whose dtype check names the operands mat1 and mat2 where the CPU's says m1 and m2.
  const std::string cpu_check = "expected m1 and m2 to have the same dtype";
  if ((op == Op::Mm || op == Op::Matmul || (op == Op::Linear && !bias)) && cpu.message.rfind(cpu_check, 0) == 0)
    return Outcome{std::nullopt, cpu.error_type,
                   "expected mat1 and mat2 to have the same dtype" + cpu.message.substr(cpu_check.size()), cpu.rule};
  // CUDA has complex32 kernels for add, sub, mul and div (recorded: a float16 tensor with a
  // complex Python scalar gives complex32 for all four); the CPU's division has none.
  if (op_is_elementwise(op) && cpu_kernel_lacks(cpu, DType::complex32))
    return returns(DType::complex32,
                   "float16 with a complex Python scalar promotes to complex32, which CUDA's "
                   "kernels compute (the CPU's division has no complex32 kernel).");
  if (cpu.ok() && *cpu.result == DType::complex32 && op_is_elementwise(op)) return cpu;
  // bfloat16 with a complex scalar is bcomplex32 in 2.15, which has no CPU kernels; torch 2.11
  // (recorded) had no bcomplex32 and gave complex64. What 2.15's CUDA kernels do is unrecorded.
  if (cpu_kernel_lacks(cpu, DType::bcomplex32)) return not_modelled(DType::bcomplex32);
  if (cpu.ok() && !cuda_models_dtype(*cpu.result)) return not_modelled(*cpu.result);
  return cpu;
}

}  // namespace pl::promote::torch
