// precision-lab promote --framework F [--framework-version V] [--device D] [--op OP]
//                       [--a-kind K] [--b-kind K] [--bias T] [--a-value V] [--b-value V]
//                       [--a-shape S] [--b-shape S] [--groups G] [--torch-threads T]
//                       [--a-device D] [--b-device D]
//                       [--json] A B       (one pair: result or exact error, rule, fixes)
// precision-lab promote --framework F [--op OP] [--a-kind K] [--b-kind K] --table [--json]
#include <algorithm>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "core/dtype/custom_dtype.h"
#include "core/dtype/format_lookup.h"
#include "core/io/json_text.h"
#include "core/promote/engine.h"
#include "core/promote/py_value.h"
#include "core/promote/torch_engine.h"
#include "core/promote/torch_matmul_precision.h"
#include "core/util/number_text.h"

namespace pl::cli {
namespace {

using promote::Engine;
using promote::Outcome;
using promote::Query;

struct PromoteArgs {
  std::string framework = "torch";
  std::string version, device;  // another release or device of the framework's engine
  std::string op = "add";
  std::string a_kind = "tensor", b_kind = "tensor";
  std::string bias;
  std::string a_value, b_value;
  std::string matmul_precision;    // torch.set_float32_matmul_precision, for float32 products
  std::string a_shape, b_shape;    // a convolution's shapes, "N,C,H,W" and "O,I,kH,kW"
  std::string a_device, b_device;  // where a and b live: cpu or cuda (the torch engines)
  std::optional<int64_t> groups;
  std::optional<int> torch_threads;
  bool table = false;
  bool json = false;
  std::vector<std::string> dtypes;
};

nlohmann::json outcome_json(const Engine& e, const Outcome& o) {
  nlohmann::json j;
  if (o.ok()) {
    j["result"] = name(*o.result);
    j["result_framework"] = e.spell(*o.result);
  } else if (!o.other_result.empty()) {
    j["result"] = o.other_result;
  } else {
    j["error_type"] = o.error_type;
    j["error"] = o.message;
  }
  j["rule"] = o.rule;
  return j;
}

std::string outcome_text(const Engine& e, const Outcome& o) {
  if (o.ok()) return "-> " + e.spell(*o.result);
  if (!o.other_result.empty()) return "-> dtype=" + o.other_result;
  return "raises " + o.error_type + ": " + o.message;
}

nlohmann::json operand_json(const promote::Operand& x, std::optional<promote::Device> device) {
  nlohmann::json j{{"dtype", name(x.dtype)}, {"kind", operand_kind_name(x.kind)}};
  if (!x.value.empty()) j["value"] = x.value;
  if (device) j["device"] = promote::device_name(*device);
  return j;
}

// An operand as the heading names it: "torch.int8 tensor", "np.int8 zerodim 300", and a Python
// scalar by its type and value, "Python int 2**63" (its dtype names only its category).
std::string operand_text(const Engine& e, const promote::Operand& x, std::optional<promote::Device> device) {
  if (x.kind == promote::OperandKind::Scalar) {
    const promote::PyType t = promote::py_type_of(x.dtype);
    return "Python " + std::string(promote::py_type_name(t)) + " " +
           (x.value.empty() ? std::string(promote::default_literal(t)) : x.value);
  }
  std::string text = e.spell(x.dtype) + " " + std::string(operand_kind_name(x.kind));
  if (!x.value.empty()) text.append(" ").append(x.value);
  if (device) text.append(" on ").append(promote::device_name(*device));
  return text;
}

Expected<DType> engine_dtype(const Engine& e, const std::string& text) {
  auto t = parse_dtype(text);
  if (!t) return Error{t.error()};
  if (!e.has_dtype(*t)) return Error{promote::missing_dtype_text(e, *t)};
  return *t;
}

std::vector<DType> engine_dtypes(const Engine& e) {
  std::vector<DType> out;
  for (const auto& row : all_dtypes())
    if (e.has_dtype(row.id)) out.push_back(row.id);
  return out;
}

// Short cell text for the grid: the result's short name, "ERR", or "n/m" (not modelled).
std::string cell_text(const Outcome& o) {
  if (o.ok()) return short_name(*o.result);
  if (o.error_type == "precision-lab") return "n/m";
  return o.other_result.empty() ? "ERR" : o.other_result;
}

int print_table(const Engine& e, const Query& base, bool json) {
  const std::vector<DType> ts = engine_dtypes(e);
  nlohmann::json cells = nlohmann::json::array();
  std::string bias_note;
  if (base.bias) bias_note.append(", bias ").append(name(*base.bias));
  for (const auto& [side, device] : {std::pair{"a", base.a_device}, std::pair{"b", base.b_device}})
    if (device) bias_note.append(", ").append(side).append(" on ").append(promote::device_name(*device));
  if (!json) {
    std::printf("%s (%s), op %s, a %s x b %s%s: rows a, columns b\n%-9s", promote::release_text(e).c_str(),
                std::string(e.device).c_str(), base.op.c_str(),
                std::string(operand_kind_name(base.a.kind)).c_str(),
                std::string(operand_kind_name(base.b.kind)).c_str(), bias_note.c_str(), "");
    for (DType b : ts) std::printf(" %-8s", short_name(b).c_str());
    std::printf("\n");
  }
  for (DType a : ts) {
    if (!json) std::printf("%-9s", short_name(a).c_str());
    for (DType b : ts) {
      Query q = base;
      q.a.dtype = a;
      q.b.dtype = b;
      Outcome o = e.evaluate(q);
      if (json) {
        nlohmann::json j = outcome_json(e, o);
        j["a"] = name(a);
        j["b"] = name(b);
        cells.push_back(j);
      } else {
        std::printf(" %-8s", cell_text(o).c_str());
      }
    }
    if (!json) std::printf("\n");
  }
  if (json) {
    nlohmann::json out{{"framework", e.framework},
                       {"version", e.version},
                       {"device", e.device},
                       {"op", base.op},
                       {"a_kind", operand_kind_name(base.a.kind)},
                       {"b_kind", operand_kind_name(base.b.kind)},
                       {"cells", cells}};
    if (base.bias) out["bias"] = name(*base.bias);
    if (base.a_device) out["a_device"] = promote::device_name(*base.a_device);
    if (base.b_device) out["b_device"] = promote::device_name(*base.b_device);
    std::cout << out.dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
  }
  return kExitOk;
}

// What a float32 product computes in under torch.set_float32_matmul_precision(p).
nlohmann::json internals_json(const promote::torch::Float32Internals& in) {
  nlohmann::json flags = nlohmann::json::object();
  for (const auto& f : in.flags) flags[std::string(f.name)] = f.value;
  return {{"flags", flags},
          {"cuda_matmul", name(in.cuda_matmul)},
          {"cuda_conv", name(in.cuda_conv)},
          {"cpu_matmul", name(in.cpu_matmul)},
          {"cpu_condition", in.cpu_condition},
          {"rule", in.rule}};
}

void print_internals(const std::string& setting, const std::string& op, const promote::torch::Float32Internals& in) {
  for (const std::string& line : promote::torch::describe_internals(setting, op, in))
    std::printf("  %s\n", line.c_str());
}

int print_pair(const Engine& e, const Query& q, bool json,
               const std::optional<promote::torch::Float32Internals>& internals, const std::string& setting) {
  const Outcome o = e.evaluate(q);
  if (o.error_type == "precision-lab") {  // the question itself cannot be asked as written
    std::fprintf(stderr, "error: %s\n", o.message.c_str());
    return kExitBadInput;
  }
  const auto fixes = o.ok() ? std::vector<promote::Fix>{} : promote::suggest_fixes(e, q);
  if (json) {
    nlohmann::json j = outcome_json(e, o);
    j["framework"] = e.framework;
    j["version"] = e.version;
    j["device"] = e.device;
    j["op"] = q.op;
    j["a"] = operand_json(q.a, q.a_device);
    j["b"] = operand_json(q.b, q.b_device);
    if (q.bias) j["bias"] = name(*q.bias);
    if (const std::string lost = promote::scalar_not_held(e, q, o); !lost.empty()) j["value_not_held"] = lost;
    if (q.conv)
      j["shapes"] = {
          {"a", q.conv->input}, {"b", q.conv->weight}, {"groups", q.conv->groups}, {"threads", q.conv->threads}};
    if (internals && o.result == DType::float32) {
      j["float32_matmul_precision"] = setting;
      j["float32_internals"] = internals_json(*internals);
    }
    j["fixes"] = nlohmann::json::array();
    for (const auto& f : fixes) {
      nlohmann::json fj = outcome_json(e, f.outcome);
      fj["code"] = f.code;
      fj["effect"] = f.effect;
      j["fixes"].push_back(fj);
    }
    std::cout << j.dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return kExitOk;
  }
  std::string bias_note;
  if (q.bias) bias_note.append(", bias: ").append(e.spell(*q.bias));
  if (q.conv)
    bias_note.append("; shapes ")
        .append(dimensions_text(q.conv->input))
        .append(" and ")
        .append(dimensions_text(q.conv->weight))
        .append(", groups ")
        .append(std::to_string(q.conv->groups))
        .append(", ")
        .append(std::to_string(q.conv->threads))
        .append(q.conv->threads == 1 ? " thread" : " threads");
  std::printf("%s: %s(a: %s, b: %s%s)\n", promote::engine_heading(e, q.a_device || q.b_device).c_str(), q.op.c_str(),
              operand_text(e, q.a, q.a_device).c_str(), operand_text(e, q.b, q.b_device).c_str(), bias_note.c_str());
  std::printf("  %s\n  rule: %s\n", outcome_text(e, o).c_str(), o.rule.c_str());
  if (const std::string lost = promote::scalar_not_held(e, q, o); !lost.empty())
    std::printf("  note: %s\n", lost.c_str());
  if (internals && o.result == DType::float32) print_internals(setting, q.op, *internals);
  if (!fixes.empty()) std::printf("  fixes:\n");
  // The columns as wide as their longest entries (at least 26 and 34), so the effects and the
  // outcomes line up under each other whatever the codes' and the effects' lengths.
  int code_width = 26, effect_width = 34;
  for (const auto& f : fixes) {
    code_width = std::max(code_width, static_cast<int>(f.code.size()));
    effect_width = std::max(effect_width, static_cast<int>(f.effect.size()) + 2);
  }
  for (const auto& f : fixes) {
    std::string effect;
    effect.append("(").append(f.effect).append(")");
    std::printf("    %-*s %-*s %s\n", code_width, f.code.c_str(), effect_width, effect.c_str(),
                outcome_text(e, f.outcome).c_str());
  }
  return kExitOk;
}

// The convolution shapes asked for, the defaults filled in; none when the op has no shapes and
// none were given. An option the op or engine does not take, or shapes PyTorch would refuse, is
// an error.
Expected<std::optional<promote::ConvShape>> conv_shape(const Engine& e, const PromoteArgs& a) {
  const bool given = !a.a_shape.empty() || !a.b_shape.empty() || a.groups || a.torch_threads;
  const bool modelled = std::find(e.shape_ops.begin(), e.shape_ops.end(), a.op) != e.shape_ops.end();
  if (!modelled) {
    if (!given) return std::optional<promote::ConvShape>{};
    if (a.op == "conv1d" || a.op == "conv2d")
      return Error{"the " + std::string(e.id) +
                   " engine models one convolution shape; --a-shape, --b-shape, --groups "
                   "and --torch-threads are for the CPU torch engines"};
    return Error{"--a-shape, --b-shape, --groups and --torch-threads are for conv1d and conv2d"};
  }
  auto s = promote::torch::conv_shape_from_text(*promote::torch::parse_op(a.op), a.a_shape, a.b_shape, a.groups,
                                                a.torch_threads, "--a-shape", "--b-shape", a.op + ": ");
  if (!s) return Error{s.error()};
  return std::optional<promote::ConvShape>{*s};
}

// Each engine group's op list once, after the engines that take it (the help listed all
// eighteen engines' lists, most of them the same).
std::string ops_help() {
  std::vector<std::pair<std::string, const std::vector<std::string_view>*>> groups;
  for (const Engine& e : promote::engines()) {
    auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return *g.second == e.ops; });
    if (same == groups.end()) groups.emplace_back(std::string(e.id), &e.ops);
    else same->first.append(", ").append(e.id);
  }
  std::string help = "Operation (default: add)";
  for (const auto& [ids, ops] : groups) {
    help.append("; ").append(ids).append(":");
    for (auto o : *ops) help.append(" ").append(o);
  }
  return help;
}

// The engine the framework, release and device name.
Expected<const Engine*> chosen_engine(const PromoteArgs& a) {
  const Engine* e = promote::find_engine(a.framework);
  if (!e) return Error{"unknown framework '" + a.framework + "' (available: " + promote::engine_names() + ")"};
  if (a.version.empty() && a.device.empty()) return e;
  if (const Engine* variant = promote::find_variant(*e, a.version, a.device)) return variant;
  std::string have;
  for (const Engine& x : promote::engines())
    if (x.framework == e->framework)
      have.append(have.empty() ? "" : "; ").append(x.id).append(": ").append(x.version).append(", ").append(x.device);
  std::string what = "no " + std::string(e->framework) + " engine for";
  if (!a.version.empty()) what.append(" version ").append(a.version);
  if (!a.device.empty()) what.append(" device ").append(a.device);
  // Another device keeps the autocast the framework named (find_variant): say which.
  if (const std::string_view autocast = promote::autocast_of(e->device); !a.device.empty() && !autocast.empty())
    what.append(" with ").append(e->id).append("'s ").append(autocast);
  return Error{what + " (available: " + have + ")"};
}

// The question as the engine takes it: op, operand kinds and values, a convolution's shapes,
// the bias. The operands' dtypes are filled in later (a --table walks them).
Expected<Query> query_of(const Engine& e, const PromoteArgs& a) {
  if (std::find(e.ops.begin(), e.ops.end(), a.op) == e.ops.end()) {
    std::string ops;
    for (auto o : e.ops) ops += (ops.empty() ? "" : ", ") + std::string(o);
    return Error{"unknown op '" + a.op + "' for " + a.framework + " (available: " + ops + ")"};
  }
  auto ka = promote::parse_operand_kind(a.a_kind);
  auto kb = promote::parse_operand_kind(a.b_kind);
  if (!ka || !kb) return Error{"operand kind must be tensor, zerodim or scalar"};
  const bool kinds_modelled = std::find(e.kind_ops.begin(), e.kind_ops.end(), a.op) != e.kind_ops.end();
  if (!kinds_modelled && (*ka != promote::OperandKind::Tensor || *kb != promote::OperandKind::Tensor))
    return Error{a.op + " takes dimensioned tensors; --a-kind/--b-kind apply to elementwise ops"};
  // ("-inf", "-.5": stashed past CLI11, cli.h)
  Query q{a.op,
          {DType::float32, *ka, restore_value(a.a_value)},
          {DType::float32, *kb, restore_value(a.b_value)},
          std::nullopt};
  for (const auto* x : {&q.a, &q.b})
    if (!x->value.empty() && !models_value(e.values, x->kind)) return Error{unmodelled_value_message(e, x->kind)};
  auto shape = conv_shape(e, a);
  if (!shape) return Error{shape.error()};
  q.conv = *shape;
  if (auto placed = promote::place_operands(e, q, a.a_device, a.b_device, "--a-device", "--b-device"); !placed)
    return Error{placed.error()};
  if (a.bias.empty()) {
    if (promote::needs_bias(e, a.op)) return Error{promote::bias_needed_message(a.op) + ": give --bias"};
    return q;
  }
  if (std::find(e.bias_ops.begin(), e.bias_ops.end(), a.op) == e.bias_ops.end()) return Error{a.op + " takes no bias"};
  auto t = engine_dtype(e, a.bias);
  if (!t) return Error{"--bias: " + t.error()};
  q.bias = *t;
  return q;
}

// torch.set_float32_matmul_precision's effect on this product, when --matmul-precision is given.
Expected<std::optional<promote::torch::Float32Internals>> matmul_internals(const Engine& e, const Query& q,
                                                                           const std::string& precision) {
  if (precision.empty()) return std::optional<promote::torch::Float32Internals>();
  const auto p = promote::torch::parse_matmul_precision(precision);
  if (!p) return Error{"--matmul-precision must be highest, high or medium"};
  if (!promote::torch::matmul_precision_applies(e, q.op))
    return Error{"--matmul-precision is a PyTorch setting for matrix products and convolutions"};
  return std::optional<promote::torch::Float32Internals>(
      promote::torch::float32_internals(*p, promote::torch::release_of(e)));
}

int promote(const PromoteArgs& a) {
  auto bad = [](const std::string& why) {
    std::fprintf(stderr, "error: %s\n", why.c_str());
    return kExitBadInput;
  };
  auto e = chosen_engine(a);
  if (!e) return bad(e.error());
  auto asked = query_of(**e, a);
  if (!asked) return bad(asked.error());
  Query q = std::move(asked).value();
  if (a.table) {
    if (!a.matmul_precision.empty()) return bad("--matmul-precision answers for one pair, not a --table");
    if (!a.dtypes.empty()) return bad("--table takes no dtypes");
    return print_table(**e, q, a.json);
  }
  if (a.dtypes.size() != 2) return bad("give two dtypes (A B), or --table");
  for (int i = 0; i < 2; ++i) {
    auto t = engine_dtype(**e, a.dtypes[i]);
    if (!t) return bad(t.error());
    (i == 0 ? q.a : q.b).dtype = *t;
  }
  auto internals = matmul_internals(**e, q, a.matmul_precision);
  if (!internals) return bad(internals.error());
  return print_pair(**e, q, a.json, *internals, a.matmul_precision);
}

}  // namespace

Runner add_promote(CLI::App& app) {
  auto args = std::make_shared<PromoteArgs>();
  app.add_option("--framework", args->framework, "Framework: " + promote::engine_names());
  app.add_option(
      "--framework-version", args->version,
      "Release of the framework to reproduce, by prefix (torch: 2.15, 1.13, and 2.11 with --device cuda; numpy: 2, 1)");
  app.add_option("--device", args->device, "Device whose behaviour to reproduce (cpu, cuda)");
  app.add_option("--matmul-precision", args->matmul_precision,
                 "torch: what a float32 product computes in under "
                 "torch.set_float32_matmul_precision(highest | high | medium)");
  app.add_option("--op", args->op, ops_help());
  app.add_option("--a-kind", args->a_kind, "tensor | zerodim | scalar");
  app.add_option("--b-kind", args->b_kind, "tensor | zerodim | scalar");
  app.add_option("--bias", args->bias, "Bias dtype, for ops that take one (addmm needs one)");
  app.add_option("--a-value", args->a_value,
                 "Value of a zero-dim or scalar a, as a Python literal (300, 1e300, 2.5+1j, 2**63): numpy engines; "
                 "for a scalar, the jax engines and torch's on the CPU too");
  app.add_option("--b-value", args->b_value, "Value of a zero-dim or scalar b");
  app.add_option("--a-shape", args->a_shape,
                 "conv1d/conv2d: the input's shape, N,C,L or N,C,H,W (default 1,1,3 or 1,1,3,3). On a CPU PyTorch "
                 "picks oneDNN or its own kernel by the shapes, and the two word a dtype error differently");
  app.add_option("--b-shape", args->b_shape,
                 "conv1d/conv2d: the weight's shape, O,I,kL or O,I,kH,kW (default 1,1,2 or 1,1,2,2)");
  app.add_option("--a-device", args->a_device,
                 "Where a lives: cpu or cuda (default: the engine's device). torch engines: a CPU tensor fed to a "
                 "model on the GPU raises PyTorch's device error, worded by op and release");
  app.add_option("--b-device", args->b_device, "Where b lives (and the bias, as a module's parameters): cpu or cuda");
  app.add_option("--groups", args->groups, "conv1d/conv2d: groups (default 1)");
  app.add_option("--torch-threads", args->torch_threads,
                 "conv1d/conv2d: torch.get_num_threads() of the modelled process (default 2; on one thread a 1x1 "
                 "kernel takes oneDNN only from a batch of 16)");
  app.add_flag("--table", args->table, "Every dtype x dtype pair for the op and kinds");
  app.add_flag("--json", args->json, "Machine-readable output");
  app.add_option("dtypes", args->dtypes, "A B: the two operand dtypes (omit with --table)");
  return [args]() { return promote(*args); };
}

}  // namespace pl::cli
