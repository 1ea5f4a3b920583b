// A Python scalar written as a literal ("True", "300", "-2**63", "1e300", "2.5+1j"), the
// way promotion rules that look at values (NumPy 1.x value-based casting, NumPy 2's
// out-of-bounds checks) need it: the Python type, and the value exactly.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl::promote {

enum class PyType : uint8_t { Bool, Int, Float, Complex };

struct PyValue {
  PyType type = PyType::Int;
  __int128 integer = 0;       // Bool (0/1) and Int; exact for |v| < 2^127
  double real = 0, imag = 0;  // Float, Complex (Bool and Int: the value as a double too)
};

// Parses a literal; an error when it is not one. Integers may be written
// as N, -N or (-)B**E, of magnitude below 2^127 (held exactly; NumPy and JAX already raise or
// fall back to objects past int64 and uint64, and the engines say so).
Expected<PyValue> parse_py_value(std::string_view text);

std::string_view py_type_name(PyType t);  // "bool", "int", "float", "complex"

// The Python type of a scalar standing for `t`'s category: bool, int, complex, or float (for
// every floating format).
PyType py_type_of(DType t);
// That category's default scalar, True, 2, 2.5 or 2.5+1j, and its literal.
PyValue default_py_value(PyType t);
std::string_view default_literal(PyType t);

// A Python-scalar operand's value: `literal` parsed (or the default for `t`'s category when
// empty). A literal of another Python type than `t` names is refused, since a scalar's type
// comes from its value; an error then.
Expected<PyValue> scalar_operand_value(std::string_view literal, DType t);
std::string int128_to_string(__int128 v);

// The least and greatest values of an integer dtype, exactly (int8: -128, 127; uint64: 0, 2**64 - 1).
__int128 int_lo(DType t);
__int128 int_hi(DType t);

}  // namespace pl::promote
