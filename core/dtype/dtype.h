// The one table of number formats. Every other module (codec, promotion,
// experiments, CLI, GUI, kernels) reads formats from here; adding a format is
// one row in dtype_table.cpp plus one enum value here. Custom float formats a user
// names at run time (e5m7) get ids above the table's (custom_dtype.h); info() answers
// for them too.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/dtype/device/float_format.h"

namespace pl {

// Stable ids, never renumbered (files store names, but ids order the table and its tests).
enum class DType : uint8_t {
  float64 = 0,
  float32 = 1,
  tf32 = 2,
  float16 = 3,
  bfloat16 = 4,
  float8_e4m3fn = 5,
  float8_e5m2 = 6,
  float8_e4m3fnuz = 7,
  float8_e5m2fnuz = 8,
  float8_e4m3 = 9,
  float8_e3m4 = 10,
  float8_e4m3b11fnuz = 11,
  float8_e8m0fnu = 12,
  float6_e2m3fn = 13,
  float6_e3m2fn = 14,
  float4_e2m1fn = 15,
  bool_ = 16,
  int8 = 17,
  uint8 = 18,
  int16 = 19,
  uint16 = 20,
  int32 = 21,
  uint32 = 22,
  int64 = 23,
  uint64 = 24,
  complex64 = 25,
  complex128 = 26,
  complex32 = 27,   // torch.complex32 (chalf): two float16
  bcomplex32 = 28,  // torch.bcomplex32: two bfloat16 (PyTorch 2.15)
  int4 = 29,        // ml_dtypes.int4 / torch.int4: four-bit integers, one to a byte
  uint4 = 30,
};
inline constexpr int kDTypeCount = 31;

enum class DTypeKind : uint8_t { Float, Bool, SignedInt, UnsignedInt, Complex };

struct DTypeInfo {
  DType id;
  std::string_view name;  // canonical, spelled as ml_dtypes / PyTorch spell it
  DTypeKind kind;
  int storage_bits;             // bits one element occupies in memory
  FloatFormat format;           // Float: the format; Complex: one component's format
  std::string_view aliases;     // space-separated extra spellings accepted on input
  std::string_view defined_by;  // the document that defines the encoding
  // Integers narrower than their storage (int4: four bits in a byte): the bits that hold the
  // value. 0: all storage_bits do.
  int packed_bits = 0;
};

// Framework spellings, a parallel table indexed by DType (empty: the framework has no such dtype).
struct FrameworkNames {
  std::string_view torch;  // PyTorch 2.x, e.g. "torch.float8_e4m3fn"
  std::string_view numpy;  // NumPy 2.x, or ml_dtypes for the extension types
  std::string_view jax;    // jax.numpy
  std::string_view tf;     // TensorFlow 2.x
};

const DTypeInfo& info(DType t);
const FrameworkNames& framework_names(DType t);
std::span<const DTypeInfo> all_dtypes();  // the table's rows; custom formats: custom_dtypes()

inline bool is_float(DType t) { return info(t).kind == DTypeKind::Float; }
inline bool is_integer(DType t) {
  auto k = info(t).kind;
  return k == DTypeKind::SignedInt || k == DTypeKind::UnsignedInt;
}
inline std::string_view name(DType t) { return info(t).name; }
// int4 and uint4: integers narrower than the byte that stores each.
inline bool is_packed_int(DType t) { return info(t).packed_bits != 0; }
// A compact spelling for grids and axis labels: f32, bf16, e4m3fn, e2m1fn, i8, c64, bc32.
std::string short_name(DType t);

// The bits that hold a value: a float's format bits (4 for float4_e2m1fn, stored in a byte), an
// integer's value bits (4 for int4), otherwise storage_bits.
int value_bits(DType t);

// Integer limits, for SignedInt / UnsignedInt / Bool rows.
int64_t int_min(DType t);
uint64_t int_max(DType t);

}  // namespace pl
