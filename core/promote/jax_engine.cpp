#include "core/promote/jax_engine.h"

#include <array>
#include <bit>
#include <initializer_list>
#include <tuple>
#include <vector>

#include "core/dtype/find_dtype.h"
#include "core/promote/py_value.h"
#include "core/util/names.h"

namespace pl::promote::jax {
namespace {

constexpr std::array<std::string_view, kOpCount> kOpNames = {"add",    "multiply",      "true_divide",
                                                             "matmul", "matmul_f32acc", "astype"};

// The lattice's nodes: JAX's dtypes, then the weak types of Python int, float, complex.
constexpr std::array<DType, 28> kDTypes = {
    DType::bool_,         DType::int8,        DType::uint8,           DType::int16,           DType::uint16,
    DType::int32,         DType::uint32,      DType::int64,           DType::uint64,          DType::float16,
    DType::bfloat16,      DType::float32,     DType::float64,         DType::complex64,       DType::complex128,
    DType::float8_e4m3fn, DType::float8_e5m2, DType::float8_e4m3fnuz, DType::float8_e5m2fnuz, DType::float8_e4m3b11fnuz,
    DType::float8_e4m3,   DType::float8_e3m4, DType::float8_e8m0fnu,  DType::float6_e2m3fn,   DType::float6_e3m2fn,
    DType::float4_e2m1fn, DType::int4,        DType::uint4};
constexpr int kDTypeNodes = int(kDTypes.size());
constexpr int kWeakInt = kDTypeNodes, kWeakFloat = kDTypeNodes + 1, kWeakComplex = kDTypeNodes + 2,
              kNodes = kDTypeNodes + 3;
using Mask = uint32_t;
static_assert(kNodes <= 32, "one bit a node");

int node_of(DType t) {
  for (int i = 0; i < kDTypeNodes; ++i)
    if (kDTypes[i] == t) return i;
  return -1;
}
Mask bit(DType t) { return Mask{1} << node_of(t); }

bool is_small_float(DType t) { return is_float(t) && info(t).format.total_bits() <= 8; }

// _type_promotion_lattice: each node's immediate successors.
std::array<Mask, kNodes> lattice(const Config& c) {
  std::array<Mask, kNodes> out{};
  auto edges = [&](int from, std::initializer_list<DType> to) {
    for (DType t : to) out[from] |= bit(t);
  };
  if (c.strict) {
    // Only Python scalars promote: to any type of their kind or a higher weak kind.
    for (DType t : kDTypes) {
      if (is_integer(t)) out[kWeakInt] |= bit(t);
      if (is_float(t)) out[kWeakFloat] |= bit(t);
      if (info(t).kind == DTypeKind::Complex) out[kWeakComplex] |= bit(t);
    }
    out[kWeakInt] |= Mask{1} << kWeakFloat;
    out[kWeakFloat] |= Mask{1} << kWeakComplex;
    return out;
  }
  using enum DType;
  out[node_of(bool_)] = Mask{1} << kWeakInt;
  edges(kWeakInt, {uint8, int8, uint4, int4});  // int4 and uint4 lead nowhere: no promotion
  edges(node_of(uint8), {int16, uint16});
  edges(node_of(uint16), {int32, uint32});
  // With x64 off JAX avoids forming a 64-bit type from 32-bit inputs: uint32 x int32
  // -> int32 instead of int64.
  edges(node_of(uint32), {c.x64 ? int64 : int32, uint64});
  out[node_of(uint64)] = Mask{1} << kWeakFloat;
  edges(node_of(int8), {int16});
  edges(node_of(int16), {int32});
  edges(node_of(int32), {int64});
  out[node_of(int64)] = Mask{1} << kWeakFloat;
  for (DType t : kDTypes)
    if (is_small_float(t)) out[kWeakFloat] |= bit(t);  // they lead nowhere: no promotion
  edges(kWeakFloat, {bfloat16, float16});
  out[kWeakFloat] |= Mask{1} << kWeakComplex;
  edges(node_of(bfloat16), {float32});
  edges(node_of(float16), {float32});
  edges(node_of(float32), {float64, complex64});
  edges(node_of(float64), {complex128});
  edges(kWeakComplex, {complex64});
  edges(node_of(complex64), {complex128});
  return out;
}

// _make_lattice_upper_bounds: each node's upper bounds (itself included).
std::array<Mask, kNodes> upper_bounds(const Config& c) {
  const auto succ = lattice(c);
  std::array<Mask, kNodes> ub{};
  for (int n = 0; n < kNodes; ++n) {
    ub[n] = Mask{1} << n;
    for (Mask prev = 0; prev != ub[n];) {
      prev = ub[n];
      for (int m = 0; m < kNodes; ++m)
        if (ub[n] & (Mask{1} << m)) ub[n] |= succ[m];
    }
  }
  return ub;
}

const std::array<Mask, kNodes>& ubs(const Config& c) {
  static const auto x32 = upper_bounds({false, false}), x64 = upper_bounds({true, false}),
                    strict = upper_bounds({false, true});
  return c.strict ? strict : c.x64 ? x64 : x32;
}

std::string node_name(int n) {
  if (n == kWeakInt) return "int";  // JAX prints the weak types by their Python names
  if (n == kWeakFloat) return "float";
  if (n == kWeakComplex) return "complex";
  return std::string(name(kDTypes[n]));
}

struct Lub {
  int node = -1;        // the least upper bound, or -1
  std::string message;  // TypePromotionError text when there is none
};

// _least_upper_bound over the nodes (in call order, for the message).
Lub least_upper_bound(const Config& c, const std::vector<int>& nodes) {
  const auto& ub = ubs(c);
  Mask n_set = 0, cub = ~Mask{0};
  for (int n : nodes) {
    n_set |= Mask{1} << n;
    cub &= ub[n];
  }
  Mask lub = cub & n_set;
  if (!lub)
    for (int m = 0; m < kNodes; ++m)
      if ((cub & (Mask{1} << m)) && (cub & ~ub[m]) == 0) lub |= Mask{1} << m;
  if (std::popcount(lub) == 1) return {std::countr_zero(lub), ""};
  // As Python prints the tuple: a dtype 'int32', a weak type by its class, "<class 'float'>".
  std::string listed = "(";
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i) listed += ", ";
    // (Appended piece by piece: a prefix + node_name(...) temporary trips GCC 12's false -Wrestrict.)
    const bool weak = nodes[i] >= kDTypeNodes;
    listed += weak ? "\"<class '" : "'";
    listed += node_name(nodes[i]);
    listed += weak ? "'>\"" : "'";
  }
  listed += ")";
  const std::string head = "Input dtypes " + listed + " have no available implicit dtype promotion path";
  auto any = [&](auto pred) {
    for (int n : nodes)
      if (n < kDTypeNodes && pred(kDTypes[n])) return true;
    return false;
  };
  auto float_bits = [](int bits) {
    return [bits](DType t) { return is_float(t) && info(t).format.total_bits() == bits && t != DType::float16; };
  };
  if (c.strict)
    return {-1, head +
                    " when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to "
                    "the desired output type, or set jax_numpy_dtype_promotion=standard."};
  for (int bits : {8, 6, 4})
    if (any(float_bits(bits)))
      return {-1, head + ". To avoid unintended promotion, " + std::to_string(bits) +
                      "-bit floats do not support implicit promotion. If you'd like your inputs "
                      "to be promoted to another type, you can do so explicitly using e.g. "
                      "x.astype('float32')"};
  if (any(is_packed_int))
    return {-1, head +
                    ". To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do not support implicit "
                    "promotion. If you'd like your inputs to be promoted to another type, you can do so "
                    "explicitly using e.g. x.astype('int32')"};
  return {-1, head + ". Try explicitly casting inputs to the desired output type."};
}

DType canonical(const Config& c, DType t) {
  if (c.x64) return t;
  switch (t) {
    case DType::int64: return DType::int32;
    case DType::uint64: return DType::uint32;
    case DType::float64: return DType::float32;
    case DType::complex128: return DType::complex64;
    default: return t;
  }
}

// np.dtype of a weak type: the 64-bit default of its kind (canonicalized later).
DType weak_dtype(int node) {
  return node == kWeakInt ? DType::int64 : node == kWeakFloat ? DType::float64 : DType::complex128;
}

struct Arg {
  DType dtype;    // canonicalized
  bool weak;      // a Python int, float or complex
  int weak_node;  // its lattice node when weak
};

// lattice_result_type for two arguments; the dtype is canonicalized.
Outcome result_type(const Config& c, const Arg& a, const Arg& b) {
  // (Two arrays only: a Python scalar canonicalized to the array's dtype is still weakly typed,
  // and the lattice says why it gives way.)
  if (a.dtype == b.dtype && !a.weak && !b.weak) return returns(a.dtype, "Both are " + std::string(name(a.dtype)) + ".");
  std::vector<int> nodes;
  for (const Arg* x : {&a, &b}) {
    const int n = x->weak ? x->weak_node : node_of(x->dtype);
    if (nodes.empty() || nodes[0] != n) nodes.push_back(n);
  }
  const Lub lub = least_upper_bound(c, nodes);
  if (lub.node < 0)
    return raises("TypePromotionError", lub.message,
                  !c.strict ? "The two types have no common upper bound in JAX's promotion lattice."
                  : a.weak || b.weak
                      ? "Strict promotion: a Python int, float or complex takes an array's dtype only when the "
                        "array is of its kind or a higher one (int, then float, then complex; a Python bool is a "
                        "bool array), and arrays of different dtypes never promote."
                      : "Strict promotion: arrays of different dtypes never promote implicitly.");
  const bool weak = lub.node >= kDTypeNodes;
  const DType r = canonical(c, weak ? weak_dtype(lub.node) : kDTypes[lub.node]);
  std::string rule = "JAX's promotion lattice: the least upper bound is " + node_name(lub.node);
  // A weak scalar adopts the array's type only where the bound is that type: float16 and a Python
  // complex meet at complex64.
  if ((a.weak != b.weak) && !weak) {
    const Arg& array = a.weak ? b : a;
    rule += node_of(array.dtype) == lub.node
                ? " (a Python scalar is weakly typed and adopts the array's type)"
                : " (a Python scalar is weakly typed, but " + std::string(name(array.dtype)) +
                      " is not of its kind: the bound lies above both)";
  }
  if (weak) rule += ", so the default " + std::string(name(r)) + " of its kind";
  if (!c.x64) rule += "; with x64 off, 64-bit types become 32-bit";
  return returns(r, rule + ".");
}

// dot_general's type_properties: complex, finfo.maxexp, finfo.nmant, bit width, signed.
std::tuple<bool, int, int, int, bool> dot_properties(DType t) {
  const bool cplx = info(t).kind == DTypeKind::Complex;
  const DType c = t == DType::complex64 ? DType::float32 : t == DType::complex128 ? DType::float64 : t;
  if (is_float(c)) {
    const auto& f = info(c).format;
    return {cplx, f.emax() + 1, f.mantissa_bits, f.total_bits(), true};
  }
  const int bits = c == DType::bool_ ? 1 : value_bits(c);
  return {cplx, -1, -1, bits, info(c).kind != DTypeKind::UnsignedInt};
}

int bit_width(DType t) { return std::get<3>(dot_properties(t)); }

Outcome matmul_f32acc(const Config& c, DType a, DType b) {
  a = canonical(c, a);
  b = canonical(c, b);
  const auto pa = dot_properties(a), pb = dot_properties(b);
  DType r = a;
  if (pb > pa) r = b;
  else if (!(pa > pb) && a != b)
    return raises("TypeError",
                  "lax.dot_general argument type error: " + std::string(name(a)) + ", " + std::string(name(b)),
                  "With preferred_element_type, jnp.matmul does not promote: dot_general's type rule needs "
                  "one input to rank strictly higher (complex, then range, then mantissa, then width, then "
                  "signedness), and these tie.");
  const std::string picked =
      "dot_general's type rule needs one input to rank strictly higher (complex, then range, then mantissa, then "
      "width, then signedness): " +
      std::string(name(r));
  if (r == DType::float32) return returns(r, picked + ", which is the preferred float32.");
  if (!is_float(r) && bit_width(DType::float32) < bit_width(r))
    return raises("TypeError",
                  "`preferred_element_type` must not be narrower than the original type, got "
                  "preferred_element_type of float32 for result type of " +
                      std::string(name(r)) + ".",
                  picked + "; float32 has fewer bits, which dot_general refuses for non-float types.");
  // The recorded tables hold dtypes (jax.eval_shape), not how XLA converts the inputs or sums.
  return returns(DType::float32, picked + "; preferred_element_type=float32 makes the product float32.");
}

std::string overflow_path(Op op, bool first) {
  if (op == Op::TrueDivide) return first ? "x1" : "x2";
  return first ? "x" : "y";
}

}  // namespace

std::string_view op_name(Op op) { return kOpNames[static_cast<int>(op)]; }

std::optional<Op> parse_op(std::string_view n) { return find_named<Op>(kOpNames, n == "divide" ? "true_divide" : n); }

bool op_is_elementwise(Op op) { return op <= Op::TrueDivide; }
bool has_dtype(DType t) { return node_of(t) >= 0; }
DType held_as(const Config& c, DType t) { return canonical(c, t); }
std::string_view python_name(DType t) { return name(t); }

std::optional<DType> from_python_name(std::string_view n) { return find_dtype(kDTypes, n); }

namespace {
Outcome not_jax(DType t) {
  return raises("AttributeError", "module 'jax.numpy' has no attribute '" + std::string(name(t)) + "'",
                "JAX has no " + std::string(name(t)) + ".");
}
}  // namespace

Outcome promote_types(const Config& c, DType a, DType b) {
  if (!has_dtype(a)) return not_jax(a);
  if (!has_dtype(b)) return not_jax(b);
  const Lub lub = least_upper_bound(c, {node_of(a), node_of(b)});
  if (lub.node < 0) return raises("TypePromotionError", lub.message, "No common upper bound in JAX's lattice.");
  const DType r = lub.node >= kDTypeNodes ? weak_dtype(lub.node) : kDTypes[lub.node];
  return returns(r, "JAX's promotion lattice: the least upper bound is " + node_name(lub.node) +
                        " (jnp.promote_types does not apply the x64 setting).");
}

namespace {
// What the op's trace gives (jax.eval_shape, as the tables were recorded).
Outcome traced(const Config& c, Op op, const Operand& a, const Operand& b) {
  if (!has_dtype(a.dtype)) return not_jax(a.dtype);
  if (!has_dtype(b.dtype)) return not_jax(b.dtype);
  if (!op_is_elementwise(op) && (a.kind != OperandKind::Tensor || b.kind != OperandKind::Tensor))
    return raises("precision-lab", "jnp." + std::string(op_name(op)) + " is modelled for arrays only",
                  "Python scalar operands are modelled for the elementwise functions.");
  if (op == Op::Astype) {
    Outcome o =
        returns(canonical(c, b.dtype), c.x64 || canonical(c, b.dtype) == b.dtype
                                           ? "astype converts to the dtype asked for."
                                           : "astype converts to the dtype asked for, made 32-bit because x64 is off.");
    if (info(a.dtype).kind == DTypeKind::Complex && info(b.dtype).kind != DTypeKind::Complex)
      o.rule +=
          " It drops the imaginary part, with a DeprecationWarning: \"Casting from complex to real dtypes will "
          "soon raise a ValueError.\"";
    return o;
  }
  if (op == Op::MatmulF32Acc) return matmul_f32acc(c, a.dtype, b.dtype);
  if (a.kind == OperandKind::Scalar && b.kind == OperandKind::Scalar) return two_python_scalars("an array");
  std::array<Arg, 2> args;
  for (int i = 0; i < 2; ++i) {
    const Operand& x = i ? b : a;
    Arg& arg = args[i];
    arg = {canonical(c, x.dtype), false, -1};
    if (x.kind != OperandKind::Scalar) continue;
    const auto parsed = scalar_operand_value(x.value, x.dtype);
    if (!parsed) return raises("precision-lab", parsed.error(), "The operand cannot be built as written.");
    const PyValue& v = *parsed;
    // jit parses a Python int as the default integer type; one that does not fit raises.
    if (v.type == PyType::Int) {
      const __int128 lim = static_cast<__int128>(1) << (c.x64 ? 63 : 31);
      if (v.integer >= lim || v.integer < -lim)
        return raises("OverflowError",
                      "An overflow was encountered while parsing an argument to a jitted "
                      "computation, whose argument path is " +
                          overflow_path(op, i == 0) + ". Got <class 'int'> with value " + int128_to_string(v.integer),
                      "A Python int is passed to the jitted function as the default integer (int" +
                          std::string(c.x64 ? "64" : "32") + "), and this value does not fit.");
    }
    switch (v.type) {
      case PyType::Bool: arg = {DType::bool_, false, -1}; break;  // Python bool is not weak
      case PyType::Int: arg = {canonical(c, DType::int64), true, kWeakInt}; break;
      case PyType::Float: arg = {canonical(c, DType::float64), true, kWeakFloat}; break;
      case PyType::Complex: arg = {canonical(c, DType::complex128), true, kWeakComplex}; break;
    }
  }
  Outcome r = result_type(c, args[0], args[1]);
  if (!r.ok() || op != Op::TrueDivide) return r;
  // promote_dtypes_inexact: bool and integers up to 32 bits divide in float32, 64-bit
  // integers in float64 (dtypes._dtype_to_inexact).
  const DType t = *r.result;
  if (t == DType::bool_ || is_integer(t)) {
    const DType f = canonical(c, info(t).storage_bits == 64 ? DType::float64 : DType::float32);
    return returns(f, r.rule + " Division makes it inexact: " + std::string(name(f)) + ".");
  }
  return r;
}

bool is_float6(DType t) { return is_float(t) && info(t).format.total_bits() == 6; }
bool sub_byte(DType t) { return t == DType::int4 || t == DType::uint4 || t == DType::float4_e2m1fn; }
}  // namespace

// The traced answer, with what running it on XLA's CPU backend does where that differs: the
// tables hold traces, and these raise when run (tests/data/promotion/jax_runtime_cpu.json, run
// with JAX 0.10.2): any call with a float6 array (a float6 dtype that only labels a Python
// scalar makes none), and a matmul into float32 of two 4-bit arrays of one dtype (a 4-bit array
// with any other dtype runs).
Outcome evaluate(const Config& c, Op op, const Operand& a, const Operand& b) {
  Outcome r = traced(c, op, a, b);
  if (!r.ok()) return r;
  const auto float6_array = [](const Operand& o) { return is_float6(o.dtype) && o.kind != OperandKind::Scalar; };
  if (float6_array(a) || float6_array(b) || is_float6(*r.result))
    r.rule +=
        " (That is the trace: XLA's CPU backend cannot make float6 arrays, and running it raises "
        "JaxRuntimeError: Invalid XLA PrimitiveType.)";
  else if (op == Op::MatmulF32Acc && sub_byte(a.dtype) && a.dtype == b.dtype)
    r.rule +=
        " (That is the trace: run on XLA's CPU backend it raises JaxRuntimeError: the backend does not support "
        "custom element sizes on non-sub-byte types.)";
  return r;
}

}  // namespace pl::promote::jax
