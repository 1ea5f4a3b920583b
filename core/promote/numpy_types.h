// What NumPy knows about each dtype, for the promotion rules in numpy_engine.cpp: the
// type number (which decides ties and loop order), the class name NumPy prints, safe
// casting, and np.promote_types. NumPy's builtin numeric types plus the ml_dtypes
// extension types; identical in NumPy 1.26.4 (+ ml_dtypes 0.5.1) and 2.4.6 (+ 0.6.0) but
// for int4 and uint4: their type numbers, and 0.6.0's safe casts with the small floats.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/dtype/dtype.h"

namespace pl::promote::numpy {

// The releases reproduced (numpy_engine.h): NumPy 2.4.6 with ml_dtypes 0.6.0, 1.26.4 with 0.5.1,
// and 2.4.6 with ml_dtypes 0.7.0.
enum class Version : uint8_t { V2, V1, V2Ml07 };
// NEP 50's weak Python scalars: NumPy 2.
inline bool nep50(Version v) { return v != Version::V1; }
// ml_dtypes 0.7.0 makes its types subclasses of NumPy's abstract float and integer DTypes, so
// NumPy treats them as floats and integers: they have a kind to promote by, a Python float or int
// joins them as it joins float32 or int8, and their safe casts are those that keep every value.
inline bool abstract_kinds(Version v) { return v == Version::V2Ml07; }

bool has_dtype(DType t);                // NumPy or ml_dtypes defines it
bool is_user_dtype(DType t);            // an ml_dtypes type (a "legacy user DType" to NumPy)
int type_number(DType t, Version v);    // dtype.num: NPY_BOOL = 0 ..., ml_dtypes from 256
std::string_view python_name(DType t);  // "float32", "bfloat16" (np.dtype(...).name)
std::string qualified_name(DType t);    // "np.float32", "ml_dtypes.bfloat16": how Python code names it
std::optional<DType> from_python_name(std::string_view name);
std::string class_repr(DType t);  // "<class 'numpy.dtypes.Int16DType'>"

// The builtin types in NumPy's loop order (?, b, B, h, H, i, I, l, L, e, f, d, F, D):
// the order in which ufuncs list their loops.
std::span<const DType> builtin_loop_order();

// NumPy's scalar kind of a dtype (0 bool, 1 unsigned, 2 signed, 3 float, 4 complex; -1
// none) and dtype.kind ('b', 'u', 'i', 'f', 'c', 'V').
int scalar_kind(DType t, Version v);
char kind_char(DType t);

// np.can_cast(a, b, "safe").
bool can_cast_safe(DType from, DType to, Version v);

// np.promote_types(a, b): the dtype, or nullopt when NumPy raises DTypePromotionError.
std::optional<DType> common_type(DType a, DType b, Version v);

}  // namespace pl::promote::numpy
