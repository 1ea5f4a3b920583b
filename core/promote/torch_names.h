// How PyTorch 2.15.0 spells each dtype in its messages. Three spellings occur:
// the c10::ScalarType name ("Float", "Half"), the C++ type name that TypeMeta
// prints ("float", "c10::Half", "short unsigned int"), and the legacy tensor
// type name ("torch.FloatTensor").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/dtype/dtype.h"

namespace pl::promote::torch {

bool has_dtype(DType t);                     // does PyTorch have this dtype at all?
std::string_view scalar_type_name(DType t);  // c10::toString(ScalarType)
std::string_view cpp_type_name(DType t);     // c10::TypeMeta name (GCC's spelling)
// How Tensor::toString() names a tensor's type in messages: the legacy class name where the
// dtype has one ("torch.FloatTensor", "torch.cuda.HalfTensor"), else backend + ScalarType +
// "Type" ("CPUBoolType", "CUDABFloat16Type").
std::string tensor_type_string(DType t, bool cuda);
std::string_view python_name(DType t);  // "float32", "float4_e2m1fn_x2": torch.<name>
std::optional<DType> from_python_name(std::string_view name);

}  // namespace pl::promote::torch
