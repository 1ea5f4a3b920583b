#include "core/promote/numpy_engine.h"

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/promote/int_to_float.h"
#include "core/promote/numpy_types.h"
#include "core/promote/py_value.h"
#include "core/util/names.h"

namespace pl::promote::numpy {
namespace {

constexpr std::array<std::string_view, kOpCount> kOpNames = {"add",    "subtract", "multiply", "true_divide",
                                                             "matmul", "dot",      "astype"};

std::string nm(DType t) { return std::string(python_name(t)); }

bool is_int_or_bool(DType t) { return t == DType::bool_ || is_integer(t); }
bool is_unsigned(DType t) { return info(t).kind == DTypeKind::UnsignedInt; }

// Whether a Python int gets to dtype t at all: NumPy's integers and ml_dtypes' types take one
// through a C long (int64), and NumPy's uint32 and uint64 through an unsigned one too.
bool through_c_long(__int128 n, DType t) {
  const bool unsigned_wide = !is_user_dtype(t) && (t == DType::uint32 || t == DType::uint64);
  return (n >= int_lo(DType::int64) && n <= int_hi(DType::int64)) ||
         (unsigned_wide && n >= 0 && n <= int_hi(DType::uint64));
}

// One operand as a ufunc sees it.
struct Arg {
  DType dtype;  // an array's dtype; for a Python scalar, the dtype NumPy 1.x gives it
  OperandKind kind;
  PyValue value;  // zero-dim and scalar operands
  std::string note;  // a zero-dim integer that holds another value than the one written, said
  bool weak() const { return kind == OperandKind::Scalar && value.type != PyType::Bool; }
  bool zero_dim() const { return kind != OperandKind::Tensor; }
  // How a rule names it: NumPy 1.x treats a Python scalar as a zero-dim array, but the user
  // wrote a scalar.
  std::string_view what() const { return kind == OperandKind::Scalar ? "the Python scalar" : "the zero-dim operand"; }
};

}  // namespace

ZeroDim build_zero_dim(Version v, DType t, const PyValue& x) {
  auto raise = [](std::string type, std::string message, bool late = false) {
    return ZeroDim{std::nullopt, type, message, late};
  };
  const bool ml = is_user_dtype(t);
  const PyType want = py_type_of(t);
  PyValue out = x;
  out.type = want;
  if (want == PyType::Bool) {  // bool(v): any nonzero part, NaN included
    out.integer = x.integer != 0 || x.real != 0 || x.imag != 0;
    out.real = static_cast<double>(out.integer), out.imag = 0;
    return ZeroDim{out, "", "", false};
  }
  if (x.type == PyType::Complex && want != PyType::Complex) {
    if (ml) return raise("TypeError", "expected number, got complex");
    return raise("TypeError",
                 want == PyType::Int
                     ? "int() argument must be a string, a bytes-like object or a real number, not 'complex'"
                     : "float() argument must be a string or a real number, not 'complex'");
  }
  if (want == PyType::Int) {
    __int128 n = x.integer;
    if (x.type == PyType::Float) {
      if (std::isnan(x.real)) return raise("ValueError", "cannot convert float NaN to integer");
      if (ml) {  // ml_dtypes checks a float against the type's own range
        const double r = std::trunc(x.real);
        if (!(r >= static_cast<double>(int_lo(t)) && r <= static_cast<double>(int_hi(t))))
          return raise("OverflowError",
                       std::isinf(x.real) && v != Version::V1
                           ? "cannot convert float infinity to integer"
                           // (0.5.1 and 0.6.0 name int4 for uint4 too)
                           : "out of range value cannot be converted to " +
                                 std::string(v == Version::V2Ml07 ? python_name(t) : "int4"),
                       v == Version::V1);
        n = static_cast<__int128>(r);
      } else {
        if (std::isinf(x.real)) return raise("OverflowError", "cannot convert float infinity to integer");
        if (!(std::fabs(x.real) < 0x1p126)) return raise("OverflowError", "Python int too large to convert to C long");
        n = static_cast<__int128>(std::trunc(x.real));
      }
    }
    if (!through_c_long(n, t)) {
      if (ml && v == Version::V1) return raise("TypeError", "expected number, got int");
      return raise("OverflowError", "Python int too large to convert to C long");
    }
    if (n < int_lo(t) || n > int_hi(t)) {
      if (!ml && v != Version::V1)
        return raise("OverflowError", "Python integer " + int128_to_string(n) + " out of bounds for " + nm(t));
      // Wrapped to the type's width, two's complement.
      const int bits = value_bits(t);
      const __int128 span = static_cast<__int128>(1) << bits;
      n %= span;
      if (n < 0) n += span;
      if (n > int_hi(t)) n -= span;
    }
    out.integer = n;
    out.real = static_cast<double>(n), out.imag = 0;
    return ZeroDim{out, "", "", false};
  }
  // ml_dtypes 0.5.1's and 0.6.0's floats take a Python int through a C long too (0.7.0's take any).
  if (ml && x.type == PyType::Int && v != Version::V2Ml07 && !through_c_long(x.integer, t))
    return raise("TypeError", "expected number, got int");
  if (t == DType::float32 || t == DType::complex64) {
    out.real = static_cast<float>(x.real);
    out.imag = static_cast<float>(x.imag);
  }
  if (want != PyType::Complex) out.imag = 0;
  return ZeroDim{out, "", "", false};
}

namespace {

// Builds the Arg, or the reason the operand cannot be built the way the user wrote it.
Expected<Arg> make_arg(Version v, const Operand& op) {
  Arg a{op.dtype, op.kind, default_py_value(py_type_of(op.dtype)), ""};
  if (op.kind == OperandKind::Tensor) return a;
  if (op.kind == OperandKind::Scalar) {
    auto value = scalar_operand_value(op.value, op.dtype);
    if (!value) return Error{value.error()};
    a.value = *value;
    // NumPy 1.x turns Python scalars into zero-dim arrays of these dtypes.
    switch (a.value.type) {
      case PyType::Bool: a.dtype = DType::bool_; break;
      case PyType::Int: a.dtype = a.value.integer > int_hi(DType::int64) ? DType::uint64 : DType::int64; break;
      case PyType::Float: a.dtype = DType::float64; break;
      case PyType::Complex: a.dtype = DType::complex128; break;
    }
    return a;
  }
  if (op.value.empty()) return a;  // the default, which every dtype holds
  auto value = parse_py_value(op.value);
  if (!value) return Error{value.error()};
  const ZeroDim built = build_zero_dim(v, op.dtype, *value);
  const std::string call = "np.array(" + op.value + ", dtype=" + qualified_name(op.dtype) + ")";
  if (!built.value && built.raised_late)
    return Error{call + " returns with " + built.error_type + ": " + built.message + " pending (" +
                 std::string(ml_dtypes_release(v)) + "): a later call raises it, or a SystemError from it"};
  if (!built.value) return Error{call + " raises " + built.error_type + ": " + built.message};
  a.value = *built.value;
  if (py_type_of(op.dtype) == PyType::Int && (value->type != PyType::Int || value->integer != a.value.integer)) {
    a.note = call + " holds " + int128_to_string(a.value.integer);
    if (value->type == PyType::Float) a.note += " (int() of the float, toward zero)";
    else if (is_user_dtype(op.dtype)) a.note += " (ml_dtypes wraps an integer to the type's four bits)";
    else a.note += " (NumPy 1.x wraps an integer past the dtype's range, with a DeprecationWarning)";
    a.note += ". ";
  }
  return a;
}

// ---------------------------------------------------------------------------------------
// NumPy 1.x value-based casting (numpy/core/src/multiarray/convert_datatype.c, 1.26).

// dtype_kind_to_simplified_ordering: bool < integers < floats and complex < anything else
// (ml_dtypes' kind 'V'; float8_e5m2 has kind 'f').
int kind_order(DType t) {
  switch (kind_char(t)) {
    case 'b': return 0;
    case 'u':
    case 'i': return 1;
    case 'f':
    case 'c': return 2;
    default: return 3;
  }
}

// should_use_min_scalar: zero-dim operands count by value only when some operand has
// dimensions and no zero-dim operand is of a higher kind than every dimensioned one.
bool use_min_scalar(const Arg& a, const Arg& b) {
  if (a.zero_dim() == b.zero_dim()) return false;
  const Arg& arr = a.zero_dim() ? b : a;
  const Arg& sc = a.zero_dim() ? a : b;
  return kind_order(sc.dtype) <= kind_order(arr.dtype);
}

struct MinScalar {
  DType dtype;
  bool small_unsigned = false;  // a non-negative integer that also fits the signed type
};

// min_scalar_type_num: the smallest type that holds a zero-dim value.
MinScalar min_scalar_type(const Arg& a) {
  const DType t = a.dtype;
  if (is_user_dtype(t) || t == DType::bool_) return {t};
  if (is_integer(t)) {
    const __int128 v = a.value.integer;
    constexpr std::array<DType, 4> kU = {DType::uint8, DType::uint16, DType::uint32, DType::uint64};
    constexpr std::array<DType, 4> kS = {DType::int8, DType::int16, DType::int32, DType::int64};
    if (v >= 0) {
      for (int i = 0; i < 4; ++i)
        if (v <= int_hi(kU[i])) return {kU[i], v <= int_hi(kS[i])};
    }
    for (DType s : kS)
      if (v >= int_lo(s)) return {s};
    return {DType::int64};
  }
  const double re = a.value.real, im = a.value.imag;
  auto within = [](double x, double lim) { return x > -lim && x < lim; };
  switch (t) {
    case DType::float16: return {t};
    case DType::float32: return {within(re, 65000) || !std::isfinite(re) ? DType::float16 : t};
    case DType::float64:
      if (within(re, 65000) || !std::isfinite(re)) return {DType::float16};
      return {within(re, 3.4e38) ? DType::float32 : t};
    case DType::complex128: return {within(re, 3.4e38) && within(im, 3.4e38) ? DType::complex64 : t};
    default: return {t};
  }
}

DType signed_twin(DType t) {
  switch (t) {
    case DType::uint8: return DType::int8;
    case DType::uint16: return DType::int16;
    case DType::uint32: return DType::int32;
    case DType::uint64: return DType::int64;
    default: return t;
  }
}

// promote_types with the small-unsigned flags (convert_datatype.c): a small unsigned
// scalar promotes as its signed twin against a signed or floating type.
DType promote_small(MinScalar x, MinScalar y) {
  if (x.small_unsigned && !is_user_dtype(y.dtype) && y.dtype != DType::bool_ && !is_unsigned(y.dtype))
    x.dtype = signed_twin(x.dtype);
  else if (y.small_unsigned && !is_user_dtype(x.dtype) && x.dtype != DType::bool_ && !is_unsigned(x.dtype))
    y.dtype = signed_twin(y.dtype);
  return *common_type(x.dtype, y.dtype, Version::V1);  // builtins only: always defined
}

// ---------------------------------------------------------------------------------------
// Loop search, both releases (ufunc_type_resolution.c: linear_search_type_resolver and
// linear_search_userloop_type_resolver): first the loops ml_dtypes registered for the
// first operand's type, then the second's, then the ufunc's builtin loops in order; the
// first loop every input can be cast to safely wins. ml_dtypes registers (T, T) -> T for
// add, subtract, multiply and true_divide, nothing for matmul.

std::vector<DType> builtin_loops(Op op) {
  std::vector<DType> out;
  for (DType t : builtin_loop_order()) {
    if (op == Op::Subtract && t == DType::bool_) continue;
    if (op == Op::TrueDivide && !(is_float(t) || info(t).kind == DTypeKind::Complex)) continue;
    out.push_back(t);
  }
  return out;
}

// NumPy 2: can_cast_pyscalar_scalar_to (array_coercion / convert_datatype.c) for a weak
// Python int, float or complex.
bool pyscalar_casts_to(PyType py, DType to, Version v) {
  if (info(to).kind == DTypeKind::Complex) return true;
  // ml_dtypes 0.7.0's types are NumPy floats and integers: a Python scalar joins them as it
  // joins float32 or int8 (a bfloat16 array + 2.5 is bfloat16, an int4 array + 2 is int4).
  if (abstract_kinds(v) && is_user_dtype(to)) {
    if (is_float(to)) return py != PyType::Complex;
    return py == PyType::Int;
  }
  // An ml_dtypes type: a Python int counts as int_common_dtype's pick (abstractdtypes.c),
  // common(T, uint8), else common(T, int8), else common(T, intp), and must cast to T safely.
  // Their floats take it as themselves; int4 takes it as int8 and uint4 as uint8, which do not
  // cast back, so an int4 array + 2 runs the int8 loop. A Python float counts as float64.
  if (is_user_dtype(to)) {
    if (py != PyType::Int) return false;
    for (DType d : {DType::uint8, DType::int8, DType::int64})
      if (auto c = common_type(to, d, v)) return can_cast_safe(*c, to, v);
    return false;
  }
  if (is_float(to)) return py != PyType::Complex;
  if (is_integer(to)) return py == PyType::Int;
  return false;
}

// NumPy 1.x: can_cast_scalar_to -- a builtin number counts as its min_scalar_type, and a
// small unsigned value as its signed twin unless the target is unsigned.
bool scalar_value_casts_to(const Arg& a, DType to) {
  if (is_user_dtype(a.dtype)) return can_cast_safe(a.dtype, to, Version::V1);
  MinScalar m = min_scalar_type(a);
  if (m.small_unsigned && !is_unsigned(to)) m.dtype = signed_twin(m.dtype);
  return can_cast_safe(m.dtype, to, Version::V1);
}

bool arg_casts_to(Version v, const Arg& a, DType to, bool value_based) {
  if (a.dtype == to && !(nep50(v) && a.weak())) return true;
  if (nep50(v) && a.weak()) return pyscalar_casts_to(a.value.type, to, v);
  if (value_based && a.zero_dim()) return scalar_value_casts_to(a, to);
  return can_cast_safe(a.dtype, to, v);
}

std::string loop_name(DType t) { return nm(t) + "," + nm(t) + "->" + nm(t); }

std::optional<Outcome> python_int_overflow(const Arg& s, DType t);

Outcome linear_search(Version v, Op op, const Arg& a, const Arg& b) {
  const bool value_based = v == Version::V1 && use_min_scalar(a, b);
  // ml_dtypes registers no true_divide loop for its integers.
  auto has_loop = [&](DType t) { return !(op == Op::TrueDivide && is_packed_int(t)); };
  std::vector<DType> candidates;
  if (op != Op::Matmul) {
    if (is_user_dtype(a.dtype) && has_loop(a.dtype) && !(nep50(v) && a.weak())) candidates.push_back(a.dtype);
    if (is_user_dtype(b.dtype) && has_loop(b.dtype) && b.dtype != a.dtype && !(nep50(v) && b.weak()))
      candidates.push_back(b.dtype);
  }
  const size_t user_loops = candidates.size();
  for (DType t : builtin_loops(op)) candidates.push_back(t);
  for (size_t i = 0; i < candidates.size(); ++i) {
    const DType t = candidates[i];
    if (!arg_casts_to(v, a, t, value_based) || !arg_casts_to(v, b, t, value_based)) continue;
    // ml_dtypes converts a Python int through a C long (0.7.0's floats take any int; its
    // integers refuse one past int64 as NumPy's own do, below).
    for (const Arg* x : {&a, &b})
      if (is_user_dtype(t) && !abstract_kinds(v) && x->kind == OperandKind::Scalar && x->value.type == PyType::Int &&
          !through_c_long(x->value.integer, t))
        return raises("TypeError", "expected number, got int",
                      "ml_dtypes converts the Python int through a C long, and " + int128_to_string(x->value.integer) +
                          " does not fit one.");
    // A weak Python int in a builtin integer loop (an int4 array + 2 runs int8's) must fit it; one
    // joining ml_dtypes 0.7.0's int4 or uint4 must fit what int_common_dtype makes of it (int16
    // for int4, uint8 for uint4: an int4 array + 200 is int4, a uint4 array + -1 raises).
    for (const Arg* x : {&a, &b})
      if (nep50(v) && x->weak() && x->value.type == PyType::Int && is_integer(t)) {
        std::optional<DType> fits = is_user_dtype(t) ? std::nullopt : std::optional<DType>(t);
        if (is_user_dtype(t) && abstract_kinds(v))
          for (DType d : {DType::uint8, DType::int8, DType::int64})
            if ((fits = common_type(t, d, v))) break;
        if (fits)
          if (auto e = python_int_overflow(*x, *fits)) return *e;
      }
    // (ml_dtypes registers no matmul loop: np.matmul searches NumPy's own alone.)
    std::string rule = "NumPy searches the loops of np." + std::string(op_name(op)) + " in order (";
    rule += i < user_loops     ? "ml_dtypes' own loop for " + nm(t) + " first"
            : op == Op::Matmul ? std::string("NumPy's own: ml_dtypes registers none for it")
                               : "ml_dtypes' loops first, then the builtin ones";
    rule += ") and takes the first that both inputs cast to safely: " + loop_name(t) + ".";
    // (min_scalar_type reads no value of bool or of ml_dtypes' types: their dtype stands)
    const Arg& judged = a.zero_dim() ? a : b;
    if (value_based && !is_user_dtype(judged.dtype) && judged.dtype != DType::bool_)
      rule += " NumPy 1.x judges " + std::string(judged.what()) + " by its value here.";
    return returns(t, std::move(rule));
  }
  return raises("UFuncTypeError",
                "ufunc '" + std::string(op_name(op)) + "' did not contain a loop with signature matching types (" +
                    class_repr(a.dtype) + ", " + class_repr(b.dtype) + ") -> None",
                "No loop of this ufunc accepts both inputs with safe casts.");
}

// ---------------------------------------------------------------------------------------
// Builtin dtypes only.

// NumPy 2's message when a weak Python int does not fit the dtype it takes: a value that does not
// get through a C long is "too large to convert to C long" (2**64, -2**63 - 1, recorded).
std::optional<Outcome> python_int_overflow(const Arg& s, DType t) {
  const __int128 v = s.value.integer;
  if (v >= int_lo(t) && v <= int_hi(t)) return std::nullopt;
  const std::string rule = "NEP 50: a Python int takes the array's integer dtype, and " + int128_to_string(v) +
                           " does not fit " + nm(t) + ".";
  if (!through_c_long(v, t)) return raises("OverflowError", "Python int too large to convert to C long", rule);
  return raises("OverflowError", "Python integer " + int128_to_string(v) + " out of bounds for " + nm(t), rule);
}

// NEP 50 (NumPy 2): a Python int, float or complex is weak -- it adopts the other
// operand's dtype when that dtype's kind can hold it, else the default of its own kind.
Outcome nep50_result(const Arg& strong, const Arg& weak) {
  const DType s = strong.dtype;
  switch (weak.value.type) {
    case PyType::Bool: break;
    case PyType::Int:
      if (s == DType::bool_) {
        if (auto e = python_int_overflow(weak, DType::int64)) return *e;
        return returns(DType::int64, "NEP 50: a Python int with a bool array gives the default integer, int64.");
      }
      if (is_integer(s)) {
        if (auto e = python_int_overflow(weak, s)) return *e;
      }
      return returns(s, "NEP 50: a Python int is weak and takes the array's dtype " + nm(s) + ".");
    case PyType::Float:
      if (is_int_or_bool(s))
        return returns(DType::float64,
                       "NEP 50: a Python float with an integer array gives the default float, float64.");
      return returns(s, "NEP 50: a Python float is weak and takes the array's dtype " + nm(s) + ".");
    case PyType::Complex: {
      DType r = s;
      if (is_int_or_bool(s) || s == DType::float64) r = DType::complex128;
      else if (s == DType::float16 || s == DType::float32) r = DType::complex64;
      return returns(r, is_int_or_bool(s)
                            ? "NEP 50: a Python complex is weak, but an integer or bool array has no complex dtype "
                              "of its own: the default, " +
                                  nm(r) + "."
                            : "NEP 50: a Python complex is weak: it takes the smallest complex dtype whose parts "
                              "hold the array's float dtype, " +
                                  nm(r) + ".");
    }
  }
  return returns(s, "A Python bool is an ordinary bool: promote_types(" + nm(s) + ", bool) = " + nm(s) + ".");
}

// NumPy's promote_types: "the smallest size and smallest scalar kind to which both types may be
// safely cast" -- and its 'safe' table counts int64 -> float64 as safe, though float64 holds
// integers exactly only up to 2^53.
std::string safe_cast_text(DType a, DType b, DType r) {
  std::string s = "the smallest type to which both cast safely by np.can_cast's table.", losses;
  for (DType x : {a, b})
    if (x != r && is_int_or_bool(x) && is_float(r) && !int_to_float_exact(x, r))
      losses += losses.empty() ? int_to_float_loss(x, r) : "; " + nm(x) + " values too";
  if (!losses.empty()) s += " That table is about kinds, not values: " + losses + ".";
  return s;
}

Outcome builtin_result_v2(const Arg& a, const Arg& b, Version v) {
  if (a.weak() && !b.weak()) return nep50_result(b, a);
  if (b.weak() && !a.weak()) return nep50_result(a, b);
  const DType r = *common_type(a.dtype, b.dtype, v);
  return returns(r, "np.promote_types(" + nm(a.dtype) + ", " + nm(b.dtype) + ") = " + nm(r) + ": " +
                        safe_cast_text(a.dtype, b.dtype, r) +
                        (a.zero_dim() || b.zero_dim() ? " NumPy 2 ignores values here." : ""));
}

Outcome builtin_result_v1(const Arg& a, const Arg& b) {
  if (!use_min_scalar(a, b)) {
    const DType r = *common_type(a.dtype, b.dtype, Version::V1);
    std::string rule = "np.promote_types(" + nm(a.dtype) + ", " + nm(b.dtype) + ") = " + nm(r) + ".";
    if (a.zero_dim() != b.zero_dim())
      rule += " NumPy 1.x ignores " + std::string(a.zero_dim() ? a.what() : b.what()) +
              "'s value because its kind is higher than the array's.";
    return returns(r, std::move(rule));
  }
  const Arg& sc = a.zero_dim() ? a : b;
  const MinScalar ms = min_scalar_type(sc), ma{a.zero_dim() ? ms.dtype : a.dtype, a.zero_dim() && ms.small_unsigned},
                  mb{b.zero_dim() ? ms.dtype : b.dtype, b.zero_dim() && ms.small_unsigned};
  const DType r = promote_small(ma, mb);
  return returns(r, "NumPy 1.x value-based casting: " + std::string(sc.what()) + " counts as " + nm(ms.dtype) +
                        (ms.small_unsigned ? " (or its signed twin)" : "") +
                        (is_float(sc.dtype) ? " (np.min_scalar_type: a float counts as float16 below 65000 in "
                                              "magnitude, inf and NaN too, and as float32 below 3.4e38, "
                                              "whatever its digits)"
                         : info(sc.dtype).kind == DTypeKind::Complex
                             ? " (np.min_scalar_type: a complex counts as complex64 while both "
                               "parts are below 3.4e38 in magnitude, whatever their digits)"
                             : ", the smallest type holding its value") +
                        ", so the result is " + nm(r) + ".");
}

Outcome elementwise(Version v, Op op, const Arg& a, const Arg& b) {
  const bool user = is_user_dtype(a.dtype) || is_user_dtype(b.dtype);
  if (a.kind == OperandKind::Scalar && b.kind == OperandKind::Scalar) return two_python_scalars("an array");
  Outcome r;
  // ml_dtypes 0.7.0's int4 and uint4 are integers to true_divide's promoter too: int4 / int4 is
  // float64 (0.6.0 searched the loops and found float16's).
  const bool user_integers_divide = abstract_kinds(v) && op == Op::TrueDivide;
  if (user && !(user_integers_divide && is_int_or_bool(a.dtype) && is_int_or_bool(b.dtype))) {
    r = linear_search(v, op, a, b);
  } else if (op == Op::TrueDivide && is_int_or_bool(a.dtype) && is_int_or_bool(b.dtype)) {
    // TrueDivisionTypeResolver (1.x) and true_divide's promoter (2.x): integers and bools,
    // Python ints included, go straight to the float64 loop -- no overflow check.
    return returns(DType::float64, "np.true_divide of integers (or bools) uses the float64 loop.");
  } else if (op == Op::TrueDivide && v == Version::V1) {
    return linear_search(v, op, a, b);  // DivisionTypeResolver: the ordinary loop search
  } else {
    r = nep50(v) ? builtin_result_v2(a, b, v) : builtin_result_v1(a, b);
  }
  if (!r.ok()) return r;
  if (op == Op::Subtract && *r.result == DType::bool_)
    return raises("TypeError",
                  "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
                  "the `^` operator, or the logical_xor function instead.",
                  "Both operands resolve to bool and NumPy refuses to subtract bools.");
  if (op == Op::TrueDivide && !user && is_int_or_bool(*r.result))
    return returns(DType::float64, "np.true_divide of integers (or bools) uses the float64 loop.");
  return r;
}

}  // namespace

std::string_view numpy_version(Version v) { return nep50(v) ? "2.4.6" : "1.26.4"; }
std::string_view ml_dtypes_version(Version v) {
  return v == Version::V2Ml07 ? "0.7.0" : v == Version::V2 ? "0.6.0" : "0.5.1";
}
std::string_view ml_dtypes_release(Version v) {
  return v == Version::V2Ml07 ? "ml_dtypes 0.7.0" : v == Version::V2 ? "ml_dtypes 0.6.0" : "ml_dtypes 0.5.1";
}

std::string_view op_name(Op op) { return kOpNames[static_cast<int>(op)]; }

std::optional<Op> parse_op(std::string_view n) { return find_named<Op>(kOpNames, n == "divide" ? "true_divide" : n); }

bool op_is_elementwise(Op op) { return op <= Op::TrueDivide; }

namespace {
Outcome not_numpy(DType t) {
  return raises("AttributeError", "module 'numpy' has no attribute '" + std::string(name(t)) + "'",
                "Neither NumPy nor ml_dtypes defines " + std::string(name(t)) + ".");
}
}  // namespace

Outcome promote_types(Version v, DType a, DType b) {
  if (!has_dtype(a)) return not_numpy(a);
  if (!has_dtype(b)) return not_numpy(b);
  if (auto r = common_type(a, b, v)) {
    std::string rule;
    if (!is_user_dtype(a) && !is_user_dtype(b)) rule = "NumPy's promotion table: " + safe_cast_text(a, b, *r);
    else if (a == b) rule = "Both are " + nm(a) + ".";
    else
      rule =
          "ml_dtypes declares " + nm(*r == a ? b : a) + " -> " + nm(*r) + " a safe cast, so NumPy uses " + nm(*r) + ".";
    return returns(*r, std::move(rule));
  }
  return raises("DTypePromotionError",
                "The DTypes " + class_repr(a) + " and " + class_repr(b) +
                    " do not have a common DType. For example they cannot be stored in a single "
                    "array unless the dtype is `object`.",
                "Neither casts safely to the other and ml_dtypes' types have no kind NumPy could "
                "fall back on.");
}

namespace {
Outcome evaluate_args(Version v, Op op, const Operand& a, const Operand& b, const Arg& xa, const Arg& xb);
}  // namespace

Outcome evaluate(Version v, Op op, const Operand& a, const Operand& b) {
  if (!has_dtype(a.dtype)) return not_numpy(a.dtype);
  if (!has_dtype(b.dtype)) return not_numpy(b.dtype);
  if (!op_is_elementwise(op) && (a.kind != OperandKind::Tensor || b.kind != OperandKind::Tensor))
    return raises("precision-lab", "np." + std::string(op_name(op)) + " is modelled for arrays with dimensions only",
                  "Zero-dim and scalar operands are modelled for the elementwise ufuncs.");
  const auto xa = make_arg(v, a);
  if (!xa) return raises("precision-lab", xa.error(), "The operand cannot be built as written.");
  const auto xb = make_arg(v, b);
  if (!xb) return raises("precision-lab", xb.error(), "The operand cannot be built as written.");
  Outcome o = evaluate_args(v, op, a, b, *xa, *xb);
  o.rule = xa->note + xb->note + o.rule;
  return o;
}

namespace {

Outcome evaluate_args(Version v, Op op, const Operand& a, const Operand& b, const Arg& xa, const Arg& xb) {
  // NumPy 1.x: a Python int that neither int64 nor uint64 holds becomes an object array, and
  // the ufunc runs on Python objects, whatever the other dtype (recorded: 2**64, -2**63 - 1,
  // +-2**100 with every array dtype and ufunc). (NumPy 2 raises or converts it: elementwise.)
  if (v == Version::V1 && op_is_elementwise(op))
    for (const Arg* x : {&xa, &xb})
      if (x->kind == OperandKind::Scalar && x->value.type == PyType::Int &&
          (x->value.integer < int_lo(DType::int64) || x->value.integer > int_hi(DType::uint64)))
        return Outcome{std::nullopt, "", "",
                       "NumPy 1.x holds the Python int " + int128_to_string(x->value.integer) +
                           " in neither int64 nor uint64, so it makes an object array and np." +
                           std::string(op_name(op)) + " runs on Python objects: dtype=object." +
                           // (a ufunc unwraps a zero-dim result)
                           (xa.zero_dim() && xb.zero_dim()
                                ? " With no operand of any dimension the result is that Python object itself, "
                                  "not an array."
                                : ""),
                       "object"};
  switch (op) {
    case Op::Matmul: return linear_search(v, op, xa, xb);
    case Op::Dot: {
      Outcome r = promote_types(v, a.dtype, b.dtype);
      if (r.ok()) {
        r.rule =
            "np.dot computes in np.promote_types(" + nm(a.dtype) + ", " + nm(b.dtype) + ") = " + nm(*r.result) + ".";
        return r;
      }
      return Outcome{std::nullopt, "", "",
                     "The dtypes have no common DType, so np.dot falls back to "
                     "Python objects (PyArray_ObjectType) and returns dtype=object.",
                     "object"};
    }
    case Op::Astype: {
      const bool e8m0_a = a.dtype == DType::float8_e8m0fnu, e8m0_b = b.dtype == DType::float8_e8m0fnu;
      // ml_dtypes 0.7.0 registers a cast between every two of its types.
      if (abstract_kinds(v)) return returns(b.dtype, "astype converts to the dtype asked for (casting='unsafe').");
      auto refused = [&](DType t) {
        return is_user_dtype(t) && t != DType::bfloat16 && t != DType::float8_e8m0fnu;
      };
      if ((e8m0_a && refused(b.dtype)) || (e8m0_b && refused(a.dtype)))
        return raises("TypeError",
                      "Cannot cast array data from dtype(" + nm(a.dtype) + ") to dtype(" + nm(b.dtype) +
                          ") according to the rule 'unsafe'",
                      "ml_dtypes registers no cast between float8_e8m0fnu and its other small floats.");
      // ml_dtypes registers no cast between int4 and uint4; 0.6.0 casts them to and from its
      // floats but float6_e2m3fn (and e8m0, above), 0.5.1 to and from none of its floats.
      bool no_int4_cast = false;
      if (is_packed_int(a.dtype) && is_packed_int(b.dtype)) no_int4_cast = a.dtype != b.dtype;
      else if (is_packed_int(a.dtype) || is_packed_int(b.dtype)) {
        const DType other = is_packed_int(a.dtype) ? b.dtype : a.dtype;
        no_int4_cast = is_user_dtype(other) && (v == Version::V1 || other == DType::float6_e2m3fn);
      }
      if (no_int4_cast)
        return raises("TypeError",
                      "Cannot cast array data from dtype(" + nm(a.dtype) + ") to dtype(" + nm(b.dtype) +
                          ") according to the rule 'unsafe'",
                      "ml_dtypes registers no cast between " + nm(a.dtype) + " and " + nm(b.dtype) + ".");
      return returns(b.dtype, "astype converts to the dtype asked for (casting='unsafe').");
    }
    default: return elementwise(v, op, xa, xb);
  }
}

}  // namespace
}  // namespace pl::promote::numpy
