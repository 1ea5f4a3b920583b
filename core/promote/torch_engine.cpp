// PyTorch's type promotion and dtype checks, in the order PyTorch makes them, for every release
// this engine reproduces (2.15 and 1.13, with and without oneDNN, under CPU autocast).
//
// Sections, in order (search for "// ----"):
//   c10/core/ScalarType.h categories      is_floating, is_integral, to_complex
//   promoteTypes                           the lookup table and promote()
//   result_type                            wrapped scalars, categories, common_dtype
//   kernels and casts                      require_kernel/copy, elementwise ops
//   matrix products                        mm, matmul, bmm, addmm, linear
//   convolutions                           the CPU path by shape (oneDNN or not), bias checks
//   public entry points                    promote_types, result_type, evaluate
#include "core/promote/torch_engine.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "core/promote/int_to_float.h"
#include "core/promote/py_value.h"
#include "core/promote/torch_names.h"
#include "core/util/names.h"
#include "core/util/number_text.h"

namespace pl::promote::torch {
namespace {

// PyTorch raises; we do the same inside the engine and turn it into an Outcome at the
// public edge, so each check below reads in the order PyTorch makes it.
struct Raised {
  std::string type;
  std::string message;
  std::string rule;
};

[[noreturn]] void raise(std::string type, std::string message, std::string rule) {
  throw Raised{std::move(type), std::move(message), std::move(rule)};
}

std::string S(DType t) { return std::string(scalar_type_name(t)); }
std::string C(DType t) { return std::string(cpp_type_name(t)); }
std::string P(DType t) { return "torch." + std::string(python_name(t)); }

bool in(DType t, std::initializer_list<DType> set) { return std::find(set.begin(), set.end(), t) != set.end(); }

// ---- c10/core/ScalarType.h categories --------------------------------------------------

bool is_float8(DType t) {
  return in(t, {DType::float8_e4m3fn, DType::float8_e5m2, DType::float8_e4m3fnuz, DType::float8_e5m2fnuz,
                DType::float8_e8m0fnu});
}
// isBarebonesUnsignedType: uint1..uint7 (uint4 here) and uint16/32/64.
bool is_barebones_unsigned(DType t) { return in(t, {DType::uint4, DType::uint16, DType::uint32, DType::uint64}); }
// torch.int4 and torch.uint4 (of int1..int7, uint1..uint7): storage only, no kernels or casts.
bool is_shell(DType t) { return is_packed_int(t); }
bool is_floating(DType t) {
  return in(t, {DType::float16, DType::bfloat16, DType::float32, DType::float64, DType::float4_e2m1fn}) || is_float8(t);
}
bool is_reduced_floating(DType t) {
  return in(t, {DType::float16, DType::bfloat16, DType::float4_e2m1fn}) || is_float8(t);
}
bool is_complex(DType t) { return in(t, {DType::complex32, DType::bcomplex32, DType::complex64, DType::complex128}); }
bool is_integral(DType t, bool include_bool) {
  return (include_bool && t == DType::bool_) || in(t, {DType::uint8, DType::int8, DType::int16, DType::int32,
                                                       DType::int64, DType::uint16, DType::uint32, DType::uint64});
}

// c10::toComplexType. 1.13 had no bcomplex32 and mapped bfloat16 to complex64 ("BFloat16
// has range equivalent to Float").
DType to_complex(DType t, Release r) {
  switch (t) {
    case DType::float16: return DType::complex32;
    case DType::bfloat16: return is_1_13(r) ? DType::complex64 : DType::bcomplex32;
    case DType::float32: return DType::complex64;
    case DType::float64: return DType::complex128;
    case DType::complex32:
    case DType::bcomplex32:
    case DType::complex64:
    case DType::complex128: return t;
    default:
      raise("RuntimeError", "Unknown Complex ScalarType for " + S(t),
            S(t) + " has no complex counterpart, so a complex scalar or zero-dim tensor cannot join it.");
  }
}

DType complex_value_type(DType t) {
  switch (t) {
    case DType::complex32: return DType::float16;
    case DType::bcomplex32: return DType::bfloat16;
    case DType::complex64: return DType::float32;
    case DType::complex128: return DType::float64;
    default: return t;
  }
}

// ---- promoteTypes (c10/core/ScalarType.cpp) ------------------------------------------

// The types _promoteTypesLookup covers; every other type has index -1 there.
bool in_lookup_table(DType t) {
  return in(t, {DType::bool_, DType::uint8, DType::int8, DType::int16, DType::int32, DType::int64, DType::float16,
                DType::bfloat16, DType::float32, DType::float64, DType::complex32, DType::bcomplex32, DType::complex64,
                DType::complex128});
}

int int_width(DType t) { return info(t).storage_bits; }

// _promoteTypesLookup, as the rule it encodes (NumPy's lattice, except uint8 + int8 ->
// int16 and float16 + bfloat16 -> float32, the smallest type holding both).
DType lookup(DType a, DType b, Release r) {
  if (a == b) return a;
  if (a == DType::bool_) return b;
  if (b == DType::bool_) return a;
  if (is_complex(a) || is_complex(b)) {
    DType ra = complex_value_type(a), rb = complex_value_type(b);
    if (is_integral(ra, false)) return is_complex(b) ? b : to_complex(rb, r);
    if (is_integral(rb, false)) return is_complex(a) ? a : to_complex(ra, r);
    return to_complex(lookup(ra, rb, r), r);
  }
  if (is_floating(a) && is_floating(b)) {
    if (in(a, {DType::float16, DType::bfloat16}) && in(b, {DType::float16, DType::bfloat16})) return DType::float32;
    return int_width(a) >= int_width(b) ? a : b;
  }
  if (is_floating(a)) return a;
  if (is_floating(b)) return b;
  // Both integers among uint8, int8..int64.
  if (a == DType::uint8 || b == DType::uint8) {
    DType other = a == DType::uint8 ? b : a;
    return other == DType::int8 ? DType::int16 : other;
  }
  return int_width(a) >= int_width(b) ? a : b;
}

DType promote(DType a, DType b, Release r) {
  if (a == b) return a;
  if (is_float8(a) || is_float8(b))
    raise("RuntimeError", "Promotion for Float8 Types is not supported, attempted to promote " + S(a) + " and " + S(b),
          "PyTorch's promoteTypes refuses float8 with any other dtype: convert explicitly with .to().");
  if (is_barebones_unsigned(a) || is_barebones_unsigned(b)) {
    if (is_floating(a)) return a;
    if (is_floating(b)) return b;
    raise("RuntimeError",
          "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote " + S(a) + " and " + S(b),
          "uint16/32/64 are 'barebones' types in PyTorch: they promote only to a float type.");
  }
  // The lookup table has no row for these; PyTorch's own internal assert fires (a bug
  // in PyTorch 2.15.0, reproduced with its build path).
  if (!in_lookup_table(a))
    raise("RuntimeError",
          "ix_a != -1 INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/c10/core/"
          "ScalarType.cpp\":103, please report a bug to PyTorch. ",
          S(a) + " is missing from PyTorch's promotion table: an internal assert fires.");
  if (!in_lookup_table(b))
    raise("RuntimeError",
          "ix_b != -1 INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/c10/core/"
          "ScalarType.cpp\":105, please report a bug to PyTorch. ",
          S(b) + " is missing from PyTorch's promotion table: an internal assert fires.");
  return lookup(a, b, r);
}

// ---- result_type (aten/src/ATen/native/TypeProperties.cpp) ----------------------------

// The dtype a Python scalar is wrapped as (scalar_to_tensor): bool, int64, float64 or
// complex128 by its Python type, and uint64 for an int in [2**63, 2**64) (2.x). The value is
// read as PyTorch's argument parser reads it (torch/csrc/utils/python_arg_parser.cpp,
// PythonArgs::scalar_slow): 2.x takes an int with PyLong_AsLongLongAndOverflow and, past int64,
// PyLong_AsUnsignedLongLong, whose OverflowErrors come through; 1.13 had only the first, and
// THPUtils_unpackLong's "Overflow when unpacking long". A float's or complex's magnitude never
// matters (1e300 wraps as float64 and overflows to inf in the op). Checked against
// tests/data/promotion/torch_values_cpu.json and torch1.13_values_cpu.json.
DType wrapped_dtype(const Operand& o, Release r) {
  const auto v = scalar_operand_value(o.value, o.dtype);
  if (!v) raise("precision-lab", v.error(), "The operand cannot be built as written.");
  switch (v->type) {
    case PyType::Bool: return DType::bool_;
    case PyType::Float: return DType::float64;
    case PyType::Complex: return DType::complex128;
    case PyType::Int: break;
  }
  if (v->integer >= int_lo(DType::int64) && v->integer <= int_hi(DType::int64)) return DType::int64;
  const std::string rule = "PyTorch reads a Python int as a 64-bit integer; " + o.value + " has no such value.";
  if (is_1_13(r)) raise("RuntimeError", "Overflow when unpacking long", rule);
  if (v->integer < int_lo(DType::int64)) raise("OverflowError", "can't convert negative int to unsigned", rule);
  if (v->integer > int_hi(DType::uint64)) raise("OverflowError", "int too big to convert", rule);
  return DType::uint64;
}
// The dtype a wrapped scalar counts as in result_type: floats and complex numbers count as the
// default dtype (float32, complex64).
DType scalar_participates_as(DType wrapped) {
  if (wrapped == DType::float64) return DType::float32;
  if (wrapped == DType::complex128) return DType::complex64;
  return wrapped;
}

// The operand as the op receives it: a Python scalar's dtype becomes the dtype it is wrapped
// as (an operand's dtype names only its Python type's category until then).
Operand as_received(Operand o, Release r) {
  if (o.kind == OperandKind::Scalar) o.dtype = wrapped_dtype(o, r);
  return o;
}

std::optional<DType> promote_skip_undefined(std::optional<DType> a, std::optional<DType> b, Release r) {
  if (!a) return b;
  if (!b) return a;
  return promote(*a, *b, r);
}

std::optional<DType> combine_categories(std::optional<DType> higher, std::optional<DType> lower, Release r) {
  if (higher && is_complex(*higher)) return higher;
  if (lower && is_complex(*lower)) {
    if (higher && is_floating(*higher)) return to_complex(*higher, r);  // keep higher's precision
    return lower;
  }
  if (higher && is_floating(*higher)) return higher;
  if ((higher && *higher == DType::bool_) || (lower && is_floating(*lower)))
    return promote_skip_undefined(higher, lower, r);
  if (higher) return higher;
  return lower;
}

struct Common {
  DType dtype;
  std::string rule;
};

// The result is one of the operands' dtypes. Within a category that is the wider one, which
// holds the other's values; across categories it is the higher category's, whatever the
// widths, and an integer turned float may lose digits or overflow (int_to_float.h).
std::string picks_an_operand(std::span<const Operand> ops, DType result) {
  // A complex result holds an integer in its real part, a float of the same precision:
  // complex64's is float32, which rounds int32 2^24 + 1 as float32 does.
  const std::optional<DType> part = is_complex(result) ? std::optional(complex_value_type(result)) : std::nullopt;
  for (const Operand& o : ops)
    if (o.dtype != result && is_integral(o.dtype, true) && (is_floating(result) || part))
      return std::string("PyTorch promotes by category (bool < integer < float < complex): a ") +
             (part ? "complex" : "float") + " dtype beats an integer dtype whatever their widths, so the result is " +
             P(result) + "; " + (part ? "its real part is " + P(*part) + ", and " : "") +
             int_to_float_loss(o.dtype, part.value_or(result)) + ".";
  return "Promotion picks the wider operand dtype (" + P(result) + "), which holds every value of the other.";
}

Common common_dtype(std::span<const Operand> ops, Release r) {
  std::optional<DType> dim, zero, wrapped;
  for (const Operand& o : ops) {
    switch (o.kind) {
      case OperandKind::Tensor: dim = promote_skip_undefined(dim, o.dtype, r); break;
      case OperandKind::ZeroDim: zero = promote_skip_undefined(zero, o.dtype, r); break;
      case OperandKind::Scalar: wrapped = promote_skip_undefined(wrapped, scalar_participates_as(o.dtype), r); break;
    }
  }
  const DType result = *combine_categories(dim, combine_categories(zero, wrapped, r), r);
  std::string rule;
  if (dim && *dim == result && (zero || wrapped) &&
      std::any_of(ops.begin(), ops.end(), [&](auto& o) { return o.kind != OperandKind::Tensor && o.dtype != result; }))
    rule =
        "Zero-dim tensors and Python scalars do not change the dtype of a dimensioned tensor "
        "unless their category (bool < integer < float < complex) is higher.";
  else if (!dim && zero && wrapped && *zero == result)
    rule =
        "A Python scalar does not change a zero-dim tensor's dtype unless its category "
        "is higher.";
  else if (wrapped && !dim && !zero)
    rule =
        "Python scalars alone take the default dtype of their highest category (bool < integer < "
        "float < complex): bool, int64, float32, complex64.";
  else if ((dim || zero) && wrapped && (is_floating(result) || is_complex(result)) &&
           std::none_of(ops.begin(), ops.end(),
                        [&](auto& o) { return o.kind != OperandKind::Scalar && o.dtype == result; }))
    rule =
        "A Python scalar of a higher category lifts integer tensors to the default dtype "
        "(float32, or complex64), or a float tensor to its complex counterpart.";
  else if (dim && zero && is_floating(*dim) && is_complex(result) && result == to_complex(*dim, r) &&
           std::none_of(ops.begin(), ops.end(), [&](auto& o) { return o.dtype == result; }))
    rule = "A complex zero-dim tensor lifts a float tensor to its complex counterpart (" + P(result) +
           "), the tensor's precision: the zero-dim tensor's " + P(*zero) + " values are cast to it" +
           (holds_every_value(*zero, result) ? " exactly." : ", and may round or overflow.");
  else if (ops.size() == 2 && ops[0].dtype == ops[1].dtype) rule = "Both operands have the same dtype.";
  else if (std::any_of(ops.begin(), ops.end(), [&](auto& o) { return o.dtype == result; }))
    rule = picks_an_operand(ops, result);
  else rule = "Neither dtype holds the other, so PyTorch picks the smallest that holds both (" + P(result) + ").";
  return {result, rule};
}

// ---- kernels and casts --------------------------------------------------------------

// 2.x raises NotImplementedError where 1.13 raised RuntimeError.
std::string_view not_implemented_error(Release r) { return is_1_13(r) ? "RuntimeError" : "NotImplementedError"; }

[[noreturn]] void not_implemented(std::string_view kernel, DType t, Release r) {
  raise(std::string(not_implemented_error(r)), "\"" + std::string(kernel) + "\" not implemented for '" + S(t) + "'",
        "PyTorch's CPU kernel " + std::string(kernel) + " has no " + P(t) +
            " version (its AT_DISPATCH list leaves it out).");
}

void require_kernel(std::string_view kernel, DType t, std::initializer_list<DType> supported, Release r) {
  if (!in(t, supported)) not_implemented(kernel, t, r);
}

// copy_ (aten/src/ATen/native/Copy.cpp and cpu/CopyKernel.cpp): every pair of dtypes
// converts except to or from float4_e2m1fn_x2, int4 and uint4. float32 <-> fp4 on a dimensioned tensor
// fails one level deeper, in copy_kernel; a single-element (zero-dim or scalar) source
// takes the scalar path, where "copy_" itself refuses.
void require_copy(DType from, DType to, bool single_element, Release r) {
  if (from == to) return;
  // int4 and uint4 copy to and from nothing; the error names them unless fp4 is the destination.
  if (to != DType::float4_e2m1fn && (is_shell(from) || is_shell(to)))
    not_implemented("copy_", is_shell(to) ? to : from, r);
  if (from != DType::float4_e2m1fn && to != DType::float4_e2m1fn) return;
  const DType other = from == DType::float4_e2m1fn ? to : from;
  const bool kernel_level = !single_element && other == DType::float32;
  not_implemented(kernel_level ? "copy_kernel" : "copy_", DType::float4_e2m1fn, r);
}

bool is_cpu_scalar(const Operand& o) { return o.kind != OperandKind::Tensor; }

constexpr std::initializer_list<DType> kAddTypes = {
    DType::bool_,     DType::uint8,     DType::int8,      DType::int16,   DType::int32,
    DType::int64,     DType::float16,   DType::bfloat16,  DType::float32, DType::float64,
    DType::complex32, DType::complex64, DType::complex128};
constexpr std::initializer_list<DType> kDivTypes = {DType::float16, DType::bfloat16,  DType::float32,
                                                    DType::float64, DType::complex64, DType::complex128};
constexpr std::initializer_list<DType> kReducedScalarTypes = {DType::float16, DType::bfloat16};
constexpr std::initializer_list<DType> kAddmmTypes = {
    DType::uint8,      DType::int8,          DType::int16,       DType::int32,           DType::int64,
    DType::float16,    DType::bfloat16,      DType::float32,     DType::float64,         DType::complex64,
    DType::complex128, DType::float8_e4m3fn, DType::float8_e5m2, DType::float8_e4m3fnuz, DType::float8_e5m2fnuz};
constexpr std::initializer_list<DType> kBmmTypes = {DType::uint8,   DType::int8,      DType::int16,     DType::int32,
                                                    DType::int64,   DType::float16,   DType::bfloat16,  DType::float32,
                                                    DType::float64, DType::complex64, DType::complex128};
// 1.13's CPU addmm, bmm and slow_conv2d had no float16 version.
constexpr std::initializer_list<DType> kAddmmTypesV1 = {
    DType::uint8,    DType::int8,    DType::int16,   DType::int32,     DType::int64,
    DType::bfloat16, DType::float32, DType::float64, DType::complex64, DType::complex128};
constexpr std::initializer_list<DType> kBmmTypesV1 = {
    DType::uint8,    DType::int8,    DType::int16,   DType::int32,     DType::int64,
    DType::bfloat16, DType::float32, DType::float64, DType::complex64, DType::complex128};
constexpr std::initializer_list<DType> kSlowConvTypesV1 = {DType::uint8,   DType::int8,   DType::int16,
                                                           DType::int32,   DType::int64,  DType::bfloat16,
                                                           DType::float32, DType::float64};
constexpr std::initializer_list<DType> kSlowConvTypes = {DType::uint8,    DType::int8,    DType::int16,
                                                         DType::int32,    DType::int64,   DType::float16,
                                                         DType::bfloat16, DType::float32, DType::float64};

// add, sub, mul, div: meta function checks, TensorIterator's common dtype and CPU casts,
// then the kernel's dispatch.
Common elementwise(Op op, const Operand& a, const Operand& b, Release r) {
  if (op == Op::Sub) {  // sub_check (aten/src/ATen/native/BinaryOps.h)
    const bool ba = a.dtype == DType::bool_, bb = b.dtype == DType::bool_;
    if (ba && bb)
      raise(std::string(not_implemented_error(r)),
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead.",
            "PyTorch refuses to subtract booleans.");
    if (ba || bb)
      raise(std::string(not_implemented_error(r)),
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead.",
            "PyTorch refuses to subtract booleans.");
  }
  const std::array<Operand, 2> ops{a, b};
  Common c = common_dtype(ops, r);
  if (op == Op::Div && is_integral(c.dtype, true)) {
    c.dtype = DType::float32;
    c.rule = "True division of integers or booleans returns the default float dtype (float32).";
  }
  for (const Operand& o : ops) require_copy(o.dtype, c.dtype, is_cpu_scalar(o), r);
  switch (op) {
    case Op::Add:
    case Op::Sub: require_kernel("add_stub", c.dtype, kAddTypes, r); break;
    case Op::Mul:
      if (is_cpu_scalar(b) && is_reduced_floating(c.dtype))
        require_kernel("mul_cpu_reduced_float", c.dtype, kReducedScalarTypes, r);
      else if (c.dtype == DType::float4_e2m1fn || c.dtype == DType::bcomplex32 || is_shell(c.dtype))
        not_implemented("mul_cpu", c.dtype, r);
      break;
    case Op::Div:
      if (is_cpu_scalar(b) && is_reduced_floating(c.dtype))
        require_kernel("div_cpu_reduced_float", c.dtype, kReducedScalarTypes, r);
      else require_kernel("div_cpu", c.dtype, kDivTypes, r);
      break;
    default: break;
  }
  return c;
}

// ---- matrix products (aten/src/ATen/native/LinearAlgebra.cpp) -------------------------

const std::string kNoPromotionRule =
    "Matrix products never promote in PyTorch: both operands must already share a dtype.";

// Why a bias of another dtype raises: addmm checks it against the weight. F.linear reaches addmm
// for the 2-D input the tables were recorded with; past two dimensions the path depends on the
// input's layout (gen_torch_linear_bias.py, torch_linear_bias.json and torch1.13_linear_bias.json).
std::string bias_mismatch_rule(Op op, Release r) {
  if (op != Op::Linear) return "The bias must have the operands' dtype too: addmm does not promote it.";
  return std::string(
             "F.linear on a 2-D input calls addmm, which does not promote the bias: it must have the "
             "operands' dtype too. ") +
         (is_1_13(r) ? "A contiguous 3-D input does the same; any other of 3 or more dimensions"
                     : "Any contiguous input does the same; a non-contiguous one of 3 or more dimensions") +
         " goes through matmul and an in-place add, which keeps the product's dtype (a complex bias then raises).";
}

void require_same_mm(DType a, DType b) {
  if (a != b)
    raise("RuntimeError", "expected m1 and m2 to have the same dtype, but got: " + C(a) + " != " + C(b),
          kNoPromotionRule);
}

// A kernel that dispatched on `expected` reads another tensor's data as that type:
// Tensor::data_ptr<T>() checks it.
void require_data_type(DType expected, DType found, const std::string& rule) {
  if (expected != found) raise("RuntimeError", "expected scalar type " + S(expected) + " but found " + S(found), rule);
}

// 1.13's matrix products: addmm's meta function compared the bias with mat2, then mat1
// with mat2, with no details; mm compared nothing, so the CPU kernel dispatched on the result's
// dtype (mat1's, or the bias's) and then read the other operands as that type.
Common matrix_v1(Op op, DType a, DType b, std::optional<DType> bias) {
  const Release r = Release::V1_13;
  if (op == Op::Bmm) {
    require_kernel("bmm", a, kBmmTypesV1, r);
    require_data_type(a, b, kNoPromotionRule);
    return {a, "Both operands have the same dtype, and a matrix product keeps it."};
  }
  if (bias && *bias != b) raise("RuntimeError", "self and mat2 must have the same dtype", bias_mismatch_rule(op, r));
  if (bias && a != b) raise("RuntimeError", "mat1 and mat2 must have the same dtype", kNoPromotionRule);
  require_kernel("addmm_impl_cpu_", a, kAddmmTypesV1, r);
  require_data_type(a, b, kNoPromotionRule);
  return {a, bias ? "Input, weight and bias share a dtype, and the result keeps it."
                  : "Both operands have the same dtype, and a matrix product keeps it."};
}

Common matrix(Op op, DType a, DType b, std::optional<DType> bias, Release r) {
  if (is_1_13(r)) return matrix_v1(op, a, b, bias);
  const std::string same = "Both operands have the same dtype, and a matrix product keeps it.";
  if (op == Op::Bmm) {  // dispatch on the batch1 dtype, then the kernel checks batch2
    require_kernel("bmm", a, kBmmTypes, r);
    require_data_type(a, b, kNoPromotionRule);
    return {a, same};
  }
  if (bias) {  // addmm (and linear with a bias, which calls it): addmm meta checks
    if (*bias != b)
      raise("RuntimeError", "self and mat2 must have the same dtype, but got " + S(*bias) + " and " + S(b),
            bias_mismatch_rule(op, r));
    if (a != b)
      raise("RuntimeError", "mat1 and mat2 must have the same dtype, but got " + S(a) + " and " + S(b),
            kNoPromotionRule);
    if (is_shell(a)) not_implemented("copy_kernel", a, r);  // the bias is copied into the result first
    require_kernel("addmm_impl_cpu_", a, kAddmmTypes, r);
    return {a, "Input, weight and bias share a dtype, and the result keeps it."};
  }
  require_same_mm(a, b);
  require_kernel("addmm_impl_cpu_", a, kAddmmTypes, r);
  return {a, same};
}

// ---- convolutions (aten/src/ATen/native/Convolution.cpp) -----------------------------

// CPU tensor type strings in convolution's check_input_same_type_as_parameters.
std::string type_string(DType t) { return tensor_type_string(t, /*cuda=*/false); }

void check_conv_bias(DType input, std::optional<DType> bias, const std::string& rule) {
  if (bias && *bias != input)
    raise("RuntimeError", "Input type (" + C(input) + ") and bias type (" + C(*bias) + ") should be the same", rule);
}

std::string onednn_reason(DType input, Release r) {
  if (input == DType::bfloat16)
    return " (On a CPU with AVX-512 PyTorch " + std::string(release_version(r)) +
           " runs bfloat16 convolutions in oneDNN, which words the error its own way.)";
  return " (PyTorch runs this float32 convolution in oneDNN -- a batch above 1, groups, a kernel above 3 x 3 in "
         "both sides or more than 20480 input elements pick it, but a 1 x 1 kernel on one thread needs a batch of "
         "16 -- and oneDNN's check words the error its own way; a small single-image convolution takes PyTorch's "
         "own kernel and says 'expected scalar type'.)";
}

const std::string kConvMismatchRule =
    "Convolutions never promote: input, weight and bias must share a dtype (the famous "
    "'Input type and weight type should be the same').";
const std::string kConv1dV1MismatchRule =
    "Convolutions never promote: input and weight must share a dtype (PyTorch 1.13's conv1d on the CPU "
    "never checked the bias's).";

Common convolution(Op op, DType input, DType weight, std::optional<DType> bias, Release r, const ConvShape& shape) {
  const std::string& mismatch_rule = kConvMismatchRule;
  const std::string same = "Input and weight share a dtype, and the convolution keeps it.";
  // 1.13's conv1d took its own path on the CPU: no bias check up front (a bias of any dtype
  // went through unchecked), and a complex input compared weight, then bias, by tensor type.
  const bool conv1d_v1 = is_1_13(r) && op == Op::Conv1d;
  // The bias is checked first, before the shapes too (2.15: conv2d of a 2-channel input, a
  // 1-channel weight and a float64 bias raises the bias's error), then the shapes.
  if (!conv1d_v1) check_conv_bias(input, bias, mismatch_rule);
  if (auto st = check_conv_shape(op, shape); !st) raise("precision-lab", st.error(), kConvShapeFirstRule);
  if (is_complex(input)) {  // complex input: complex_convolution checks types up front
    if (weight != input)
      raise("RuntimeError",
            "Input type (" + type_string(input) + ") and weight type (" + type_string(weight) + ") should be the same",
            mismatch_rule);
    if (conv1d_v1 && bias && *bias != input)
      raise("RuntimeError",
            "Input type (" + type_string(input) + ") and bias type (" + type_string(*bias) + ") should be the same",
            mismatch_rule);
    if (input == DType::bcomplex32) not_implemented("mul_cpu", input, r);
    // The complex convolution runs three real ones on the value type (1.13 had no float16).
    if (is_1_13(r)) require_kernel("slow_conv2d_cpu", complex_value_type(input), kSlowConvTypesV1, r);
    return {input, same};
  }
  if (conv_takes_onednn(op, input, shape, r)) {
    // oneDNN's convolution compares the tensor types, weight then bias, in
    // check_input_same_type_as_parameters (ATen/native/Convolution.cpp, 1.13 and 2.15; 2.15
    // has checked the bias above already, so only the weight's text is seen there).
    const std::string onednn_rule = mismatch_rule + onednn_reason(input, r);
    if (weight != input)
      raise("RuntimeError",
            "Input type (" + type_string(input) + ") and weight type (" + type_string(weight) +
                ") should be the same or input should be a MKLDNN tensor and weight is a dense tensor",
            onednn_rule);
    if (bias && *bias != input)
      raise("RuntimeError",
            "Input type (" + type_string(input) + ") and bias type (" + type_string(*bias) +
                ") should be the same or input should be a MKLDNN tensor and bias is a dense tensor",
            onednn_rule);
    return {input, same};
  }
  require_kernel("slow_conv2d_cpu", input, is_1_13(r) ? kSlowConvTypesV1 : kSlowConvTypes, r);
  require_data_type(input, weight, conv1d_v1 ? kConv1dV1MismatchRule : mismatch_rule);
  if (conv1d_v1 && bias && *bias != input)
    return {input,
            "PyTorch 1.13's conv1d on the CPU never checked the bias dtype: input and "
            "weight share a dtype, and the convolution keeps it."};
  return {input, same};
}

// ---- public entry points ------------------------------------------------------------

Outcome success(Common c) { return Outcome{c.dtype, "", "", std::move(c.rule)}; }

template <typename Fn>
Outcome run(Fn&& fn) {
  try {
    return success(fn());
  } catch (const Raised& r) {
    return Outcome{std::nullopt, r.type, r.message, r.rule};
  }
}

constexpr std::array<std::string_view, kOpCount> kOpNames = {"add", "sub",   "mul",    "div",    "matmul", "mm",
                                                             "bmm", "addmm", "linear", "conv1d", "conv2d", "to"};

}  // namespace

std::string_view op_name(Op op) { return kOpNames[static_cast<int>(op)]; }

std::optional<Op> parse_op(std::string_view name) { return find_named<Op>(kOpNames, name); }

bool op_is_elementwise(Op op) { return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div; }
bool op_takes_bias(Op op) { return op == Op::Addmm || op == Op::Linear || op == Op::Conv1d || op == Op::Conv2d; }
bool op_needs_bias(Op op) { return op == Op::Addmm; }
bool op_is_layer(Op op) { return op == Op::Linear || op == Op::Conv1d || op == Op::Conv2d; }

std::string_view release_version(Release r) { return is_1_13(r) ? "1.13.1" : kVersion; }

bool has_dtype(Release r, DType t) {
  if (!has_dtype(t)) return false;
  if (!is_1_13(r)) return true;
  return !(is_float8(t) || is_barebones_unsigned(t) || is_shell(t) || t == DType::bcomplex32 ||
           t == DType::float4_e2m1fn);
}

static Outcome not_a_torch_dtype(DType t) {
  return Outcome{std::nullopt, "AttributeError", "module 'torch' has no attribute '" + std::string(name(t)) + "'",
                 std::string(name(t)) + " is not a PyTorch dtype."};
}

Outcome promote_types(DType a, DType b, Release r) {
  for (DType t : {a, b})
    if (!has_dtype(r, t)) return not_a_torch_dtype(t);
  return run([&] {
    DType result = promote(a, b, r);
    const std::array<Operand, 2> ops{Operand{a}, Operand{b}};
    return Common{result, common_dtype(ops, r).rule};
  });
}

Outcome result_type(std::span<const Operand> operands, Release r) {
  for (const Operand& o : operands)
    if (!has_dtype(r, o.dtype)) return not_a_torch_dtype(o.dtype);
  return run([&] {
    std::vector<Operand> received;
    for (const Operand& o : operands) received.push_back(as_received(o, r));
    return common_dtype(received, r);
  });
}

ConvShape default_conv_shape(Op op) {
  if (op == Op::Conv1d) return {{1, 1, 3}, {1, 1, 2}};
  return {{1, 1, 3, 3}, {1, 1, 2, 2}};
}

Status check_conv_shape(Op op, const ConvShape& s) {
  const size_t rank = op == Op::Conv1d ? 3 : 4;
  const std::string n(op_name(op));
  if (s.input.size() != rank || s.weight.size() != rank)
    return Error{n + " takes an input of " + std::to_string(rank) + " dimensions (" +
                 (rank == 3 ? "N,C,L" : "N,C,H,W") + ") and a weight of " + std::to_string(rank) + " (" +
                 (rank == 3 ? "O,I,kL" : "O,I,kH,kW") + ")"};
  for (const auto* v : {&s.input, &s.weight})
    for (int64_t d : *v)
      if (d < 1 || d > (int64_t{1} << 31)) return Error{"every dimension must be a whole number from 1 to 2^31"};
  if (s.groups < 1) return Error{"groups must be at least 1"};
  if (s.weight[0] % s.groups != 0)
    return Error{"the weight's " + std::to_string(s.weight[0]) +
                 " output channels are not divisible by groups=" + std::to_string(s.groups)};
  if (s.input[1] != s.weight[1] * s.groups)
    return Error{"the input has " + std::to_string(s.input[1]) + " channels, but a weight of " +
                 std::to_string(s.weight[1]) + " input channels with groups=" + std::to_string(s.groups) + " expects " +
                 std::to_string(s.weight[1] * s.groups)};
  for (size_t i = 2; i < rank; ++i)
    if (s.weight[i] > s.input[i]) return Error{"the kernel is larger than the input"};
  if (s.threads < 1) return Error{"threads must be at least 1"};
  return {};
}

Expected<ConvShape> conv_shape_from_text(Op op, std::string_view input, std::string_view weight,
                                         std::optional<int64_t> groups, std::optional<int> threads,
                                         std::string_view input_label, std::string_view weight_label,
                                         std::string_view check_prefix) {
  ConvShape s = default_conv_shape(op);
  for (const auto& [text, out, label] :
       {std::tuple{input, &s.input, input_label}, std::tuple{weight, &s.weight, weight_label}}) {
    if (text.empty()) continue;
    auto dims = parse_dimensions(text);
    if (!dims) return Error{std::string(label) + ": " + dims.error()};
    *out = *dims;
  }
  if (groups) s.groups = *groups;
  if (threads) s.threads = *threads;
  if (auto st = check_conv_shape(op, s); !st) return Error{std::string(check_prefix) + st.error()};
  return s;
}

bool float32_conv_takes_onednn(Op op, const ConvShape& s) {
  // A conv1d is viewed as a conv2d of height 1: (N, C, 1, L) by (O, I, 1, kL).
  const bool one_d = op == Op::Conv1d;
  const int64_t n = s.input[0], c = s.input[1], h = one_d ? 1 : s.input[2], w = s.input.back();
  const int64_t kh = one_d ? 1 : s.weight[2], kw = s.weight.back();
  // "For 1x1 filters, MKLDNN is faster than THNN when multi-threaded, but THNN is faster when
  // single-threaded" (stride and dilation are 1 here).
  const bool not_single_threaded_1x1 = n >= 16 || kw != 1 || kh != 1 || s.threads > 1;
  // "for some case, native is faster"
  const bool large_enough = s.groups > 1 || (kw > 3 && kh > 3) || n > 1 || n * c * h * w > 20480;
  return not_single_threaded_1x1 && large_enough;
}

std::optional<Outcome> conv_bias_refusal(Op op, DType input, std::optional<DType> bias, Release r) {
  if (is_1_13(r) && op == Op::Conv1d) return std::nullopt;
  try {
    check_conv_bias(input, bias, kConvMismatchRule);
  } catch (const Raised& raised) {
    return Outcome{std::nullopt, raised.type, raised.message, raised.rule};
  }
  return std::nullopt;
}

bool conv_takes_onednn(Op op, DType input, const ConvShape& shape, Release r) {
  if (input == DType::bfloat16) return onednn_bf16(r);
  return input == DType::float32 && float32_conv_takes_onednn(op, shape);
}

Outcome evaluate(Op op, Operand a, Operand b, std::optional<DType> bias, Release r, const ConvShape* shape) {
  for (DType t : {a.dtype, b.dtype, bias.value_or(a.dtype)})
    if (!has_dtype(r, t)) return not_a_torch_dtype(t);
  // .to(dtype) takes a zero-dim source too where it was recorded (the 2.x tables; 1.13's have no
  // to:zerodim table); the other matrix ops take tensors only.
  const bool zero_dim_to = op == Op::To && !is_1_13(r) && a.kind == OperandKind::ZeroDim;
  const bool kinds_modelled = zero_dim_to || (a.kind == OperandKind::Tensor && b.kind == OperandKind::Tensor);
  if (!op_is_elementwise(op) && !kinds_modelled)
    return Outcome{std::nullopt, "precision-lab",
                   std::string(op_name(op)) + " is modelled for dimensioned tensors only",
                   "Operand kinds (zero-dim, Python scalar) matter for elementwise ops."};
  return run([&]() -> Common {
    if (op_is_elementwise(op)) {  // the arguments are parsed first, in order
      const Operand x = as_received(a, r), y = as_received(b, r);
      try {
        return elementwise(op, x, y, r);
      } catch (Raised& raised) {  // where a uint64 came from, which the question never named
        for (const Operand* o : {&x, &y})
          if (o->kind == OperandKind::Scalar && o->dtype == DType::uint64)
            raised.rule =
                "The Python int " + o->value + " is past int64, so PyTorch wraps it as a uint64 scalar. " + raised.rule;
        throw;
      }
    }
    if (op == Op::To) {
      require_copy(a.dtype, b.dtype, a.kind != OperandKind::Tensor, r);
      return {b.dtype, ".to(dtype) converts to exactly the dtype asked for."};
    }
    if (op == Op::Conv1d || op == Op::Conv2d) {
      return convolution(op, a.dtype, b.dtype, bias, r, shape ? *shape : default_conv_shape(op));
    }
    return matrix(op, a.dtype, b.dtype, op == Op::Addmm || op == Op::Linear ? bias : std::nullopt, r);
  });
}

}  // namespace pl::promote::torch
