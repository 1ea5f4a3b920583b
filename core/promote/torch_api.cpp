#include "core/promote/torch_api.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>

#include "core/dtype/format_lookup.h"

namespace pl::promote {
namespace {

#include "core/promote/torch_api_names.inc"

// binary_search below needs the lists in byte order, as the generator sorts them.
constexpr bool before(const char* a, const char* b) {
  for (; *a && *a == *b; ++a, ++b) {}
  return static_cast<unsigned char>(*a) < static_cast<unsigned char>(*b);
}
template <size_t N>
constexpr bool sorted(const char* const (&names)[N]) {
  for (size_t i = 1; i < N; ++i)
    if (!before(names[i - 1], names[i])) return false;
  return true;
}
static_assert(sorted(kTensorNames) && sorted(kLinearNames) && sorted(kTorchNames) && sorted(kTensorReadOnly));

template <size_t N>
bool has(const char* const (&names)[N], std::string_view n) {
  return std::binary_search(std::begin(names), std::end(names), n,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The parsed snippet: OBJECT.NAME, then a call "(ARG)", an assignment "= ARG", or nothing.
struct Snippet {
  std::string object, name, arg;
  enum { Read, Call, Assign } form = Read;
};

Expected<Snippet> parse(std::string_view text) {
  Snippet s;
  std::string t = trim(text);
  if (const size_t eq = t.find('='); eq != std::string::npos && t.find('(') > eq) {
    s.form = Snippet::Assign;
    s.arg = trim(std::string_view(t).substr(eq + 1));
    t = trim(std::string_view(t).substr(0, eq));
  } else if (const size_t open = t.find('('); open != std::string::npos) {
    if (t.back() != ')') return Error{"a call must end with ')'"};
    s.form = Snippet::Call;
    s.arg = trim(std::string_view(t).substr(open + 1, t.size() - open - 2));
    if (s.arg.rfind("dtype", 0) == 0 && s.arg.find('=') != std::string::npos)
      s.arg = trim(s.arg.substr(s.arg.find('=') + 1));
    t = t.substr(0, open);
  }
  const size_t dot = t.find('.');
  if (dot == std::string::npos)
    return Error{"expected OBJECT.NAME, where OBJECT is x (a tensor), m (an nn.Linear) or torch"};
  s.object = t.substr(0, dot);
  s.name = t.substr(dot + 1);
  if (s.object != "x" && s.object != "m" && s.object != "torch")
    return Error{"the object must be x (a float32 tensor), m (an nn.Linear) or torch, not '" + s.object + "'"};
  if (!is_identifier(s.name)) return Error{"'" + s.name + "' is not one attribute name (chains are not modelled)"};
  return s;
}

std::string missing(const Snippet& s) {
  if (s.object == "torch") return "AttributeError: module 'torch' has no attribute '" + s.name + "'";
  return "AttributeError: '" + std::string(s.object == "x" ? "Tensor" : "Linear") + "' object has no attribute '" +
         s.name + "'";
}

// An argument that names a dtype: "torch.float16". Python evaluates it before the call, but
// after the method is looked up -- so a missing method is reported first.
struct DTypeArg {
  std::optional<DType> dtype;
  std::string error;  // the exception, when the name is not in torch
};

Expected<DTypeArg> dtype_arg(const std::string& arg) {
  if (arg.rfind("torch.", 0) != 0) return Error{"the argument must be a dtype spelled torch.NAME, not '" + arg + "'"};
  const std::string n = arg.substr(6);
  if (!is_identifier(n)) return Error{"the argument must be one dtype spelled torch.NAME, not '" + arg + "'"};
  if (!has(kTorchNames, n))
    return DTypeArg{std::nullopt, "AttributeError: module 'torch' has no attribute '" + n + "'"};
  auto t = parse_dtype(arg);
  if (!t) return Error{"'" + arg + "' is not a dtype the app models"};
  return DTypeArg{*t, ""};
}

// Tensor methods that return a copy in another dtype (PyTorch 2.15 _tensor_docs.py).
std::optional<DType> conversion_method(std::string_view n) {
  static const std::pair<const char*, DType> methods[] = {
      {"half", DType::float16},      {"float", DType::float32},    {"double", DType::float64},
      {"bfloat16", DType::bfloat16}, {"int", DType::int32},        {"long", DType::int64},
      {"short", DType::int16},       {"char", DType::int8},        {"byte", DType::uint8},
      {"bool", DType::bool_},        {"cfloat", DType::complex64}, {"cdouble", DType::complex128},
      {"chalf", DType::complex32}};
  for (const auto& [name, t] : methods)
    if (n == name) return t;
  return std::nullopt;
}

bool floating_or_complex(DType t) { return is_float(t) || info(t).kind == DTypeKind::Complex; }

std::string dtype_text(DType t) { return std::string(name(t)); }

// x.to(t), x.type(t) and x.half()-style methods return a new tensor, except that a tensor
// already of dtype t is returned itself (TensorBase.to: "If self already has the correct
// torch.dtype ... self is returned").
std::string converted_tensor(DType t) { return dtype_text(t) + (t == DType::float32 ? " (x itself)" : ""); }

// Module.half(), .to(dtype) and .type(dtype) convert each parameter's data in place (Module._apply
// with overwrite_module_params_on_conversion off): the module and its Parameter objects stay.
std::string converted_module(DType t) { return "weight " + dtype_text(t) + " (same Parameter objects)"; }

Expected<std::string> tensor_snippet(const Snippet& s) {
  if (s.form == Snippet::Assign) {
    auto a = dtype_arg(s.arg);  // the right-hand side is evaluated first
    if (!a) return Error{a.error()};
    if (!a->error.empty()) return a->error;
    if (has(kTensorReadOnly, s.name))
      return "AttributeError: attribute '" + s.name + "' of 'torch._C.TensorBase' objects is not writable";
    return Error{"assigning x." + s.name + " is not modelled"};
  }
  if (!has(kTensorNames, s.name)) return missing(s);
  if (s.form == Snippet::Read) {
    if (s.name == "dtype") return std::string("float32");
    return Error{"x." + s.name + " exists but is not a dtype; not modelled"};
  }
  if (auto t = conversion_method(s.name)) {
    if (!s.arg.empty()) return Error{"x." + s.name + "() takes no dtype here"};
    return converted_tensor(*t);
  }
  if (s.name == "to" || s.name == "type") {
    auto a = dtype_arg(s.arg);
    if (!a) return Error{a.error()};
    if (!a->error.empty()) return a->error;
    return converted_tensor(*a->dtype);
  }
  return Error{"x." + s.name + "() exists but does not change dtypes; not modelled"};
}

Expected<std::string> module_snippet(const Snippet& s) {
  if (s.form == Snippet::Assign) {
    auto a = dtype_arg(s.arg);
    if (!a) return Error{a.error()};
    if (!a->error.empty()) return a->error;
    if (s.name == "weight" || s.name == "bias" || has(kLinearNames, s.name))
      return Error{"assigning an existing attribute m." + s.name + " is not modelled"};
    // nn.Module.__setattr__ stores a plain attribute: no error, and the weights keep their dtype.
    return std::string("weight float32");
  }
  if (!has(kLinearNames, s.name)) return missing(s);
  if (s.form == Snippet::Read) return Error{"m." + s.name + " exists but is not a dtype; not modelled"};
  if (s.name == "half" || s.name == "float" || s.name == "double" || s.name == "bfloat16") {
    if (!s.arg.empty()) return Error{"m." + s.name + "() takes no dtype here"};
    return converted_module(*conversion_method(s.name));
  }
  if (s.name == "to" || s.name == "type") {
    auto a = dtype_arg(s.arg);
    if (!a) return Error{a.error()};
    if (!a->error.empty()) return a->error;
    if (floating_or_complex(*a->dtype)) return converted_module(*a->dtype);
    if (s.name == "to")  // torch/nn/modules/module.py, Module.to
      return "TypeError: nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch." +
             dtype_text(*a->dtype);
    // Module.type casts each parameter's .data; a parameter that requires grad must stay floating.
    return std::string(
        "RuntimeError: data set to a tensor that requires gradients must be floating point or complex dtype");
  }
  return Error{"m." + s.name + "() exists but does not change dtypes; not modelled"};
}

Expected<std::string> torch_module_snippet(const Snippet& s) {
  if (s.form == Snippet::Assign) return Error{"assigning into the torch module is not modelled"};
  if (!has(kTorchNames, s.name)) return missing(s);
  if (s.form == Snippet::Read) {
    auto t = parse_dtype("torch." + s.name);
    if (!t) return Error{"torch." + s.name + " exists but is not a dtype the app models"};
    return dtype_text(*t);
  }
  if (s.name == "set_default_dtype") {
    auto a = dtype_arg(s.arg);
    if (!a) return Error{a.error()};
    if (!a->error.empty()) return a->error;
    const DType t = *a->dtype;
    // torch/__init__.py set_default_dtype -> torch._C._set_default_dtype: float16, bfloat16,
    // float32 and float64 have a default tensor type; other floats have no storage class.
    if (t == DType::float16 || t == DType::bfloat16 || t == DType::float32 || t == DType::float64)
      return std::string("ok");
    if (!is_float(t)) return std::string("TypeError: only floating-point types are supported as the default type");
    return Error{"torch.set_default_dtype(" + s.arg + ") is not modelled"};
  }
  return Error{"torch." + s.name + "() is not modelled"};
}

}  // namespace

Expected<std::string> torch_snippet(std::string_view snippet) {
  auto s = parse(snippet);
  if (!s) return Error{s.error()};
  if (s->object == "x") return tensor_snippet(*s);
  if (s->object == "m") return module_snippet(*s);
  return torch_module_snippet(*s);
}

}  // namespace pl::promote
