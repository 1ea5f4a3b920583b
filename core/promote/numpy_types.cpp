#include "core/promote/numpy_types.h"

#include <array>

#include "core/promote/outcome.h"

namespace pl::promote::numpy {
namespace {

// dtype.num for every dtype NumPy knows (-1: not a NumPy dtype). Builtins are NumPy's
// NPY_TYPES (int64 is NPY_LONG on LP64 Linux); ml_dtypes' types get numbers from 256 in
// the order ml_dtypes registers them at import (ml_dtypes/_src/dtypes.cc), recorded from
// both versions by tests/data/promotion/gen_numpy.py.
constexpr std::array<int, kDTypeCount> kTypeNumber = [] {
  std::array<int, kDTypeCount> n{};
  n.fill(-1);
  auto set = [&n](DType t, int v) { n[static_cast<int>(t)] = v; };
  set(DType::bool_, 0);
  set(DType::int8, 1);
  set(DType::uint8, 2);
  set(DType::int16, 3);
  set(DType::uint16, 4);
  set(DType::int32, 5);
  set(DType::uint32, 6);
  set(DType::int64, 7);
  set(DType::uint64, 8);
  set(DType::float32, 11);
  set(DType::float64, 12);
  set(DType::complex64, 14);
  set(DType::complex128, 15);
  set(DType::float16, 23);
  set(DType::bfloat16, 256);
  set(DType::float8_e3m4, 257);
  set(DType::float8_e4m3, 258);
  set(DType::float8_e4m3b11fnuz, 259);
  set(DType::float8_e4m3fn, 260);
  set(DType::float8_e4m3fnuz, 261);
  set(DType::float8_e5m2, 262);
  set(DType::float8_e5m2fnuz, 263);
  set(DType::float6_e2m3fn, 264);
  set(DType::float6_e3m2fn, 265);
  set(DType::float4_e2m1fn, 266);
  set(DType::float8_e8m0fnu, 267);
  set(DType::int4, 272);  // ml_dtypes 0.6.0; 0.5.1 numbers them 270 and 271 (type_number)
  set(DType::uint4, 273);
  return n;
}();

constexpr std::array<DType, 14> kLoopOrder = {
    DType::bool_, DType::int8,   DType::uint8,   DType::int16,   DType::uint16,  DType::int32,     DType::uint32,
    DType::int64, DType::uint64, DType::float16, DType::float32, DType::float64, DType::complex64, DType::complex128};

// ml_dtypes registers its small floats' casts among each other with
// RegisterTwoWayCustomCast as safe in both directions; bfloat16, float8_e5m2 and
// float8_e8m0fnu are left out of that group (ml_dtypes 0.5/0.6, _src/dtypes.cc).
bool in_small_float_group(DType t) {
  switch (t) {
    case DType::float8_e4m3fn:
    case DType::float8_e4m3fnuz:
    case DType::float8_e5m2fnuz:
    case DType::float8_e4m3:
    case DType::float8_e3m4:
    case DType::float8_e4m3b11fnuz:
    case DType::float6_e2m3fn:
    case DType::float6_e3m2fn:
    case DType::float4_e2m1fn: return true;
    default: return false;
  }
}

// ml_dtypes 0.6.0 registers int4's and uint4's casts with that group's floats as safe both ways
// but float6_e2m3fn's (recorded: np.can_cast(int4, float8_e4m3fn, "safe") and back are True);
// 0.5.1 registers none of them as safe.
bool in_int4_safe_float_group(DType t) { return in_small_float_group(t) && t != DType::float6_e2m3fn; }

int int_bytes(DType t) { return info(t).storage_bits / 8; }
bool is_complex(DType t) { return info(t).kind == DTypeKind::Complex; }

DType signed_int_of(int bytes) {
  switch (bytes) {
    case 1: return DType::int8;
    case 2: return DType::int16;
    case 4: return DType::int32;
    default: return DType::int64;
  }
}

DType float_of(int bytes) { return bytes <= 2 ? DType::float16 : bytes == 4 ? DType::float32 : DType::float64; }

// The float an integer needs to be held without overflow in NumPy's table: 8-bit ->
// float16, 16-bit -> float32, wider -> float64.
DType float_for_int(DType t) {
  const int b = int_bytes(t);
  return b == 1 ? DType::float16 : b == 2 ? DType::float32 : DType::float64;
}

// NumPy's builtin promotion table (_npy_type_promotion_table, numpy/_core/src/multiarray/
// can_cast_table.h), derived from its rule: the smallest type that can hold every value
// of both, and float64 for int64 with uint64.
DType builtin_promote(DType a, DType b) {
  if (a == b || b == DType::bool_) return a;
  if (a == DType::bool_) return b;
  const auto ka = info(a).kind, kb = info(b).kind;
  const bool ia = is_integer(a), ib = is_integer(b);
  if (ia && ib) {
    if (ka == kb) return int_bytes(a) >= int_bytes(b) ? a : b;
    const DType s = ka == DTypeKind::SignedInt ? a : b, u = ka == DTypeKind::SignedInt ? b : a;
    if (int_bytes(s) > int_bytes(u)) return s;
    return int_bytes(u) < 8 ? signed_int_of(2 * int_bytes(u)) : DType::float64;
  }
  // At least one is float or complex: compare the real component widths.
  auto component_bytes = [](DType t) {
    if (is_integer(t)) return int_bytes(float_for_int(t));
    return is_complex(t) ? info(t).storage_bits / 16 : info(t).storage_bits / 8;
  };
  const int bytes = std::max(component_bytes(a), component_bytes(b));
  if (is_complex(a) || is_complex(b)) return bytes <= 4 ? DType::complex64 : DType::complex128;
  return float_of(bytes);
}

}  // namespace

// (A custom format, id past the table, is no NumPy type.)
// ml_dtypes 0.7.0 registers its types in another order (recorded by gen_numpy.py under it).
int type_number_ml07(DType t, int n) {
  switch (t) {
    case DType::float8_e4m3: return 257;
    case DType::float8_e4m3b11fnuz: return 258;
    case DType::float8_e4m3fn: return 259;
    case DType::float8_e4m3fnuz: return 260;
    case DType::float8_e5m2: return 261;
    case DType::float8_e5m2fnuz: return 262;
    case DType::float8_e3m4: return 263;
    case DType::float8_e8m0fnu: return 265;
    case DType::float6_e2m3fn: return 266;
    case DType::float6_e3m2fn: return 267;
    case DType::float4_e2m1fn: return 268;
    case DType::int4: return 273;
    case DType::uint4: return 274;
    default: return n;
  }
}

int type_number(DType t, Version v) {
  if (static_cast<int>(t) >= kDTypeCount) return -1;
  const int n = kTypeNumber[static_cast<int>(t)];
  if (n < 0) return n;
  if (v == Version::V2Ml07) return type_number_ml07(t, n);
  return v == Version::V1 && is_packed_int(t) ? n - 2 : n;
}
bool has_dtype(DType t) { return type_number(t, Version::V2) >= 0; }
bool is_user_dtype(DType t) { return type_number(t, Version::V2) >= 256; }

std::string_view python_name(DType t) { return name(t); }

std::string qualified_name(DType t) { return (is_user_dtype(t) ? "ml_dtypes." : "np.") + std::string(name(t)); }

std::optional<DType> from_python_name(std::string_view n) {
  for (const DTypeInfo& d : all_dtypes())
    if (has_dtype(d.id) && d.name == n) return d.id;
  return std::nullopt;
}

std::string class_repr(DType t) {
  if (is_user_dtype(t)) return "<class 'numpy.dtype[" + std::string(name(t)) + "]'>";
  static constexpr std::array<std::pair<DType, std::string_view>, 14> kClass = {{
      {DType::bool_, "Bool"},
      {DType::int8, "Int8"},
      {DType::uint8, "UInt8"},
      {DType::int16, "Int16"},
      {DType::uint16, "UInt16"},
      {DType::int32, "Int32"},
      {DType::uint32, "UInt32"},
      {DType::int64, "Int64"},
      {DType::uint64, "UInt64"},
      {DType::float16, "Float16"},
      {DType::float32, "Float32"},
      {DType::float64, "Float64"},
      {DType::complex64, "Complex64"},
      {DType::complex128, "Complex128"},
  }};
  for (const auto& [d, n] : kClass)
    if (d == t) return "<class 'numpy.dtypes." + std::string(n) + "DType'>";
  return "<class '?'>";
}

std::span<const DType> builtin_loop_order() { return kLoopOrder; }

bool can_cast_safe(DType from, DType to, Version v) {
  if (from == to) return true;
  const bool uf = is_user_dtype(from), ut = is_user_dtype(to);
  if (!uf && !ut) return builtin_promote(from, to) == to;  // NumPy's safe casts, exactly
  // ml_dtypes 0.7.0: among its types, the casts that keep every value, infinities and NaN
  // included (recorded: float4_e2m1fn into every float8 and float6, any float8 into bfloat16,
  // int4 into float8_e5m2 but not into float6_e2m3fn, whose 7.5 misses -8, nor float8_e4m3 into
  // float8_e4m3fn, which has no infinity).
  if (abstract_kinds(v) && uf && ut) {
    const FloatFormat &f = info(from).format, &g = info(to).format;  // (no specials for integers)
    return holds_every_value(from, to) && (!f.has_inf() || g.has_inf()) && (!f.has_nan() || g.has_nan());
  }
  if (is_packed_int(from) || is_packed_int(to)) {
    if (uf && ut) {
      const DType other = is_packed_int(from) ? to : from;
      return v == Version::V2 && !is_packed_int(other) && in_int4_safe_float_group(other);
    }
    // int4 and uint4 cast safely to every builtin that holds their values; only bool casts to them.
    if (uf) return builtin_promote(from == DType::int4 ? DType::int8 : DType::uint8, to) == to ||
                   (from == DType::uint4 && to == DType::int8);
    return from == DType::bool_;
  }
  if (uf && ut) return in_small_float_group(from) && in_small_float_group(to);
  if (uf)  // ml_dtypes: every float type casts safely to float32, float64, complex64, complex128
    return to == DType::float32 || to == DType::float64 || to == DType::complex64 || to == DType::complex128;
  // ... and bool, int8 and uint8 cast safely to every ml_dtypes float type.
  return from == DType::bool_ || from == DType::int8 || from == DType::uint8;
}

// NumPy's scalar kinds (NPY_SCALARKIND) from dtype.kind: b, u, i, f, c; -1 for none.
// ml_dtypes gives its types kind 'V' -- except float8_e5m2, whose kind is 'f'.
int scalar_kind(DType t, Version v) {
  if (t == DType::float8_e5m2) return 3;
  if (is_user_dtype(t) && !abstract_kinds(v)) return -1;
  switch (info(t).kind) {
    case DTypeKind::Bool: return 0;
    case DTypeKind::UnsignedInt: return 1;
    case DTypeKind::SignedInt: return 2;
    case DTypeKind::Float: return 3;
    case DTypeKind::Complex: return 4;
  }
  return -1;
}

char kind_char(DType t) {
  constexpr std::string_view kChars = "buifc";
  const int k = scalar_kind(t, Version::V2);  // dtype.kind: 'V' for ml_dtypes' types in every release
  return k < 0 ? 'V' : kChars[k];
}

namespace {

// The last resort of legacy_userdtype_common_dtype_function: when both DTypes have a
// scalar kind, try the smallest type of the larger kind and grow (_npy_smallest_type_
// of_kind_table, _npy_next_larger_type_table) until both cast to it safely.
std::optional<DType> common_by_kind(DType a, DType b, Version v) {
  const int ka = scalar_kind(a, v), kb = scalar_kind(b, v);
  if (ka < 0 || kb < 0) return std::nullopt;
  static constexpr std::array<std::array<DType, 4>, 5> kLadder = {{
      {DType::bool_, DType::bool_, DType::bool_, DType::bool_},
      {DType::uint8, DType::uint16, DType::uint32, DType::uint64},
      {DType::int8, DType::int16, DType::int32, DType::int64},
      {DType::float16, DType::float32, DType::float64, DType::float64},
      {DType::complex64, DType::complex128, DType::complex128, DType::complex128},
  }};
  for (int k = std::max(ka, kb); k < 5; ++k)
    for (DType t : kLadder[k])
      if (can_cast_safe(a, t, v) && can_cast_safe(b, t, v)) return t;
  return std::nullopt;
}

}  // namespace

// Builtins: the table. With an ml_dtypes type, NumPy's legacy_userdtype_common_dtype_
// function (numpy/_core/src/multiarray/dtypemeta.c) runs on the DType with the higher
// type number: if that one casts safely to the other, the other wins; else if the other
// casts safely to it, it wins; else both need a scalar kind (common_by_kind), which only
// float8_e5m2 among ml_dtypes' types has.
std::optional<DType> common_type(DType a, DType b, Version v) {
  if (!is_user_dtype(a) && !is_user_dtype(b)) return builtin_promote(a, b);
  if (a == b) return a;
  const DType hi = type_number(a, v) > type_number(b, v) ? a : b, lo = hi == a ? b : a;
  if (can_cast_safe(hi, lo, v)) return lo;
  if (can_cast_safe(lo, hi, v)) return hi;
  return common_by_kind(a, b, v);
}

}  // namespace pl::promote::numpy
