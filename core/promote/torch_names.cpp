#include "core/promote/torch_names.h"

#include <array>

namespace pl::promote::torch {
namespace {

struct Names {
  DType dtype;
  std::string_view python;  // torch.<python>
  std::string_view scalar;  // c10/core/ScalarType.h, AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS
  std::string_view cpp;     // c10/util/TypeIndex.h demangled names, as GCC prints them
};

// Transcribed from PyTorch 2.15.0; checked by the golden tables (tests/data/promotion).
constexpr std::array kNames = {
    Names{DType::bool_, "bool", "Bool", "bool"},
    Names{DType::uint8, "uint8", "Byte", "unsigned char"},
    Names{DType::int8, "int8", "Char", "signed char"},
    Names{DType::int16, "int16", "Short", "short int"},
    Names{DType::int32, "int32", "Int", "int"},
    Names{DType::int64, "int64", "Long", "long int"},
    Names{DType::uint16, "uint16", "UInt16", "short unsigned int"},
    Names{DType::uint32, "uint32", "UInt32", "unsigned int"},
    Names{DType::uint64, "uint64", "UInt64", "long unsigned int"},
    Names{DType::float16, "float16", "Half", "c10::Half"},
    Names{DType::bfloat16, "bfloat16", "BFloat16", "c10::BFloat16"},
    Names{DType::float32, "float32", "Float", "float"},
    Names{DType::float64, "float64", "Double", "double"},
    Names{DType::complex32, "complex32", "ComplexHalf", "c10::complex<c10::Half>"},
    Names{DType::bcomplex32, "bcomplex32", "BComplex32", "c10::complex<c10::BFloat16>"},
    Names{DType::complex64, "complex64", "ComplexFloat", "c10::complex<float>"},
    Names{DType::complex128, "complex128", "ComplexDouble", "c10::complex<double>"},
    Names{DType::float8_e4m3fn, "float8_e4m3fn", "Float8_e4m3fn", "c10::Float8_e4m3fn"},
    Names{DType::float8_e5m2, "float8_e5m2", "Float8_e5m2", "c10::Float8_e5m2"},
    Names{DType::float8_e4m3fnuz, "float8_e4m3fnuz", "Float8_e4m3fnuz", "c10::Float8_e4m3fnuz"},
    Names{DType::float8_e5m2fnuz, "float8_e5m2fnuz", "Float8_e5m2fnuz", "c10::Float8_e5m2fnuz"},
    Names{DType::float8_e8m0fnu, "float8_e8m0fnu", "Float8_e8m0fnu", "c10::Float8_e8m0fnu"},
    // PyTorch has fp4 only packed two to a byte.
    Names{DType::float4_e2m1fn, "float4_e2m1fn_x2", "Float4_e2m1fn_x2", "c10::Float4_e2m1fn_x2"},
    // Shell dtypes: they exist for packed storage, with no arithmetic and no C++ value type.
    Names{DType::int4, "int4", "Int4", "c10::dummy_int1_7_t<4>"},
    Names{DType::uint4, "uint4", "UInt4", "c10::dummy_uint1_7_t<4>"},
};

const Names* find(DType t) {
  for (const auto& n : kNames)
    if (n.dtype == t) return &n;
  return nullptr;
}

}  // namespace

bool has_dtype(DType t) { return find(t) != nullptr; }

std::string_view scalar_type_name(DType t) {
  const Names* n = find(t);
  return n ? n->scalar : "Undefined";
}

std::string_view cpp_type_name(DType t) {
  const Names* n = find(t);
  return n ? n->cpp : "nullptr (uninitialized)";
}

std::string tensor_type_string(DType t, bool cuda) {
  switch (t) {  // the eight types of the old torch.*Tensor classes
    case DType::uint8:
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::int64:
    case DType::float16:
    case DType::float32:
    case DType::float64: return (cuda ? "torch.cuda." : "torch.") + std::string(scalar_type_name(t)) + "Tensor";
    default: return (cuda ? "CUDA" : "CPU") + std::string(scalar_type_name(t)) + "Type";
  }
}

std::string_view python_name(DType t) {
  const Names* n = find(t);
  return n ? n->python : "";
}

std::optional<DType> from_python_name(std::string_view name) {
  for (const auto& n : kNames)
    if (n.python == name) return n.dtype;
  return std::nullopt;
}

}  // namespace pl::promote::torch
