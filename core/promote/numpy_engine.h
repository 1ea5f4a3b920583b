// NumPy's dtype rules, reproduced: np.promote_types, the ufuncs add / subtract / multiply /
// true_divide with arrays, zero-dim arrays and Python scalars (their values included),
// matmul, dot and astype, with NumPy's own dtypes and the ml_dtypes extension types.
//
// Two releases, checked cell by cell against tables recorded from the real libraries
// (tests/data/promotion/gen_numpy.py):
//   NumPy 2.4.6 + ml_dtypes 0.6.0  -- NEP 50: Python scalars are "weak", values never
//                                     change a dtype, out-of-range Python ints raise;
//   NumPy 1.26.4 + ml_dtypes 0.5.1 -- value-based casting: a zero-dim array or Python
//                                     scalar counts as the smallest type holding its value
//                                     when its kind is no higher than the arrays' kind;
//   NumPy 2.4.6 + ml_dtypes 0.7.0  -- NEP 50, with ml_dtypes' types as NumPy floats and
//                                     integers (numpy_types.h, abstract_kinds).
// With an ml_dtypes type involved both releases pick a loop by NumPy's legacy linear
// search (numpy/_core/src/umath/ufunc_type_resolution.c); each function says which rule.
#pragma once

#include <optional>
#include <string_view>

#include "core/promote/numpy_types.h"
#include "core/promote/outcome.h"
#include "core/promote/py_value.h"

namespace pl::promote::numpy {

std::string_view numpy_version(Version v);      // "2.4.6", "1.26.4"
std::string_view ml_dtypes_version(Version v);  // "0.6.0", "0.5.1"
std::string_view ml_dtypes_release(Version v);  // "ml_dtypes 0.6.0": the engine's companion (engine.h)

enum class Op : uint8_t { Add, Subtract, Multiply, TrueDivide, Matmul, Dot, Astype };
inline constexpr int kOpCount = 7;
std::string_view op_name(Op op);  // the NumPy function name: "add", "true_divide", ...
std::optional<Op> parse_op(std::string_view name);
bool op_is_elementwise(Op op);  // the ufuncs, where zero-dim and scalar operands are modelled

// np.array(value, dtype=t) for a zero-dim operand: the value the array holds, or the exception
// building it raises (type and text), in the engine's NumPy and ml_dtypes. NumPy 2 refuses an
// integer out of the dtype's range, NumPy 1.x wraps one that fits a C long, and ml_dtypes' int4
// and uint4 wrap one in every release; checked against tests/data/promotion/numpy*_zero_dim.json.
struct ZeroDim {
  std::optional<PyValue> value;
  std::string error_type, message;
  // ml_dtypes 0.5.1 returns from a float's failed conversion to int4 or uint4 with the exception
  // still set: a later call raises it, or a SystemError from it.
  bool raised_late = false;
};
ZeroDim build_zero_dim(Version v, DType t, const PyValue& x);

// np.promote_types(a, b).
Outcome promote_types(Version v, DType a, DType b);

// What op(a, b) returns or raises. Matmul, dot and astype are modelled for arrays only
// (other kinds give error_type "precision-lab"); astype is a.astype(b's dtype).
Outcome evaluate(Version v, Op op, const Operand& a, const Operand& b);

}  // namespace pl::promote::numpy
