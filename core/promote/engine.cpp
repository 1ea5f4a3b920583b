#include "core/promote/engine.h"

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

#include "core/dtype/custom_dtype.h"
#include "core/promote/jax_engine.h"
#include "core/promote/numpy_engine.h"
#include "core/promote/numpy_types.h"
#include "core/promote/py_value.h"
#include "core/promote/tf_engine.h"
#include "core/promote/torch_autocast.h"
#include "core/promote/torch_cuda.h"
#include "core/promote/torch_cuda_recorded.h"
#include "core/promote/torch_devices.h"
#include "core/promote/torch_engine.h"
#include "core/promote/torch_names.h"

namespace pl::promote {
namespace {

// An engine's op names from its Op enum (numbered 0..kCount-1): every op, the ops that
// take a bias, those that need one, the ops where zero-dim and scalar operands are modelled, and
// the layers' ops (Engine::layer_ops).
struct OpLists {
  std::vector<std::string_view> all, bias, needs_bias, kinds, layers;
};

template <typename OpT, int kCount>
OpLists op_lists(std::string_view (*name)(OpT), bool (*kinds)(OpT), bool (*takes_bias)(OpT) = nullptr,
                 bool (*needs_bias)(OpT) = nullptr, bool (*is_layer)(OpT) = nullptr) {
  OpLists out;
  for (int i = 0; i < kCount; ++i) {
    const auto op = static_cast<OpT>(i);
    out.all.push_back(name(op));
    if (takes_bias && takes_bias(op)) out.bias.push_back(name(op));
    if (needs_bias && needs_bias(op)) out.needs_bias.push_back(name(op));
    if (is_layer && is_layer(op)) out.layers.push_back(name(op));
    if (kinds(op)) out.kinds.push_back(name(op));
  }
  return out;
}

}  // namespace

bool needs_bias(const Engine& e, std::string_view op) {
  return std::find(e.bias_needed_ops.begin(), e.bias_needed_ops.end(), op) != e.bias_needed_ops.end();
}

bool is_layer_op(const Engine& e, std::string_view op) {
  return std::find(e.layer_ops.begin(), e.layer_ops.end(), op) != e.layer_ops.end();
}

std::string bias_needed_message(std::string_view op) {
  return std::string(op) + " takes a bias: torch." + std::string(op) + "(bias, x, w) has no form without one";
}

namespace {

Outcome unknown_op(const std::string& op) { return Outcome{std::nullopt, "ValueError", "unknown op " + op, ""}; }

// A Query as a torch engine call: the op parsed, the bias passed only to ops that take one.
template <typename Fn>
Outcome torch_query(const Query& q, Fn&& evaluate) {
  auto op = torch::parse_op(q.op);
  if (!op) return unknown_op(q.op);
  // torch.addmm(input, mat1, mat2) has no form without its input, the bias: PyTorch raises a
  // TypeError about the arguments, which the recorded tables (every one with a bias) do not hold.
  if (torch::op_needs_bias(*op) && !q.bias)
    return Outcome{std::nullopt, "precision-lab", bias_needed_message(q.op), ""};
  return evaluate(*op, torch::op_takes_bias(*op) ? q.bias : std::nullopt);
}

const ConvShape* shape_of(const Query& q) { return q.conv ? &*q.conv : nullptr; }

// A CPU engine of release R: its own answer, or, with an operand placed on CUDA, the device model's.
template <torch::Release R>
Outcome torch_cpu_evaluate(const Query& q) {
  return torch_query(q, [&](torch::Op op, auto bias) {
    if (!q.a_device && !q.b_device) return torch::evaluate(op, q.a, q.b, bias, R, shape_of(q));
    return torch::evaluate_on_devices(op, q.a, q.b, bias, R, shape_of(q), q.a_device.value_or(Device::Cpu),
                                      q.b_device.value_or(Device::Cpu));
  });
}

Outcome torch_cuda_evaluate(const Query& q) {
  return torch_query(q, [&](torch::Op op, auto bias) {
    if (!q.a_device && !q.b_device) return torch::evaluate_cuda(op, q.a, q.b, bias);
    return torch::evaluate_on_devices(op, q.a, q.b, bias, torch::Release::V2_15, shape_of(q),
                                      q.a_device.value_or(Device::Cuda), q.b_device.value_or(Device::Cuda));
  });
}

Outcome torch211_cuda_evaluate(const Query& q) {
  return torch_query(q, [&](torch::Op op, auto bias) { return torch::evaluate_recorded_cuda(op, q.a, q.b, bias); });
}
Outcome torch_autocast_cpu_evaluate(const Query& q) {
  return torch_query(q, [&](torch::Op op, auto bias) {
    return torch::evaluate_autocast_cpu(op, q.a, q.b, bias, torch::Release::V2_15, shape_of(q));
  });
}

Outcome torch_autocast_cpu_onednn_evaluate(const Query& q) {
  return torch_query(q, [&](torch::Op op, auto bias) {
    return torch::evaluate_autocast_cpu(op, q.a, q.b, bias, torch::Release::V2_15_OneDnnBf16, shape_of(q));
  });
}

Outcome torch113_autocast_cpu_evaluate(const Query& q) {
  return torch_query(q, [&](torch::Op op, auto bias) {
    return torch::evaluate_autocast_cpu(op, q.a, q.b, bias, torch::Release::V1_13, shape_of(q));
  });
}

template <DType Lower>
Outcome torch_autocast_cuda_evaluate(const Query& q) {
  return torch_query(q,
                     [&](torch::Op op, auto bias) { return torch::evaluate_autocast_cuda(Lower, op, q.a, q.b, bias); });
}

bool torch113_has_dtype(DType t) { return torch::has_dtype(torch::Release::V1_13, t); }

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

DType jax_x32_held(DType t) { return jax::held_as({false, false}, t); }

std::string torch_spell(DType t) { return "torch." + std::string(torch::python_name(t)); }

std::string numpy_spell(DType t) { return numpy::qualified_name(t); }

// NumPy 1.26 has no np.bool (2.0 brought the name back as np.bool_'s): np.bool_.
std::string numpy1_spell(DType t) { return t == DType::bool_ ? "np.bool_" : numpy_spell(t); }

const std::vector<Engine>& registry() {
  static const std::vector<Engine> engines = [] {
    const auto torch_ops = op_lists<torch::Op, torch::kOpCount>(
        torch::op_name, torch::op_is_elementwise, torch::op_takes_bias, torch::op_needs_bias, torch::op_is_layer);
    const auto numpy_ops = op_lists<numpy::Op, numpy::kOpCount>(numpy::op_name, numpy::op_is_elementwise);
    const auto jax_ops = op_lists<jax::Op, jax::kOpCount>(jax::op_name, jax::op_is_elementwise);
    const auto tf_ops = op_lists<tf::Op, tf::kOpCount>(tf::op_name, tf::op_is_elementwise);
    std::vector<Engine> out;
    // The plain torch engines place operands on devices (torch_devices.h): the last column.
    // PyTorch's values were recorded on the CPU (torch_values_cpu.json); on CUDA, defaults only.
    constexpr ValuesModelled kNone = ValuesModelled::None, kScalars = ValuesModelled::PythonScalars,
                             kAll = ValuesModelled::All;
    auto add = [&](std::string_view id, std::string_view framework, std::string_view version, std::string_view device,
                   const OpLists& ops, ValuesModelled values, std::string_view cast, std::string_view weight,
                   bool (*has)(DType), std::string (*spell)(DType), Outcome (*eval)(const Query&),
                   std::optional<Device> places = std::nullopt) {
      // PyTorch's CPU path for a convolution depends on the shapes (torch::float32_conv_takes_onednn);
      // the CUDA engines model one shape, as recorded.
      std::vector<std::string_view> shape_ops;
      if (framework == "torch" && device.starts_with("cpu")) shape_ops = {"conv1d", "conv2d"};
      out.push_back({id, framework, version, device, ops.all, ops.bias, ops.kinds, std::move(shape_ops), values, places,
                     cast, weight, has, spell, eval});
      out.back().bias_needed_ops = ops.needs_bias;
      out.back().layer_ops = ops.layers;
    };
    add("torch", "torch", torch::kVersion, "cpu", torch_ops, kScalars, "to", "model", torch::has_dtype, torch_spell,
        torch_cpu_evaluate<torch::Release::V2_15>, Device::Cpu);
    add("torch1.13", "torch", torch::release_version(torch::Release::V1_13), "cpu", torch_ops, kScalars, "to", "model",
        torch113_has_dtype, torch_spell, torch_cpu_evaluate<torch::Release::V1_13>, Device::Cpu);
    add("torch-autocast-cpu", "torch", torch::kVersion, "cpu, autocast bfloat16", torch_ops, kScalars, "to", "model",
        torch::has_dtype, torch_spell, torch_autocast_cpu_evaluate);
    // Recorded with oneDNN held to AVX512_CORE: a CPU with AVX512-FP16 runs float16 convolutions in
    // oneDNN too (gen_torch_conv_shapes.py).
    add("torch-onednn", "torch", torch::kVersion, "cpu with AVX-512 but no AVX512-FP16, oneDNN bfloat16", torch_ops,
        kScalars, "to", "model", torch::has_dtype, torch_spell, torch_cpu_evaluate<torch::Release::V2_15_OneDnnBf16>,
        Device::Cpu);
    add("torch-autocast-cpu-onednn", "torch", torch::kVersion, "cpu with AVX-512, autocast bfloat16", torch_ops,
        kScalars, "to", "model", torch::has_dtype, torch_spell, torch_autocast_cpu_onednn_evaluate);
    add("torch1.13-onednn", "torch", torch::release_version(torch::Release::V1_13), "cpu with AVX-512, oneDNN bfloat16",
        torch_ops, kScalars, "to", "model", torch113_has_dtype, torch_spell,
        torch_cpu_evaluate<torch::Release::V1_13_OneDnnBf16>, Device::Cpu);
    add("torch1.13-autocast-cpu", "torch", torch::release_version(torch::Release::V1_13), "cpu, autocast bfloat16",
        torch_ops, kScalars, "to", "model", torch113_has_dtype, torch_spell, torch113_autocast_cpu_evaluate);
    // float16/bfloat16/float32/float64 modelled, checked against torch 2.11 recorded on an H100: torch_cuda.h.
    add("torch-cuda", "torch", torch::kVersion, "cuda", torch_ops, kNone, "to", "model", torch::has_dtype, torch_spell,
        torch_cuda_evaluate, Device::Cuda);
    add("torch-autocast-cuda", "torch", torch::kVersion, "cuda, autocast float16", torch_ops, kNone, "to", "model",
        torch::has_dtype, torch_spell, torch_autocast_cuda_evaluate<DType::float16>);
    add("torch-autocast-cuda-bf16", "torch", torch::kVersion, "cuda, autocast bfloat16", torch_ops, kNone, "to",
        "model", torch::has_dtype, torch_spell, torch_autocast_cuda_evaluate<DType::bfloat16>);
    add("numpy", "numpy", numpy::numpy_version(numpy::Version::V2), "cpu", numpy_ops, kAll, "astype", "w",
        numpy::has_dtype, numpy_spell, numpy_evaluate<numpy::Version::V2>);
    out.back().companion = numpy::ml_dtypes_release(numpy::Version::V2);
    add("numpy1", "numpy", numpy::numpy_version(numpy::Version::V1), "cpu", numpy_ops, kAll, "astype", "w",
        numpy::has_dtype, numpy1_spell, numpy_evaluate<numpy::Version::V1>);
    out.back().companion = numpy::ml_dtypes_release(numpy::Version::V1);
    add("jax", "jax", jax::kVersion, "cpu, x64 off", jax_ops, kScalars, "astype", "w", jax::has_dtype, jax_spell,
        jax_evaluate<false, false>);
    out.back().held_as = jax_x32_held;
    add("jax-x64", "jax", jax::kVersion, "cpu, x64 on", jax_ops, kScalars, "astype", "w", jax::has_dtype, jax_spell,
        jax_evaluate<true, false>);
    add("jax-strict", "jax", jax::kVersion, "cpu, strict, x64 off", jax_ops, kScalars, "astype", "w", jax::has_dtype,
        jax_spell, jax_evaluate<false, true>);
    out.back().held_as = jax_x32_held;
    // Recorded with TF_ENABLE_ONEDNN_OPTS=0 (gen_tf.py): oneDNN renames MatMul in matmul's errors.
    add("tf", "tensorflow", tf::kVersion, "cpu, oneDNN off", tf_ops, kNone, "tf.cast", "w", tf::has_dtype, tf_spell,
        tf_evaluate<false>);
    add("tf-numpy", "tensorflow", tf::kVersion, "cpu, oneDNN off, NumPy behaviour (all)", tf_ops, kNone, "tf.cast", "w",
        tf::has_dtype, tf_spell, tf_evaluate<true>);
    // Last, so the positions settings keep for the engines above do not move.
    add("torch2.11-cuda", "torch", torch::kRecordedCudaVersion, "cuda", torch_ops, kNone, "to", "model",
        torch::recorded_cuda_has_dtype, torch_spell, torch211_cuda_evaluate);
    out.back().unmodelled = torch::recorded_cuda_unmodelled();
    // (After it, for the same reason.) NumPy with ml_dtypes 0.7, whose types promote by kind
    // (numpy_types.h).
    add("numpy-ml_dtypes0.7", "numpy", numpy::numpy_version(numpy::Version::V2Ml07), "cpu", numpy_ops, kAll,
        "astype", "w", numpy::has_dtype, numpy_spell, numpy_evaluate<numpy::Version::V2Ml07>);
    out.back().companion = numpy::ml_dtypes_release(numpy::Version::V2Ml07);
    return out;
  }();
  return engines;
}

}  // namespace

std::string missing_dtype_text(const Engine& e, DType t) {
  const std::string n(name(t));
  if (std::find(e.unmodelled.begin(), e.unmodelled.end(), t) != e.unmodelled.end())
    return n + " is a " + std::string(e.framework) + " " + std::string(e.version) + " dtype the " + std::string(e.id) +
           " engine does not model";
  return n + " is not a " + std::string(e.framework) + " " + std::string(e.version) + " dtype" +
         (is_custom(t) ? " (a custom format: no framework has one)" : "");
}

std::span<const Engine> engines() { return registry(); }

std::string_view device_name(Device d) { return d == Device::Cuda ? "cuda" : "cpu"; }

std::optional<Device> parse_device(std::string_view text) {
  if (text == "cpu") return Device::Cpu;
  if (text == "cuda") return Device::Cuda;
  return std::nullopt;
}

std::string unmodelled_value_message(const Engine& e, OperandKind k) {
  if (k == OperandKind::Tensor) return "a value is for a zerodim or scalar operand";
  const std::string engine = "the " + std::string(e.id) + " engine";
  if (k == OperandKind::ZeroDim) {
    if (e.framework == "torch")
      return engine + " reads a zero-dim tensor's dtype, never its value (PyTorch's promotion does not look at it)" +
             (e.values == ValuesModelled::PythonScalars ? "; a Python scalar's value is modelled" : "");
    // (JAX's promotion reads a zero-dim array's dtype only; the value it was built from is not
    // modelled, and a value it cannot hold would raise before the op)
    return engine + " takes a zero-dim operand as an ordinary " + (e.framework == "tensorflow" ? "tensor" : "array") +
           ": its dtype, never its value" +
           (e.values == ValuesModelled::PythonScalars ? "; a Python scalar's value is modelled" : "");
  }
  // (The torch engines that model no value are CUDA's.)
  return engine + " takes no value: it answers for the defaults, True, 2, 2.5 and 2.5+1j, when none is given" +
         (e.framework == "torch" ? "; PyTorch's values were recorded on the CPU: the torch engine models them"
                                 : "; values are modelled by the numpy, jax and torch engines");
}

bool models_value(ValuesModelled m, OperandKind k) {
  switch (k) {
    case OperandKind::Tensor: return false;
    case OperandKind::ZeroDim: return m == ValuesModelled::All;
    case OperandKind::Scalar: return m != ValuesModelled::None;
  }
  return false;
}

const Engine* find_engine(std::string_view id) {
  // The frameworks' full names, as people type them, for the short ids.
  static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      {"pytorch", "torch"}, {"tensorflow", "tf"}, {"tensorflow-numpy", "tf-numpy"}};
  for (const auto& [alias, engine] : kAliases)
    if (id == alias) id = engine;
  for (const Engine& e : registry())
    if (e.id == id) return &e;
  return nullptr;
}

std::string release_text(const Engine& e) {
  std::string s = std::string(e.framework) + " " + std::string(e.version);
  if (!e.companion.empty()) s.append(" with ").append(e.companion);
  return s;
}

std::string_view placement_of(std::string_view device) { return device.substr(0, device.find_first_of(", ")); }

std::string_view configuration_of(std::string_view device) { return device.substr(placement_of(device).size()); }

std::string_view autocast_of(std::string_view device) {
  const size_t at = device.find("autocast");
  return at == std::string_view::npos ? std::string_view{} : device.substr(at);
}

std::string scalar_not_held(const Engine& e, const Query& q, const Outcome& o) {
  if (q.b.kind != OperandKind::Scalar || !o.ok()) return "";
  const auto v = scalar_operand_value(q.b.value, q.b.dtype);
  if (!v) return "";
  const std::string literal = q.b.value.empty() ? std::string(default_literal(py_type_of(q.b.dtype))) : q.b.value;
  return scalar_lost_text(literal, *v, *o.result, e.spell(*o.result));
}

std::string engine_heading(const Engine& e, bool operands_placed) {
  if (operands_placed && configuration_of(e.device).empty()) return release_text(e);
  return release_text(e) + " (" + std::string(e.device) + ")";
}

const Engine* find_variant(const Engine& base, std::string_view version, std::string_view device) {
  // A description is where an engine runs, its first word ("cpu" of "cpu, oneDNN off"), then its
  // configuration. A device asked for is a whole description or a placement; a placement keeps
  // base's configuration where an engine has it there ("cpu, autocast bfloat16" asked on cuda is
  // "cuda, autocast bfloat16"). Autocast is switched on in the user's code, so it is never dropped
  // for another device's plain engine; a configuration the other device lacks (oneDNN's) may be.
  auto released = [&](const Engine& e) {
    if (e.framework != base.framework) return false;
    // A release or its leading parts ("1.13" of "1.13.1"), never part of a number ("1.1" is not
    // torch 1.13.1, nor "0.1" jax 0.10.2).
    if (version.empty()) return e.version == base.version;
    return e.version == version ||
           (e.version.starts_with(version) && e.version.size() > version.size() && e.version[version.size()] == '.');
  };
  const std::string_view config = configuration_of(base.device), base_autocast = autocast_of(base.device);
  // A whole description; or a placement tried with base's whole configuration, then with its
  // autocast alone (oneDNN's AVX-512 dropped), then on its own where neither autocasts.
  const bool whole = device.empty() || placement_of(device) != device;
  auto fits = [&](const Engine& e, int pass) {
    if (!released(e)) return false;
    if (whole) return e.device == (device.empty() ? base.device : device);
    if (placement_of(e.device) != device) return false;
    if (pass == 0) return configuration_of(e.device) == config;
    if (pass == 1) return !base_autocast.empty() && autocast_of(e.device) == base_autocast;
    return base_autocast.empty() && autocast_of(e.device).empty();
  };
  for (int pass = 0; pass < 3; ++pass) {
    if (fits(base, pass)) return &base;
    for (const Engine& e : registry())
      if (fits(e, pass)) return &e;
  }
  return nullptr;
}

Status place_operands(const Engine& e, Query& q, std::string_view a_device, std::string_view b_device,
                      std::string_view a_label, std::string_view b_label) {
  if (a_device.empty() && b_device.empty()) return {};
  if (!e.operand_device) {
    std::string placing;
    for (const Engine& x : registry())
      if (x.operand_device) placing.append(placing.empty() ? "" : ", ").append(x.id);
    return Error{std::string(a_label) + " and " + std::string(b_label) + " are for the engines that place operands (" +
                 placing + "), not " + std::string(e.id)};
  }
  const std::tuple<std::string_view, Operand*, std::optional<Device>*, std::string_view> sides[] = {
      {a_device, &q.a, &q.a_device, a_label}, {b_device, &q.b, &q.b_device, b_label}};
  for (const auto& [text, operand, device, label] : sides) {
    if (text.empty()) continue;
    auto d = parse_device(text);
    if (!d) return Error{std::string(label) + " takes cpu or cuda, not '" + std::string(text) + "'"};
    if (operand->kind == OperandKind::Scalar)
      return Error{std::string(label) + ": a Python scalar has no device (only tensors live on one)"};
    *device = *d;
  }
  // The other tensor is on the engine's own device, and the answer names both.
  for (const auto& [text, operand, device, label] : sides)
    if (!*device && operand->kind != OperandKind::Scalar) *device = *e.operand_device;
  return {};
}

std::string engine_names() {
  std::string out;
  for (const Engine& e : registry()) out += (out.empty() ? "" : ", ") + std::string(e.id);
  return out;
}

namespace {
std::string name_of_cast(const Engine& e, DType from, DType to) {
  return e.spell(from) + " to " + e.spell(to) + " has no conversion in " + std::string(e.framework) + " " +
         std::string(e.version);
}
}  // namespace

// The usual attempts, in the order people try them: cast the input to the weight's dtype,
// cast the model (weight and bias) to the input's dtype, or make everything float32. A
// Python scalar has no dtype to cast, so fixes leave it as it is.
// A fix's casts run first: where one raises (torch.int4 has no copy to float32, and fp4 only
// packed ones), the fix raises that error and never reaches the op.
std::optional<Outcome> cast_refused(const Engine& engine, const Operand& from, DType to, std::optional<Device> on) {
  if (from.dtype == to || from.kind == OperandKind::Scalar) return std::nullopt;
  const std::string_view m = engine.cast_method;
  const std::string op(m == "tf.cast" ? "cast" : m);
  if (std::find(engine.ops.begin(), engine.ops.end(), op) == engine.ops.end()) return std::nullopt;
  Query cast;
  cast.op = op;
  // A zero-dim source keeps its kind: PyTorch copies it by another path, with another error.
  cast.a = Operand{from.dtype, engine.cast_method == "to" ? from.kind : OperandKind::Tensor};
  cast.b = Operand{to};
  cast.a_device = cast.b_device = on;
  Outcome o = engine.evaluate(cast);
  if (o.ok() || o.error_type == "precision-lab") return std::nullopt;  // converts, or is not modelled
  o.rule = "The cast itself raises: " + name_of_cast(engine, from.dtype, to) + ". " + o.rule;
  return o;
}

// A PyTorch module's .to(dtype) takes float and complex dtypes only, whatever its parameters are
// (torch/nn/modules/module.py, Module.to).
std::optional<Outcome> module_cast_refused(const Engine& engine, DType to) {
  const DTypeKind kind = info(to).kind;
  if (kind == DTypeKind::Float || kind == DTypeKind::Complex) return std::nullopt;
  return Outcome{
      std::nullopt, "TypeError",
      "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=" + engine.spell(to),
      "A module's parameters stay floating point: Module.to refuses an integer or bool dtype."};
}

std::vector<Fix> suggest_fixes(const Engine& engine, const Query& q) {
  std::vector<Fix> fixes;
  // The weight is a module's parameter in a layer's op (Engine::layer_ops); the plain products
  // (matmul, mm, bmm, addmm), the elementwise ops and .to take tensors of their own, which
  // w.float() converts whatever their dtype.
  const bool module = is_layer_op(engine, q.op);
  // `module_to`: the dtype the fix gives a PyTorch module (model.to(T), or model.float()'s
  // float32), whose parameters are the weight and the bias. A module converts its floating-point
  // and complex parameters only: an integer or bool weight or bias is never cast, so it stays as
  // it is and its cast cannot raise. Every other changed operand is a tensor's own cast.
  auto floating = [](DType t) { return is_float(t) || info(t).kind == DTypeKind::Complex; };
  auto attempt = [&](std::string code, std::string effect, Query changed, std::optional<DType> module_to) {
    if (module_to)
      if (auto refused = module_cast_refused(engine, *module_to)) {
        fixes.push_back({std::move(code), std::move(effect), std::move(*refused)});
        return;
      }
    std::string stays;
    if (module_to) {
      if (q.b.kind != OperandKind::Scalar && !floating(q.b.dtype) && changed.b.dtype != q.b.dtype) {
        changed.b.dtype = q.b.dtype;
        stays = "w stays " + engine.spell(q.b.dtype);
      }
      if (q.bias && changed.bias && !floating(*q.bias) && *changed.bias != *q.bias) {
        changed.bias = q.bias;
        stays += (stays.empty() ? "" : ", ") + std::string("bias stays ") + engine.spell(*q.bias);
      }
    }
    // Each operand whose dtype the fix changes is cast first, on its own device: the input, the
    // weight and the bias (a module's parameters, which live with the weight).
    const Operand bias_from{q.bias.value_or(q.a.dtype)};
    const std::array<std::tuple<const Operand*, DType, std::optional<Device>>, 3> casts = {
        std::tuple{&q.a, changed.a.dtype, q.a_device}, std::tuple{&q.b, changed.b.dtype, q.b_device},
        std::tuple{&bias_from, changed.bias.value_or(bias_from.dtype), q.b_device}};
    for (const auto& [from, to, on] : casts)
      if (auto refused = cast_refused(engine, *from, to, on)) {
        fixes.push_back({std::move(code), std::move(effect), std::move(*refused)});
        return;
      }
    // A fix that, so read, changes nothing would only repeat the question's own answer.
    if (changed.a.dtype == q.a.dtype && changed.a.value == q.a.value && changed.b.dtype == q.b.dtype &&
        changed.b.value == q.b.value && changed.bias == q.bias && changed.a_device == q.a_device &&
        changed.b_device == q.b_device)
      return;
    if (!stays.empty())
      effect += (effect.empty() ? "" : "; ") + stays + ": a module converts its floating-point parameters only";
    fixes.push_back({std::move(code), std::move(effect), engine.evaluate(changed)});
  };
  const std::string w(module ? engine.weight_name : std::string_view("w"));
  // x.to(T), x.astype(T) or tf.cast(x, T)
  auto cast_code = [&](const std::string& var, const std::string& target) {
    if (engine.cast_method.find('.') != std::string_view::npos)
      return std::string(engine.cast_method).append("(").append(var).append(", ").append(target).append(")");
    return std::string(var).append(".").append(engine.cast_method).append("(").append(target).append(")");
  };
  // What a cast makes of an operand, in words: the dtype its array holds, and a complex value's
  // imaginary part dropped when it is cast to a real dtype.
  auto becomes = [&](DType from, DType to) {
    std::string s = engine.spell(engine.held_as ? engine.held_as(to) : to);
    if (info(from).kind == DTypeKind::Complex && info(to).kind != DTypeKind::Complex)
      s += ", its imaginary part dropped";
    return s;
  };
  const bool a_castable = q.a.kind != OperandKind::Scalar, b_castable = q.b.kind != OperandKind::Scalar;
  // Tensors on two devices: move one to the other's first; a cast alone leaves them apart.
  if (engine.operand_device && a_castable && b_castable) {
    const Device a_on = q.a_device.value_or(*engine.operand_device), b_on = q.b_device.value_or(*engine.operand_device);
    if (a_on != b_on) {
      Query x_moves = q;
      x_moves.a_device = b_on;
      attempt("x.to(w.device)", "x moves to " + std::string(device_name(b_on)), x_moves, std::nullopt);
      Query model_moves = q;
      model_moves.b_device = a_on;
      attempt(w + ".to(x.device)", w + " moves to " + std::string(device_name(a_on)), model_moves, std::nullopt);
    }
  }
  // x.to(w.dtype) and model.to(x.dtype) need both operands to be arrays with a dtype.
  if (q.a.dtype != q.b.dtype && a_castable && b_castable) {
    {
      Query x_to_w = q;
      x_to_w.a.dtype = q.b.dtype;
      attempt(cast_code("x", "w.dtype"), "x becomes " + becomes(q.a.dtype, q.b.dtype), x_to_w, std::nullopt);
    }
    {
      Query model_to_x = q;
      model_to_x.b.dtype = q.a.dtype;
      if (model_to_x.bias && module) model_to_x.bias = q.a.dtype;  // (a module's; addmm's is a tensor of its own)
      // A module's integer or bool parameter stays (attempt says so), unless Module.to refuses
      // the dtype: then the effect is what was asked for.
      const bool all_asked = !module || !floating(q.a.dtype);
      const bool w_cast = all_asked || floating(q.b.dtype);
      const bool bias_cast = module && q.bias && *q.bias != q.a.dtype && (all_asked || floating(*q.bias));
      std::string effect;
      if (w_cast) effect = bias_cast ? "w and bias become " : "w becomes ";
      else if (bias_cast) effect = "bias becomes ";
      if (w_cast || bias_cast) effect += becomes(w_cast ? q.b.dtype : *q.bias, q.a.dtype);
      attempt(cast_code(w, "x.dtype"), std::move(effect), model_to_x,
              module ? std::optional<DType>(q.a.dtype) : std::nullopt);
    }
  } else if (q.bias && *q.bias != q.a.dtype) {
    Query bias_to_x = q;
    bias_to_x.bias = q.a.dtype;
    // A module's floating bias is its own parameter, which no expression in the call replaces:
    // the module converts it (its weight already x's dtype). A plain product's bias is an
    // argument, cast in the call as x.to(w.dtype) is; so is a module's integer bias, which
    // Module.to would leave as it is.
    const bool by_module = module && floating(*q.bias) && floating(q.a.dtype);
    attempt(by_module ? cast_code(w, "x.dtype") : cast_code("bias", "x.dtype"),
            "bias becomes " + becomes(*q.bias, q.a.dtype), bias_to_x, std::nullopt);
  }
  const DType f32 = DType::float32;
  if (engine.has_dtype(f32) &&
      ((a_castable && q.a.dtype != f32) || (b_castable && q.b.dtype != f32) || q.bias.value_or(f32) != f32)) {
    Query all_float = q;
    if (a_castable) all_float.a.dtype = f32;
    if (b_castable) all_float.b.dtype = f32;
    if (all_float.bias) all_float.bias = f32;
    std::string code;
    // (A module's bias goes with model.float(); addmm's, a tensor of its own, is cast itself.)
    const bool own_bias = !module && q.bias && *q.bias != f32;
    for (const auto& [var, castable] : {std::pair{std::string("x"), a_castable}, std::pair{w, b_castable},
                                        std::pair{std::string("bias"), own_bias}}) {
      if (!castable) continue;
      if (!code.empty()) code += "; ";
      // Module.float() converts floating-point parameters only, and leaves a complex weight or
      // bias complex; Module.to(torch.float32) converts them too (discarding the imaginary parts).
      auto complex = [](std::optional<DType> t) { return t && info(*t).kind == DTypeKind::Complex; };
      const bool complex_parameter = module && var == w && (complex(q.b.dtype) || complex(q.bias));
      // A module converts its own parameters; a tensor's or an array's cast returns a new one,
      // which must be bound to the name (a bare "x.float();" leaves x as it was).
      if (!(module && var == w)) code += var + " = ";
      code += engine.cast_method == "to" && !complex_parameter ? var + ".float()" : cast_code(var, engine.spell(f32));
    }
    const bool complex_dropped = (a_castable && info(q.a.dtype).kind == DTypeKind::Complex) ||
                                 (b_castable && info(q.b.dtype).kind == DTypeKind::Complex);
    // Where a module's integer or bool parameter stays (attempt says so), the others by name.
    const bool w_stays = module && b_castable && !floating(q.b.dtype),
               bias_stays = module && q.bias && !floating(*q.bias);
    std::string cast = "every array";
    if (w_stays || bias_stays) {
      std::vector<std::string> names;
      if (a_castable && q.a.dtype != f32) names.push_back("x");
      if (b_castable && !w_stays && q.b.dtype != f32) names.push_back("w");
      if (q.bias && !bias_stays && *q.bias != f32) names.push_back("bias");
      cast.clear();
      for (size_t i = 0; i < names.size(); ++i)
        cast += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    }
    std::string effect;
    if (!cast.empty())
      effect = cast + (cast == "every array" || cast.find(' ') == std::string::npos ? " becomes " : " become ") +
               engine.spell(f32) + (complex_dropped ? ", a complex one's imaginary part dropped" : "");
    attempt(code, std::move(effect), all_float, module && b_castable ? std::optional<DType>(f32) : std::nullopt);
  }
  // A Python int too large for the dtype it is read as (NumPy's out-of-bounds error, JAX's jit
  // parsing it as the default integer) raises whatever the arrays are cast to: written as a
  // Python float it is read as one.
  if (const Outcome as_written = engine.evaluate(q); !as_written.ok() && as_written.error_type == "OverflowError")
    for (Operand Query::*side : {&Query::a, &Query::b}) {
      const Operand& x = q.*side;
      if (x.kind != OperandKind::Scalar) continue;
      const auto v = scalar_operand_value(x.value, x.dtype);
      if (!v || v->type != PyType::Int) continue;
      const std::string literal = x.value.empty() ? std::string(default_literal(PyType::Int)) : x.value;
      Query as_float = q;
      (as_float.*side).dtype = DType::float64;
      (as_float.*side).value = int128_to_string(v->integer) + ".0";
      attempt("float(" + literal + ")", "the Python int becomes a Python float", as_float, std::nullopt);
    }
  return fixes;
}

}  // namespace pl::promote
