#include "core/promote/engine.h"

#include <algorithm>
#include <array>

#include "core/promote/torch_engine.h"
#include "core/promote/torch_names.h"

namespace pl::promote {
namespace {

template <typename Pred>
std::vector<std::string_view> torch_ops(Pred keep) {
  std::vector<std::string_view> out;
  for (int i = 0; i < torch::kOpCount; ++i) {
    auto op = static_cast<torch::Op>(i);
    if (keep(op)) out.push_back(torch::op_name(op));
  }
  return out;
}

Outcome torch_evaluate(const Query& q) {
  auto op = torch::parse_op(q.op);
  if (!op) return Outcome{std::nullopt, "ValueError", "unknown op " + q.op, ""};
  return torch::evaluate(*op, q.a, q.b, torch::op_takes_bias(*op) ? q.bias : std::nullopt);
}

std::string torch_spell(DType t) { return "torch." + std::string(torch::python_name(t)); }

const std::array<Engine, 1>& registry() {
  static const std::array<Engine, 1> engines = {
      Engine{"torch", torch::kVersion, "cpu", torch_ops([](torch::Op) { return true; }),
             torch_ops(torch::op_takes_bias), torch_ops(torch::op_is_elementwise),
             torch::has_dtype, torch_spell, torch_evaluate},
  };
  return engines;
}

}  // namespace

std::span<const Engine> engines() { return registry(); }

const Engine* find_engine(std::string_view framework) {
  for (const Engine& e : registry())
    if (e.framework == framework) return &e;
  return nullptr;
}

std::string engine_names() {
  std::string out;
  for (const Engine& e : registry()) out += (out.empty() ? "" : ", ") + std::string(e.framework);
  return out;
}

// The usual attempts, in the order people try them: cast the input to the weight's dtype,
// cast the model (weight and bias) to the input's dtype, or make everything float32.
std::vector<Fix> suggest_fixes(const Engine& engine, const Query& q) {
  std::vector<Fix> fixes;
  auto attempt = [&](std::string code, std::string effect, Query changed) {
    fixes.push_back({std::move(code), std::move(effect), engine.evaluate(changed)});
  };
  const std::string wa = engine.spell(q.a.dtype), wb = engine.spell(q.b.dtype);
  if (q.a.dtype != q.b.dtype) {
    Query x_to_w = q;
    x_to_w.a.dtype = q.b.dtype;
    attempt("x.to(w.dtype)", "x becomes " + wb, x_to_w);
    Query model_to_x = q;
    model_to_x.b.dtype = q.a.dtype;
    if (model_to_x.bias) model_to_x.bias = q.a.dtype;
    std::string effect = q.bias ? "w and bias become " : "w becomes ";
    effect += wa;
    attempt("model.to(x.dtype)", std::move(effect), model_to_x);
  } else if (q.bias && *q.bias != q.a.dtype) {
    Query bias_to_x = q;
    bias_to_x.bias = q.a.dtype;
    attempt("bias.to(x.dtype)", "bias becomes " + wa, bias_to_x);
  }
  if (engine.has_dtype(DType::float32) &&
      (q.a.dtype != DType::float32 || q.b.dtype != DType::float32 ||
       q.bias.value_or(DType::float32) != DType::float32)) {
    Query all_float = q;
    all_float.a.dtype = all_float.b.dtype = DType::float32;
    if (all_float.bias) all_float.bias = DType::float32;
    attempt("x.float(); model.float()", "everything becomes " + engine.spell(DType::float32),
            all_float);
  }
  return fixes;
}

}  // namespace pl::promote
