// TensorFlow's dtype rules, reproduced: no implicit promotion between tensors (each op
// checks its inputs against one type attribute), Python scalars converted to the other
// tensor's dtype when TensorFlow can, the per-op allowed-type lists and CPU kernels, and
// truediv's integer-to-float table.
//
// Two modes: TensorFlow's default, and the NumPy-style "auto dtype conversion" of
// tf.experimental.numpy.experimental_enable_numpy_behavior(dtype_conversion_mode="all"),
// where a JAX-like table (framework/flexible_dtypes.py) picks a result dtype first.
//
// Reproduces TensorFlow 2.21.0 (CPU wheel, eager mode): math_ops.add,
// multiply, truediv (_truediv_python3) and matmul, and tf.cast; the op definitions
// (AddV2, Mul, MatMul, SparseMatMul) and error texts as that build prints them. Checked
// cell by cell against tables recorded from it (tests/data/promotion/gen_tf.py).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "core/promote/outcome.h"

namespace pl::promote::tf {

inline constexpr std::string_view kVersion = "2.21.0";

enum class Op : uint8_t { Add, Multiply, Truediv, Matmul, Cast };
inline constexpr int kOpCount = 5;
std::string_view op_name(Op op);  // "add", "multiply", "truediv", "matmul", "cast"
std::optional<Op> parse_op(std::string_view name);
bool op_is_elementwise(Op op);  // add, multiply, truediv: Python scalar operands modelled

bool has_dtype(DType t);
std::string_view python_name(DType t);  // tf.DType.name: "float32", "float8_e4m3fn"
std::optional<DType> from_python_name(std::string_view name);

struct Config {
  bool numpy_behavior = false;  // dtype_conversion_mode="all"
};

// What op(a, b) returns or raises; a zero-dim operand is an ordinary tensor, a scalar is
// the Python scalar of the dtype's category (True, 2, 2.5, 2.5+1j). Cast is tf.cast(a, b).
Outcome evaluate(const Config& c, Op op, const Operand& a, const Operand& b);

}  // namespace pl::promote::tf
