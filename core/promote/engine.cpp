#include "core/promote/engine.h"

#include <algorithm>
#include <array>

#include "core/promote/jax_engine.h"
#include "core/promote/numpy_engine.h"
#include "core/promote/numpy_types.h"
#include "core/promote/tf_engine.h"
#include "core/promote/torch_autocast.h"
#include "core/promote/torch_engine.h"
#include "core/promote/torch_names.h"

namespace pl::promote {
namespace {

// The names of an engine's ops that `keep` selects, in the engine's order.
template <typename OpT, int kCount, typename Name, typename Pred>
std::vector<std::string_view> op_names(Name name, Pred keep) {
  std::vector<std::string_view> out;
  for (int i = 0; i < kCount; ++i) {
    auto op = static_cast<OpT>(i);
    if (keep(op)) out.push_back(name(op));
  }
  return out;
}

template <typename Pred>
std::vector<std::string_view> torch_ops(Pred keep) {
  return op_names<torch::Op, torch::kOpCount>(torch::op_name, keep);
}

template <typename Pred>
std::vector<std::string_view> numpy_ops(Pred keep) {
  return op_names<numpy::Op, numpy::kOpCount>(numpy::op_name, keep);
}

template <typename Pred>
std::vector<std::string_view> jax_ops(Pred keep) {
  return op_names<jax::Op, jax::kOpCount>(jax::op_name, keep);
}

template <typename Pred>
std::vector<std::string_view> tf_ops(Pred keep) {
  return op_names<tf::Op, tf::kOpCount>(tf::op_name, keep);
}

Outcome unknown_op(const std::string& op) {
  return Outcome{std::nullopt, "ValueError", "unknown op " + op, ""};
}

Outcome torch_evaluate(const Query& q) {
  auto op = torch::parse_op(q.op);
  if (!op) return unknown_op(q.op);
  return torch::evaluate(*op, q.a, q.b, torch::op_takes_bias(*op) ? q.bias : std::nullopt);
}

Outcome torch_autocast_cpu_evaluate(const Query& q) {
  auto op = torch::parse_op(q.op);
  if (!op) return unknown_op(q.op);
  return torch::evaluate_autocast_cpu(*op, q.a, q.b, torch::op_takes_bias(*op) ? q.bias : std::nullopt);
}

template <numpy::Version V>
Outcome numpy_evaluate(const Query& q) {
  auto op = numpy::parse_op(q.op);
  if (!op) return unknown_op(q.op);
  return numpy::evaluate(V, *op, q.a, q.b);
}

template <bool X64, bool Strict>
Outcome jax_evaluate(const Query& q) {
  auto op = jax::parse_op(q.op);
  if (!op) return unknown_op(q.op);
  return jax::evaluate({X64, Strict}, *op, q.a, q.b);
}

template <bool NumpyBehavior>
Outcome tf_evaluate(const Query& q) {
  auto op = tf::parse_op(q.op);
  if (!op) return unknown_op(q.op);
  return tf::evaluate({NumpyBehavior}, *op, q.a, q.b);
}

std::string tf_spell(DType t) { return "tf." + std::string(tf::python_name(t)); }

std::string jax_spell(DType t) { return "jnp." + std::string(jax::python_name(t)); }

std::string torch_spell(DType t) { return "torch." + std::string(torch::python_name(t)); }

std::string numpy_spell(DType t) {
  return (numpy::is_user_dtype(t) ? "ml_dtypes." : "np.") + std::string(numpy::python_name(t));
}

const std::vector<Engine>& registry() {
  static const std::vector<Engine> engines = [] {
    std::vector<Engine> out;
    out.push_back({"torch", "torch", torch::kVersion, "cpu",
                   torch_ops([](torch::Op) { return true; }), torch_ops(torch::op_takes_bias),
                   torch_ops(torch::op_is_elementwise), false, "to", "model", torch::has_dtype, torch_spell,
                   torch_evaluate});
    out.push_back({"torch-autocast-cpu", "torch", torch::kVersion, "cpu, autocast bfloat16",
                   torch_ops([](torch::Op) { return true; }), torch_ops(torch::op_takes_bias),
                   torch_ops(torch::op_is_elementwise), false, "to", "model", torch::has_dtype,
                   torch_spell, torch_autocast_cpu_evaluate});
    const auto all = numpy_ops([](numpy::Op) { return true; });
    const auto elementwise = numpy_ops(numpy::op_is_elementwise);
    out.push_back({"numpy", "numpy", numpy::numpy_version(numpy::Version::V2), "cpu", all, {},
                   elementwise, true, "astype", "w", numpy::has_dtype, numpy_spell,
                   numpy_evaluate<numpy::Version::V2>});
    out.push_back({"numpy1", "numpy", numpy::numpy_version(numpy::Version::V1), "cpu", all, {},
                   elementwise, true, "astype", "w", numpy::has_dtype, numpy_spell,
                   numpy_evaluate<numpy::Version::V1>});
    const auto jax_all = jax_ops([](jax::Op) { return true; });
    const auto jax_elementwise = jax_ops(jax::op_is_elementwise);
    out.push_back({"jax", "jax", jax::kVersion, "cpu, x64 off", jax_all, {}, jax_elementwise,
                   true, "astype", "w", jax::has_dtype, jax_spell, jax_evaluate<false, false>});
    out.push_back({"jax-x64", "jax", jax::kVersion, "cpu, x64 on", jax_all, {}, jax_elementwise,
                   true, "astype", "w", jax::has_dtype, jax_spell, jax_evaluate<true, false>});
    out.push_back({"jax-strict", "jax", jax::kVersion, "cpu, strict, x64 off", jax_all, {},
                   jax_elementwise, true, "astype", "w", jax::has_dtype, jax_spell,
                   jax_evaluate<false, true>});
    const auto tf_all = tf_ops([](tf::Op) { return true; });
    out.push_back({"tf", "tensorflow", tf::kVersion, "cpu", tf_all, {},
                   tf_ops(tf::op_is_elementwise), false, "tf.cast", "w", tf::has_dtype,
                   tf_spell, tf_evaluate<false>});
    out.push_back({"tf-numpy", "tensorflow", tf::kVersion, "cpu, NumPy behaviour (all)", tf_all,
                   {}, tf_ops(tf::op_is_elementwise), false, "tf.cast", "w", tf::has_dtype,
                   tf_spell, tf_evaluate<true>});
    return out;
  }();
  return engines;
}

}  // namespace

std::span<const Engine> engines() { return registry(); }

const Engine* find_engine(std::string_view id) {
  for (const Engine& e : registry())
    if (e.id == id) return &e;
  return nullptr;
}

std::string engine_names() {
  std::string out;
  for (const Engine& e : registry()) out += (out.empty() ? "" : ", ") + std::string(e.id);
  return out;
}

// The usual attempts, in the order people try them: cast the input to the weight's dtype,
// cast the model (weight and bias) to the input's dtype, or make everything float32. A
// Python scalar has no dtype to cast, so fixes leave it as it is.
std::vector<Fix> suggest_fixes(const Engine& engine, const Query& q) {
  std::vector<Fix> fixes;
  auto attempt = [&](std::string code, std::string effect, Query changed) {
    fixes.push_back({std::move(code), std::move(effect), engine.evaluate(changed)});
  };
  const std::string w(engine.weight_name);
  // x.to(T), x.astype(T) or tf.cast(x, T)
  auto cast_code = [&](const std::string& var, const std::string& target) {
    if (engine.cast_method.find('.') != std::string_view::npos)
      return std::string(engine.cast_method).append("(").append(var).append(", ").append(target).append(")");
    return std::string(var).append(".").append(engine.cast_method).append("(").append(target).append(")");
  };
  const std::string wa = engine.spell(q.a.dtype), wb = engine.spell(q.b.dtype);
  const bool a_castable = q.a.kind != OperandKind::Scalar, b_castable = q.b.kind != OperandKind::Scalar;
  // x.to(w.dtype) and model.to(x.dtype) need both operands to be arrays with a dtype.
  if (q.a.dtype != q.b.dtype && a_castable && b_castable) {
    {
      Query x_to_w = q;
      x_to_w.a.dtype = q.b.dtype;
      attempt(cast_code("x", "w.dtype"), "x becomes " + wb, x_to_w);
    }
    {
      Query model_to_x = q;
      model_to_x.b.dtype = q.a.dtype;
      if (model_to_x.bias) model_to_x.bias = q.a.dtype;
      std::string effect = q.bias ? "w and bias become " : "w becomes ";
      effect += wa;
      attempt(cast_code(w, "x.dtype"), std::move(effect), model_to_x);
    }
  } else if (q.bias && *q.bias != q.a.dtype) {
    Query bias_to_x = q;
    bias_to_x.bias = q.a.dtype;
    attempt(cast_code("bias", "x.dtype"), "bias becomes " + wa, bias_to_x);
  }
  const DType f32 = DType::float32;
  if (engine.has_dtype(f32) &&
      ((a_castable && q.a.dtype != f32) || (b_castable && q.b.dtype != f32) ||
       q.bias.value_or(f32) != f32)) {
    Query all_float = q;
    if (a_castable) all_float.a.dtype = f32;
    if (b_castable) all_float.b.dtype = f32;
    if (all_float.bias) all_float.bias = f32;
    std::string code;
    for (const auto& [var, castable] : {std::pair{std::string("x"), a_castable}, std::pair{w, b_castable}}) {
      if (!castable) continue;
      if (!code.empty()) code += "; ";
      code += engine.cast_method == "to" ? var + ".float()" : cast_code(var, engine.spell(f32));
    }
    attempt(code, "every array becomes " + engine.spell(f32), all_float);
  }
  return fixes;
}

}  // namespace pl::promote
