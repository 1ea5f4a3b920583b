#include "core/promote/torch_autocast.h"

#include <functional>
#include <string>
#include <vector>

#include "core/promote/torch_cuda.h"
#include "core/promote/torch_names.h"

namespace pl::promote::torch {
namespace {

// at::autocast::is_autocast_eligible + is_eligible: a floating-point tensor, not float64.
bool eligible(const Operand& x) {
  return x.kind != OperandKind::Scalar && is_float(x.dtype) && x.dtype != DType::float64 && x.dtype != DType::tf32;
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
    case Op::Conv2d: return AutocastPolicy::LowerPrecision;
    default: return AutocastPolicy::Untouched;
  }
}

namespace {

using Evaluate = std::function<Outcome(Op, Operand, Operand, std::optional<DType>)>;

// Autocast on `device` ("CPU", "CUDA") to `lower`, with `run` evaluating on that device and
// `has` saying which dtypes its release has.
Outcome evaluate_autocast(std::string_view device, DType lower, const Evaluate& run,
                          const std::function<bool(DType)>& has, Op op, Operand a, Operand b,
                          std::optional<DType> bias) {
  if (autocast_cpu_policy(op) == AutocastPolicy::Untouched) {
    Outcome o = run(op, a, b, bias);
    if (!o.rule.empty()) o.rule = "Autocast leaves " + std::string(op_name(op)) + " alone. " + o.rule;
    return o;
  }
  if (!has(a.dtype) || !has(b.dtype) || (bias && !has(*bias)))
    return run(op, a, b, bias);  // the AttributeError, as without autocast
  // An operand kind the op is not modelled for says so before any cast is tried (a zero-dim
  // operand's own cast is modelled, the op with it is not).
  if (!op_is_elementwise(op) && (a.kind != OperandKind::Tensor || b.kind != OperandKind::Tensor))
    return run(op, a, b, bias);
  // cached_cast walks the arguments in the op's signature order: addmm(self=bias, mat1, mat2).
  Operand c{bias.value_or(DType::float32)};
  std::vector<Operand*> args = {&a, &b};
  if (bias) args.insert(op == Op::Addmm ? args.begin() : args.end(), &c);
  std::string cast;
  const std::string lower_name(python_name(lower));
  for (Operand* x : args) {
    if (!eligible(*x) || x->dtype == lower) continue;
    const Outcome to = run(Op::To, *x, {lower}, std::nullopt);
    if (!to.ok()) return to;  // the cast itself fails (a format with no copy kernel)
    cast += (cast.empty() ? "" : ", ") + std::string(python_name(x->dtype));
    x->dtype = lower;
  }
  if (bias) bias = c.dtype;
  Outcome o = run(op, a, b, bias);
  // It runs in the lower dtype only where every input was cast or already was: float64 stays,
  // integers stay, and a mix raises.
  const bool lowered = o.result == lower;
  std::string why = "Autocast (" + std::string(device) + ", " + lower_name + ") " +
                    (lowered ? "runs " + std::string(op_name(op)) + " in " + lower_name
                             : "casts " + std::string(op_name(op)) + "'s eligible inputs to " + lower_name);
  why += cast.empty() ? ": no input needed a cast" : ": it casts the " + cast + " input(s) to " + lower_name;
  why += "; float64 and non-float tensors are never cast. ";
  o.rule = why + o.rule;
  return o;
}

}  // namespace

Outcome evaluate_autocast_cpu(Op op, Operand a, Operand b, std::optional<DType> bias, Release r,
                              const ConvShape* shape) {
  const auto run = [r, shape](Op o, Operand x, Operand y, std::optional<DType> c) {
    return evaluate(o, x, y, c, r, shape);
  };
  return evaluate_autocast(
      "CPU", DType::bfloat16, run, [r](DType t) { return has_dtype(r, t); }, op, a, b, bias);
}

Outcome evaluate_autocast_cuda(DType lower, Op op, Operand a, Operand b, std::optional<DType> bias) {
  return evaluate_autocast(
      "CUDA", lower, evaluate_cuda, [](DType t) { return has_dtype(t); }, op, a, b, bias);
}

}  // namespace pl::promote::torch
