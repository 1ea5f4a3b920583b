// What a framework does with one call: the dtype it returns, or the exception
// it raises with its exact text, plus the rule that decided, in words a
// student understands. Shared by every promotion engine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/dtype/dtype.h"
#include "core/promote/py_value.h"

namespace pl::promote {

// How an operand reaches the call. Frameworks treat these differently: PyTorch lets a
// zero-dim tensor or a Python scalar decide the result only when its category (bool <
// integer < floating < complex) is higher than every dimensioned tensor's.
enum class OperandKind : uint8_t {
  Tensor,   // a tensor with at least one dimension
  ZeroDim,  // a tensor of shape ()
  Scalar,   // a Python scalar whose type is the dtype's category: True, 2, 2.5 or 2.5+1j
};
inline constexpr int kOperandKindCount = 3;

struct Operand {
  DType dtype;
  OperandKind kind = OperandKind::Tensor;
  // The value of a zero-dim or scalar operand as a Python literal ("300", "1e300",
  // "2.5+1j", "True"); empty: the category's default (True, 2, 2.5, 2.5+1j). Only engines
  // whose rules look at values (NumPy 1.x value-based casting, NumPy 2 overflow checks)
  // read it.
  std::string value = {};
};

struct Outcome {
  std::optional<DType> result;    // set when the call succeeds with a number format
  std::string error_type;         // the exception class, e.g. "RuntimeError"
  std::string message;            // the exception text, exactly as the framework prints it
  std::string rule;               // why: one sentence
  std::string other_result = {};  // a result that is no number format: NumPy's "object"

  bool ok() const { return result.has_value(); }
};

// Shorthands for engines: the call returns `t`, or raises `type` with `message`.
inline Outcome returns(DType t, std::string rule) { return Outcome{t, "", "", std::move(rule)}; }
inline Outcome raises(std::string type, std::string message, std::string rule) {
  return Outcome{std::nullopt, std::move(type), std::move(message), std::move(rule)};
}

// Two Python scalars: no engine models the pair (a + b of two is Python's own arithmetic, and
// np.add(2, 2.5) or jnp.add(2, 2.5) make an array scalar of their own). `array` names what one
// operand should be: "an array", "a tensor".
inline Outcome two_python_scalars(std::string_view array) {
  return raises("precision-lab", "two Python scalars are not modelled", "Make one operand " + std::string(array) + ".");
}

// How a result relates to its operands, for colouring a promotion grid. Narrowed is about
// values, not bytes: int32 + float32 -> float32 loses int32's digits past 2^24 although both
// take four bytes (sized by bytes, the grid coloured it as keeping an operand's dtype while
// scenario 23 says it loses digits).
enum class OutcomeClass : uint8_t {
  Kept,      // the result is one operand's dtype, and holds every value of the other
  Widened,   // a third dtype that holds every value of both (float16 + bfloat16 -> float32)
  Narrowed,  // a dtype that cannot hold every value of an operand (int32 + float32 -> float32)
  Error,     // the call raises
  Object,    // the call falls back to Python objects (np.dot of dtypes with no common type)
};
// Every value of `from` is a value of `to`: exactly (precision) and in range. A float never
// fits an integer; a complex never fits a real dtype.
bool holds_every_value(DType from, DType to);
OutcomeClass classify(DType a, DType b, const Outcome& o);
// The same for a Python scalar b, which has a value and no dtype: narrowed where the result
// cannot hold that value (uint8 + 1000 -> uint8: 1000 is no uint8 value, and the sum wraps).
OutcomeClass classify_scalar(DType a, const PyValue& b, const Outcome& o);
// Whether `to` holds the value exactly: an integer in its range, a float (each part of a
// complex) that rounds to itself in its format.
bool holds_value(const PyValue& v, DType to);
// "" where the result holds the scalar; else why not, to follow the result: "1000 is not a
// torch.uint8 value (0 to 255): the result cannot hold it", the dtype spelled `spelled`.
std::string scalar_lost_text(std::string_view literal, const PyValue& v, DType result, std::string_view spelled);
std::string_view outcome_class_name(OutcomeClass c);

std::string_view operand_kind_name(OperandKind k);  // "tensor", "zerodim", "scalar"
std::optional<OperandKind> parse_operand_kind(std::string_view s);

}  // namespace pl::promote
