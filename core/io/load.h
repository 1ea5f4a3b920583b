// One way to name a tensor in a file, for the command line and experiment files:
//   x.npy                                  a .npy array
//   model.safetensors:layer.weight         a tensor of a .safetensors file
//   model.safetensors:layer.weight@0:128,0:256   a 2-D slice of it (rows, then columns)
#pragma once

#include <optional>
#include <string>

#include "core/io/tensor.h"
#include "core/util/expected.h"

namespace pl::io {

// `raw_as`: .npy integer elements are raw codes of this dtype (bfloat16, float8, ...).
Expected<Tensor> load_tensor(const std::string& spec, std::optional<DType> raw_as = {});
// The file a spec reads: model.safetensors for model.safetensors:layer.weight@0:128,0:256.
std::string tensor_file(const std::string& spec);

}  // namespace pl::io
