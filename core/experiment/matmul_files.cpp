#include "core/experiment/matmul_files.h"

#include "core/io/load.h"

namespace pl::experiment {

Expected<MatmulOperands> load_operands(MatmulSpec& spec) {
  MatmulFiles& f = spec.files;
  MatmulConfig& c = spec.config;
  MatmulOperands ops;
  if (f.input.empty() != f.weight.empty())
    return Error{
        "give both the input and the weight file ('input_file' and 'weight_file', matmul's --a and --b), "
        "or neither (then both are drawn)"};
  if (f.input.empty()) {
    if (!f.bias.empty()) return Error{"a bias file ('bias_file', --bias) needs input and weight files too"};
    return ops;
  }
  auto raw = [&](DType t) { return f.raw ? std::optional<DType>(t) : std::nullopt; };
  auto a = io::load_tensor(f.input, raw(c.input));
  if (!a) return Error{"input: " + a.error()};
  auto b = io::load_tensor(f.weight, raw(c.weight));
  if (!b) return Error{"weight: " + b.error()};
  if (a->shape.size() != 2 || b->shape.size() != 2)
    return Error{"input " + io::shape_text(a->shape) + " and weight " + io::shape_text(b->shape) +
                 " must both be 2-D (slice a larger tensor with @ROWS,COLS)"};
  c.m = a->shape[0];
  c.k = a->shape[1];
  const size_t bk = c.op == MatmulOp::Matmul ? b->shape[0] : b->shape[1];
  c.n = c.op == MatmulOp::Matmul ? b->shape[1] : b->shape[0];
  if (bk != c.k)
    return Error{"the input " + f.input + " " + io::shape_text(a->shape) + " and the weight " + f.weight + " " +
                 io::shape_text(b->shape) + " do not fit: " +
                 (c.op == MatmulOp::Matmul ? "a matmul multiplies an m x k input by a k x n weight"
                                           : "a linear layer takes an m x k input and an n x k weight")};
  ops.a = std::move(a->values);
  ops.b = std::move(b->values);
  if (!f.bias.empty()) {
    if (!c.bias) return Error{"a bias file ('bias_file', --bias) needs a bias dtype ('bias', --bias-dtype)"};
    auto bias = io::load_tensor(f.bias, raw(*c.bias));
    if (!bias) return Error{"bias: " + bias.error()};
    if (bias->values.size() != c.n)
      return Error{"the bias " + f.bias + " " + io::shape_text(bias->shape) + " does not fit " + std::to_string(c.n) +
                   " output columns"};
    ops.bias = std::move(bias->values);
  }
  if (auto st = check(spec); !st) return Error{st.error()};
  return ops;
}

}  // namespace pl::experiment
