#include "core/promote/tf_engine.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "core/dtype/find_dtype.h"
#include "core/promote/py_value.h"
#include "core/util/names.h"

namespace pl::promote::tf {
namespace {

constexpr std::array<std::string_view, kOpCount> kOpNames = {"add", "multiply", "truediv", "matmul", "cast"};

// The last six are more of tf.dtypes.experimental's (with the two float8s before them): no op
// takes them on the CPU, and Cast only to and from the integers (int4, uint4) or to themselves.
constexpr std::array<DType, 23> kDTypes = {
    DType::bool_,           DType::int8,           DType::uint8,    DType::int16,         DType::uint16,
    DType::int32,           DType::uint32,         DType::int64,    DType::uint64,        DType::float16,
    DType::bfloat16,        DType::float32,        DType::float64,  DType::complex64,     DType::complex128,
    DType::float8_e4m3fn,   DType::float8_e5m2,    DType::int4,     DType::uint4,         DType::float8_e4m3fnuz,
    DType::float8_e5m2fnuz, DType::float8_e4m3b11fnuz, DType::float4_e2m1fn};

bool in(DType t, std::initializer_list<DType> set) { return std::find(set.begin(), set.end(), t) != set.end(); }

bool is_fp8(DType t) { return t == DType::float8_e4m3fn || t == DType::float8_e5m2; }
bool is_int4(DType t) { return t == DType::int4 || t == DType::uint4; }
// The experimental floats no kernel but Cast's identity takes.
bool is_cast_only_to_itself(DType t) {
  return in(t, {DType::float8_e4m3fnuz, DType::float8_e5m2fnuz, DType::float8_e4m3b11fnuz, DType::float4_e2m1fn});
}
// What a Python int (converted through int64) or float (through double) cannot become: the
// CPU has no Cast from int64 to a float8 or float4, nor from double to those Cast takes only to
// themselves.
bool no_cast_from_python(PyType p, DType t) {
  if (p == PyType::Int) return is_fp8(t) || is_cast_only_to_itself(t);
  return p == PyType::Float && is_cast_only_to_itself(t);
}

// The CPU's Cast kernels, as 2.21 registers them: int4 and uint4 to and from the integers only,
// the fnuz float8s and float4_e2m1fn to nothing but themselves, and float8_e4m3fn and
// float8_e5m2 from neither bool, the integers nor complex.
bool has_cast_kernel(DType from, DType to) {
  if (from == to) return true;
  if (is_int4(from) || is_int4(to)) return is_integer(from) && is_integer(to);
  if (is_cast_only_to_itself(from) || is_cast_only_to_itself(to)) return false;
  if (is_fp8(to)) return is_float(from);
  return true;
}

// DataTypeString: how TensorFlow's C++ core names a dtype in op errors.
std::string core_name(DType t) {
  switch (t) {
    case DType::float16: return "half";
    case DType::float32: return "float";
    case DType::float64: return "double";
    default: return std::string(name(t));
  }
}
std::string repr(DType t) { return "tf." + std::string(name(t)); }  // repr(tf.DType)
std::string enum_name(DType t) {                                    // DT_FLOAT
  std::string n = core_name(t);
  std::transform(n.begin(), n.end(), n.begin(), [](char c) { return char(std::toupper(c)); });
  return "DT_" + n;
}

// ---------------------------------------------------------------------------------------
// Python scalars: the value of the operand's category, converted as convert_to_tensor does.

// How Python prints the category's default scalar (str(): a complex in parentheses).
std::string literal(PyType p) {
  const std::string v(default_literal(p));
  return p == PyType::Complex ? "(" + v + ")" : v;
}

// The dtype a Python scalar gets without a requested dtype.
DType default_dtype(PyType p) {
  switch (p) {
    case PyType::Bool: return DType::bool_;
    case PyType::Int: return DType::int32;
    case PyType::Float: return DType::float32;
    case PyType::Complex: return DType::complex128;
  }
  return DType::float32;
}

const std::string kCastNode = "{{function_node __wrapped__Cast_device_/job:localhost/replica:0/task:0/device:CPU:0}} ";

// Converting a Python scalar to a requested dtype: the Outcome is the tensor's dtype or
// the TypeError. A Python bool goes through the integer converters TensorFlow has for
// int32, int64, uint64 and the floats, not for the narrower integers (observed in 2.21).
Outcome convert(PyType p, DType to) {
  if (no_cast_from_python(p, to)) {
    const std::string via = p == PyType::Int ? "int64" : "double", target(name(to));
    return raises("TypeError",
                  "Error while casting from dtype " + via + " to " + target + ". " + kCastNode + "Cast " + via +
                      " to " + target + " is not supported",
                  "TensorFlow converts a Python " + std::string(p == PyType::Int ? "int" : "float") + " through " +
                      via + ", and has no " + via + " -> " + target + " cast on the CPU.");
  }
  bool fits = false;
  switch (p) {
    case PyType::Bool:
      fits = in(to, {DType::bool_, DType::int32, DType::int64, DType::uint64, DType::float16, DType::float32,
                     DType::float64, DType::complex128});
      break;
    case PyType::Int: fits = to != DType::bool_; break;
    case PyType::Float: fits = is_float(to) || info(to).kind == DTypeKind::Complex; break;
    case PyType::Complex: fits = info(to).kind == DTypeKind::Complex; break;
  }
  if (fits) return returns(to, "");
  return raises(
      "TypeError", "Cannot convert " + std::string(literal(p)) + " to EagerTensor of dtype " + core_name(to),
      "TensorFlow cannot convert the Python " + std::string(literal(p)) + " to " + std::string(name(to)) + ".");
}

// convert_to_tensor(value, dtype_hint=...): the hint if the conversion works, else the default.
DType convert_with_hint(PyType p, DType hint) {
  const Outcome o = convert(p, hint);
  return o.ok() ? *o.result : default_dtype(p);
}

// ---------------------------------------------------------------------------------------
// Op definitions, as the 2.21 CPU build prints them.

struct OpDef {
  std::string_view name;
  std::string_view signature;     // between "signature=" and the first attr
  std::string_view attrs_before;  // attrs printed before T's
  std::vector<DType> allowed;     // T's allowed list, in the OpDef's order
  std::string_view attrs_after;   // what follows T's attr inside Op<...>
};

const OpDef& add_v2() {
  static const OpDef d{
      "AddV2",
      "x:T, y:T -> z:T",
      "",
      {DType::bfloat16, DType::float16, DType::float32, DType::float64, DType::uint8, DType::uint16, DType::uint32,
       DType::uint64, DType::int8, DType::int16, DType::int32, DType::int64, DType::complex64, DType::complex128},
      "; is_commutative=true; is_aggregate=true"};
  return d;
}
const OpDef& mul() {
  static const OpDef d{
      "Mul",
      "x:T, y:T -> z:T",
      "",
      {DType::bfloat16, DType::float16, DType::float32, DType::float64, DType::uint8, DType::int8, DType::uint16,
       DType::int16, DType::int32, DType::uint32, DType::uint64, DType::int64, DType::complex64, DType::complex128},
      "; is_commutative=true"};
  return d;
}
const OpDef& mat_mul() {
  static const OpDef d{"MatMul",
                       "a:T, b:T -> product:T",
                       "attr=transpose_a:bool,default=false; attr=transpose_b:bool,default=false; ",
                       {DType::bfloat16, DType::float16, DType::float32, DType::float64, DType::int32, DType::int64,
                        DType::uint8, DType::uint16, DType::uint32, DType::uint64, DType::complex64, DType::complex128},
                       "; attr=grad_a:bool,default=false; attr=grad_b:bool,default=false"};
  return d;
}

std::string join(const std::vector<DType>& ts, std::string (*f)(DType)) {
  std::string out;
  for (DType t : ts) out += (out.empty() ? "" : ", ") + f(t);
  return out;
}

Outcome not_allowed(const OpDef& d, DType t) {
  return raises(
      "InvalidArgumentError",
      "Value for attr 'T' of " + core_name(t) + " is not in the list of allowed values: " + join(d.allowed, core_name) +
          "\n\t; NodeDef: {{node " + std::string(d.name) + "}}; Op<name=" + std::string(d.name) +
          "; signature=" + std::string(d.signature) + "; " + std::string(d.attrs_before) + "attr=T:type,allowed=[" +
          join(d.allowed, enum_name) + "]" + std::string(d.attrs_after) + "> [Op:" + std::string(d.name) + "] name: ",
      std::string(d.name) + " is not defined for " + std::string(name(t)) + ".");
}

// An op whose inputs share one type attribute T: T is the first input's dtype, and every
// other input must have it -- TensorFlow never promotes.
Outcome run_same_type_op(const OpDef& d, DType x, DType y) {
  if (std::find(d.allowed.begin(), d.allowed.end(), x) == d.allowed.end()) return not_allowed(d, x);
  if (y != x) {
    std::string rule = "TensorFlow does not promote: both inputs of " + std::string(d.name) +
                       " must have the first input's dtype " + std::string(name(x)) + ".";
    // The one kernel oneDNN replaces here: with TF_ENABLE_ONEDNN_OPTS=1 the message names it
    // (tf_onednn_cpu.json).
    if (&d == &mat_mul() && x == DType::float32)
      rule += " With oneDNN on (TF_ENABLE_ONEDNN_OPTS=1) the message begins \"cannot compute _MklMatMul\".";
    return raises("InvalidArgumentError",
                  "cannot compute " + std::string(d.name) + " as input #1(zero-based) was expected to be a " +
                      core_name(x) + " tensor but is a " + core_name(y) + " tensor [Op:" + std::string(d.name) +
                      "] name: ",
                  std::move(rule));
  }
  return returns(x, "Both inputs are " + std::string(name(x)) + ".");
}

// The MatMul kernels this build registers (CPU and the XLA CPU JIT device).
Outcome matmul_kernel(DType t) {
  if (!in(t, {DType::uint8, DType::uint16, DType::uint32, DType::uint64})) return returns(t, "");
  return raises("NotFoundError",
                "Could not find device for node: {{node MatMul}} = MatMul[T=" + enum_name(t) +
                    ", grad_a=false, grad_b=false, transpose_a=false, transpose_b=false]\n"
                    "All kernels registered for op MatMul:\n"
                    "  device='XLA_CPU_JIT'; T in [DT_FLOAT, DT_DOUBLE, DT_INT32, DT_COMPLEX64, "
                    "DT_INT64, DT_BFLOAT16, DT_COMPLEX128, DT_HALF]\n"
                    "  device='CPU'; T in [DT_INT64]\n  device='CPU'; T in [DT_INT32]\n"
                    "  device='CPU'; T in [DT_INT16]\n  device='CPU'; T in [DT_DOUBLE]\n"
                    "  device='CPU'; T in [DT_FLOAT]\n  device='CPU'; T in [DT_BFLOAT16]\n"
                    "  device='CPU'; T in [DT_HALF]\n  device='CPU'; T in [DT_COMPLEX128]\n"
                    "  device='CPU'; T in [DT_COMPLEX64]\n [Op:MatMul] name: ",
                "MatMul's definition allows " + std::string(name(t)) + " but no CPU kernel exists for it.");
}

Outcome sparse_matmul(DType a, DType b) {
  for (const auto& [attr, t] : {std::pair{"Ta", a}, std::pair{"Tb", b}})
    if (!in(t, {DType::float32, DType::bfloat16}))
      return raises("InvalidArgumentError",
                    std::string("Value for attr '") + attr + "' of " + core_name(t) +
                        " is not in the list of allowed values: float, bfloat16\n\t; NodeDef: {{node "
                        "SparseMatMul}}; Op<name=SparseMatMul; signature=a:Ta, b:Tb -> product:float; "
                        "attr=transpose_a:bool,default=false; attr=transpose_b:bool,default=false; "
                        "attr=a_is_sparse:bool,default=false; attr=b_is_sparse:bool,default=false; "
                        "attr=Ta:type,default=DT_FLOAT,allowed=[DT_FLOAT, DT_BFLOAT16]; "
                        "attr=Tb:type,default=DT_FLOAT,allowed=[DT_FLOAT, DT_BFLOAT16]> "
                        "[Op:SparseMatMul] name: ",
                    "tf.matmul sends a bfloat16 input mixed with another dtype to SparseMatMul, "
                    "which takes only float32 and bfloat16.");
  return returns(DType::float32,
                 "tf.matmul sends bfloat16 mixed with float32 to SparseMatMul, which "
                 "computes and returns float32.");
}

// _TRUEDIV_TABLE: what integers become before RealDiv (floats and complex stay).
std::optional<DType> truediv_type(DType t) {
  if (in(t, {DType::uint8, DType::int8, DType::uint16, DType::int16})) return DType::float32;
  if (in(t, {DType::uint32, DType::int32, DType::uint64, DType::int64})) return DType::float64;
  if (in(t, {DType::bfloat16, DType::float16, DType::float32, DType::float64})) return t;
  if (info(t).kind == DTypeKind::Complex) return t;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// NumPy behaviour ("all" mode): _BINARY_DTYPE_RES_FULL of framework/flexible_dtypes.py,
// transcribed. Rows and columns: the dtypes, then the weak types a Python int / float /
// complex gets (i32w, f32w, c128w) and the weak results i64w, f64w. "!" marks results only
// the "all" mode allows ("safe" mode raises instead).
constexpr std::array<std::string_view, 20> kFlexNames = {"b",    "u8",   "u16",  "u32",  "u64",  "i8",   "i16",
                                                         "i32",  "i64",  "bf16", "f16",  "f32",  "f64",  "c64",
                                                         "c128", "i32w", "i64w", "f32w", "f64w", "c128w"};
constexpr std::array<std::string_view, 20> kFlexTable = {
    "b u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i32w i64w f32w f64w c128w",
    "u8 u8 u16 u32 u64 i16! i16 i32 i64 bf16 f16 f32 f64 c64 c128 u8 u8 f64w! f64w c128w",
    "u16 u16 u16 u32 u64 i32! i32! i32 i64 bf16! f16! f32 f64 c64 c128 u16 u16 f64w! f64w c128w",
    "u32 u32 u32 u32 u64 i64! i64! i64! i64 bf16! f16! f32! f64 c64! c128 u32 u32 f64w! f64w c128w",
    "u64 u64 u64 u64 u64 f64w! f64w! f64w! f64w! bf16! f16! f32! f64! c64! c128! u64 u64 f64w! f64w! c128w!",
    "i8 i16! i32! i64! f64w! i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i8 i8 f64w! f64w c128w",
    "i16 i16 i32! i64! f64w! i16 i16 i32 i64 bf16! f16! f32 f64 c64 c128 i16 i16 f64w! f64w c128w",
    "i32 i32 i32 i64! f64w! i32 i32 i32 i64 bf16! f16! f32! f64 c64! c128 i32 i32 f64w! f64w c128w",
    "i64 i64 i64 i64 f64w! i64 i64 i64 i64 bf16! f16! f32! f64! c64! c128! i64 i64 f64w! f64w! c128w!",
    "bf16 bf16 bf16! bf16! bf16! bf16 bf16! bf16! bf16! bf16 f32! f32 f64 c64 c128 bf16 bf16 bf16 bf16 c64!",
    "f16 f16 f16! f16! f16! f16 f16! f16! f16! f32! f16 f32 f64 c64 c128 f16 f16 f16 f16 c64!",
    "f32 f32 f32 f32! f32! f32 f32 f32! f32! f32 f32 f32 f64 c64 c128 f32 f32 f32 f32 c64!",
    "f64 f64 f64 f64 f64! f64 f64 f64 f64! f64 f64 f64 f64 c128! c128 f64 f64 f64 f64 c128",
    "c64 c64 c64 c64! c64! c64 c64 c64! c64! c64 c64 c64 c128! c64 c128 c64 c64 c64 c64 c64",
    "c128 c128 c128 c128 c128! c128 c128 c128 c128! c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128",
    "i32w u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i32w i64w f32w f64w c128w",
    "i64w u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i64w i64w f32w f64w c128w",
    "f32w f64w! f64w! f64w! f64w! f64w! f64w! f64w! f64w! bf16 f16 f32 f64 c64 c128 f32w f32w f32w f64w c128w",
    "f64w f64w f64w f64w f64w! f64w f64w f64w f64w! bf16 f16 f32 f64 c64 c128 f64w f64w f64w f64w c128w",
    "c128w c128w c128w c128w c128w! c128w c128w c128w c128w! c64! c64! c64! c128 c64 c128 c128w c128w c128w c128w "
    "c128w",
};
constexpr std::array<DType, 20> kFlexDTypes = {DType::bool_,   DType::uint8,     DType::uint16,     DType::uint32,
                                               DType::uint64,  DType::int8,      DType::int16,      DType::int32,
                                               DType::int64,   DType::bfloat16,  DType::float16,    DType::float32,
                                               DType::float64, DType::complex64, DType::complex128, DType::int32,
                                               DType::int64,   DType::float32,   DType::float64,    DType::complex128};
constexpr int kWeakInt32 = 15, kWeakFloat32 = 17, kWeakComplex128 = 19;

int flex_index(std::string_view code) {
  if (!code.empty() && code.back() == '!') code.remove_suffix(1);
  for (int i = 0; i < 20; ++i)
    if (kFlexNames[i] == code) return i;
  return -1;
}

// The table's entry for two inputs (flex indices): the result's flex index.
int flex_result(int a, int b) {
  std::string_view row = kFlexTable[a];
  for (int j = 0;; ++j) {
    const size_t sp = row.find(' ');
    if (j == b) return flex_index(row.substr(0, sp));
    row.remove_prefix(sp + 1);
  }
}

// An input's (dtype, weakness) as _get_dtype_and_weakness sees it; -1: not in the table
// (the float8, float4 and four-bit integer types), so the op falls back to the default semantics.
int flex_input(DType t, bool scalar, PyType p) {
  if (scalar) {
    switch (p) {
      case PyType::Bool: return 0;
      case PyType::Int: return kWeakInt32;
      case PyType::Float: return kWeakFloat32;
      case PyType::Complex: return kWeakComplex128;
    }
  }
  for (int i = 0; i < 15; ++i)
    if (kFlexDTypes[i] == t) return i;
  return -1;
}

// One input as the Python function receives it: a tensor's dtype, or a Python scalar.
struct In {
  DType dtype;
  bool scalar;
  PyType py;
};

}  // namespace

std::string_view op_name(Op op) { return kOpNames[static_cast<int>(op)]; }

std::optional<Op> parse_op(std::string_view n) { return find_named<Op>(kOpNames, n); }

bool op_is_elementwise(Op op) { return op <= Op::Truediv; }

bool has_dtype(DType t) { return std::find(kDTypes.begin(), kDTypes.end(), t) != kDTypes.end(); }

std::string_view python_name(DType t) { return name(t); }

std::optional<DType> from_python_name(std::string_view n) { return find_dtype(kDTypes, n); }

namespace {
Outcome evaluate_default(Op op, const In& x, const In& y);

// The "all" mode: the table's dtype, every input converted (Python scalars) or cast
// (tensors) to it, then the original op on two inputs of one dtype.
Outcome evaluate_numpy_behavior(Op op, const In& x, const In& y) {
  const int fx = flex_input(x.dtype, x.scalar, x.py), fy = flex_input(y.dtype, y.scalar, y.py);
  if (fx < 0 || fy < 0) {
    Outcome r = evaluate_default(op, x, y);
    r.rule = std::string(name(fx < 0 ? x.dtype : y.dtype)) +
             " is outside TensorFlow's auto-conversion table, so the op falls back to the default semantics. " +
             r.rule;
    return r;
  }
  const int fr = flex_result(fx, fy);
  const DType t = kFlexDTypes[fr];
  for (const In* in : {&x, &y})
    if (in->scalar) {
      Outcome c = convert(in->py, t);
      if (!c.ok()) return c;
    }
  const std::string why = "NumPy-style mode: TensorFlow's promotion table (flexible_dtypes) gives " +
                          std::string(name(t)) + (fr >= 15 ? " (weak)" : "") + "; both inputs become " +
                          std::string(name(t)) + ". ";
  Outcome r = evaluate_default(op, In{t, false, x.py}, In{t, false, y.py});
  r.rule = why + r.rule;
  return r;
}
}  // namespace

Outcome evaluate(const Config& c, Op op, const Operand& a, const Operand& b) {
  for (DType t : {a.dtype, b.dtype}) {
    if (has_dtype(t)) continue;
    return raises("AttributeError", "module 'tensorflow' has no attribute '" + std::string(name(t)) + "'",
                  "TensorFlow has no " + std::string(name(t)) + ".");
  }
  const bool a_scalar = a.kind == OperandKind::Scalar, b_scalar = b.kind == OperandKind::Scalar;
  if (!op_is_elementwise(op) && (a_scalar || b_scalar))
    return raises("precision-lab", "tf." + std::string(op_name(op)) + " is modelled for tensors only",
                  "Python scalar operands are modelled for add, multiply and truediv.");
  if (a_scalar && b_scalar) return two_python_scalars("a tensor");
  if (!a.value.empty() || !b.value.empty())
    return raises("precision-lab", "the tf engine models the default scalar values only",
                  "Values are modelled by the numpy, jax and torch engines.");
  const In x{a.dtype, a_scalar, py_type_of(a.dtype)}, y{b.dtype, b_scalar, py_type_of(b.dtype)};
  if (c.numpy_behavior && op != Op::Cast) return evaluate_numpy_behavior(op, x, y);
  return evaluate_default(op, x, y);
}

namespace {
Outcome evaluate_default(Op op, const In& x, const In& y) {
  const Operand a{x.dtype}, b{y.dtype};
  switch (op) {
    case Op::Cast:
      if (!has_cast_kernel(a.dtype, b.dtype))
        return raises("UnimplementedError",
                      kCastNode + "Cast " + core_name(a.dtype) + " to " + core_name(b.dtype) +
                          " is not supported [Op:Cast] name: ",
                      "The CPU has no Cast kernel from " + std::string(name(a.dtype)) + " to " +
                          std::string(name(b.dtype)) + ".");
      return returns(b.dtype, "tf.cast converts to the dtype asked for.");
    case Op::Matmul: {
      const bool sparse =
          a.dtype != b.dtype && ((a.dtype == DType::bfloat16 && !in(b.dtype, {DType::int8, DType::uint8})) ||
                                 (b.dtype == DType::bfloat16 && !in(a.dtype, {DType::int8, DType::uint8})));
      if (sparse) return sparse_matmul(a.dtype, b.dtype);
      // Eager execution looks up the kernel for T before it checks the second input.
      const auto& allowed = mat_mul().allowed;
      if (std::find(allowed.begin(), allowed.end(), a.dtype) != allowed.end()) {
        Outcome k = matmul_kernel(a.dtype);
        if (!k.ok()) return k;
      }
      return run_same_type_op(mat_mul(), a.dtype, b.dtype);
    }
    case Op::Multiply: {
      // gen_math_ops.mul's fast path: T comes from the first input that is a tensor; a
      // Python scalar is converted to it (no fallback).
      const DType t = x.scalar ? y.dtype : x.dtype;
      const In& s = x.scalar ? x : y;
      if (s.scalar) {
        Outcome c = convert(s.py, t);
        if (!c.ok()) return c;
      }
      Outcome r = run_same_type_op(mul(), t, x.scalar || y.scalar ? t : y.dtype);
      if (r.ok() && (x.scalar || y.scalar))
        r.rule = "The Python scalar is converted to the tensor's dtype " + std::string(name(t)) + ".";
      return r;
    }
    case Op::Add:
    case Op::Truediv: {
      // math_ops.add and _truediv_python3: x = convert_to_tensor(x) (a Python scalar gets its
      // default dtype), y = convert_to_tensor(y, dtype_hint=x.dtype) (the hint if possible).
      const DType dx = x.scalar ? default_dtype(x.py) : x.dtype;
      const DType dy = y.scalar ? convert_with_hint(y.py, dx) : y.dtype;
      std::string how;
      if (x.scalar) how = "The Python " + std::string(literal(x.py)) + " becomes " + std::string(name(dx)) + ". ";
      if (y.scalar)
        how = dy == dx ? "The Python scalar is converted to " + std::string(name(dx)) + ". "
                       : "The Python " + std::string(literal(y.py)) + " cannot become " + std::string(name(dx)) +
                             ", so it becomes " + std::string(name(dy)) + ". ";
      if (op == Op::Add) {
        Outcome r = run_same_type_op(add_v2(), dx, dy);
        r.rule = how + r.rule;
        return r;
      }
      if (dx != dy)
        return raises("TypeError", "`x` and `y` must have the same dtype, got " + repr(dx) + " != " + repr(dy) + ".",
                      how + "tf.math.truediv requires both dtypes to be equal.");
      const auto t = truediv_type(dx);
      if (!t) {
        std::string expected;
        for (DType e : {DType::uint8, DType::int8, DType::uint16, DType::int16, DType::uint32, DType::int32,
                        DType::uint64, DType::int64, DType::bfloat16, DType::float16, DType::float32, DType::float64,
                        DType::complex64, DType::complex128})
          expected += (expected.empty() ? "" : ", ") + repr(e);
        return raises("TypeError", "Invalid dtype " + repr(dx) + " in __truediv__. Expected one of {" + expected + "}.",
                      how + "truediv has no rule for " + std::string(name(dx)) + ".");
      }
      return returns(*t, how + (*t == dx ? "truediv keeps " + std::string(name(dx)) + "."
                                         : "truediv turns " + std::string(name(dx)) + " into " + std::string(name(*t)) +
                                               " first (_TRUEDIV_TABLE)."));
    }
  }
  return raises("precision-lab", "unknown op", "");
}
}  // namespace

}  // namespace pl::promote::tf
