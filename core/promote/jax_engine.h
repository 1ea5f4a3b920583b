// JAX's dtype rules, reproduced: the type-promotion lattice with weakly typed Python
// scalars, jax_enable_x64 on and off (off: 64-bit inputs become 32-bit), the strict
// mode (jax_numpy_dtype_promotion="strict"), 8/6/4-bit floats that never promote
// implicitly, and lax.dot_general's rule for matmul with preferred_element_type.
//
// Reproduces JAX 0.10.2 (jax/_src/dtypes.py: _type_promotion_lattice, _least_upper_bound,
// lattice_result_type; jax/_src/lax/lax.py: _dot_general_dtype_rule), checked cell by
// cell against tables recorded from the real library (tests/data/promotion/gen_jax.py).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/promote/outcome.h"

namespace pl::promote::jax {

inline constexpr std::string_view kVersion = "0.10.2";

struct Config {
  bool x64 = false;     // jax_enable_x64
  bool strict = false;  // jax_numpy_dtype_promotion == "strict"
};

enum class Op : uint8_t {
  Add,
  Multiply,
  TrueDivide,    // jnp ufuncs; operands may be Python scalars (weak types)
  Matmul,        // jnp.matmul
  MatmulF32Acc,  // jnp.matmul(a, b, preferred_element_type=jnp.float32)
  Astype,        // a.astype(b's dtype)
};
inline constexpr int kOpCount = 6;
std::string_view op_name(Op op);  // "add", ..., "matmul_f32acc", "astype"
std::optional<Op> parse_op(std::string_view name);
bool op_is_elementwise(Op op);

bool has_dtype(DType t);
// What an array cast to t holds under the configuration: with x64 off, the 64-bit types' 32-bit kin.
DType held_as(const Config& c, DType t);
std::string_view python_name(DType t);  // "float32", "bfloat16"
std::optional<DType> from_python_name(std::string_view name);

// jnp.promote_types(a, b) under the configuration.
Outcome promote_types(const Config& c, DType a, DType b);

// What op(a, b) returns or raises. A zero-dim operand is an ordinary (strongly typed)
// array in JAX; a scalar is a weakly typed Python scalar whose value is checked the way
// jit parses arguments (Operand::value, default 2 / 2.5 / 2.5+1j / True).
Outcome evaluate(const Config& c, Op op, const Operand& a, const Operand& b);

}  // namespace pl::promote::jax
