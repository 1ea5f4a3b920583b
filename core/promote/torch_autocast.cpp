#include "core/promote/torch_autocast.h"

#include <string>
#include <vector>

#include "core/promote/torch_names.h"

namespace pl::promote::torch {
namespace {

// at::autocast::is_autocast_eligible + is_eligible: a floating-point tensor, not float64.
bool eligible(const Operand& x) {
  return x.kind != OperandKind::Scalar && is_float(x.dtype) && x.dtype != DType::float64 &&
         x.dtype != DType::tf32;
}

}  // namespace

AutocastPolicy autocast_cpu_policy(Op op) {
  switch (op) {
    case Op::Matmul:
    case Op::Mm:
    case Op::Bmm:
    case Op::Addmm:
    case Op::Linear:
    case Op::Conv1d:
    case Op::Conv2d:
      return AutocastPolicy::LowerPrecision;
    default:
      return AutocastPolicy::Untouched;
  }
}

Outcome evaluate_autocast_cpu(Op op, Operand a, Operand b, std::optional<DType> bias) {
  if (autocast_cpu_policy(op) == AutocastPolicy::Untouched) {
    Outcome o = evaluate(op, a, b, bias);
    if (!o.rule.empty()) o.rule = "Autocast leaves " + std::string(op_name(op)) + " alone. " + o.rule;
    return o;
  }
  if (!has_dtype(a.dtype) || !has_dtype(b.dtype) || (bias && !has_dtype(*bias)))
    return evaluate(op, a, b, bias);  // the AttributeError, as without autocast
  // cached_cast walks the arguments in the op's signature order: addmm(self=bias, mat1, mat2).
  Operand c{bias.value_or(DType::float32)};
  std::vector<Operand*> args = {&a, &b};
  if (bias) args.insert(op == Op::Addmm ? args.begin() : args.end(), &c);
  std::string cast;
  for (Operand* x : args) {
    if (!eligible(*x) || x->dtype == DType::bfloat16) continue;
    const Outcome to = evaluate(Op::To, *x, {DType::bfloat16});
    if (!to.ok()) return to;  // the cast itself fails (a format with no copy kernel)
    cast += (cast.empty() ? "" : ", ") + std::string(python_name(x->dtype));
    x->dtype = DType::bfloat16;
  }
  if (bias) bias = c.dtype;
  Outcome o = evaluate(op, a, b, bias);
  std::string why = "Autocast (CPU, bfloat16) runs " + std::string(op_name(op)) + " in bfloat16";
  why += cast.empty() ? ": no input needed a cast" : ": it casts the " + cast + " input(s) to bfloat16";
  why += "; float64 and non-float tensors are never cast. ";
  o.rule = why + o.rule;
  return o;
}

}  // namespace pl::promote::torch
