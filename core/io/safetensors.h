// The safetensors format (huggingface/safetensors, format as of 0.4-0.5): an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype, shape and byte range,
// then the data. List the tensors, read one by name, optionally a 2-D slice of it (tensors
// of more than two dimensions are seen as (product of the leading dims) x last).
// Dtypes read: F64 F32 F16 BF16 F8_E4M3 F8_E5M2 F8_E8M0 I8 U8 I16 U16 I32 U32 I64 U64 BOOL.
// The header is validated before any data is read, as strictly as the reference library: size
// and nesting limits, JSON syntax without a byte-order mark, no name given twice, __metadata__ a
// map of strings to strings, known dtypes, shapes whose byte count matches the offsets, and
// tensors that in offset order follow one another without gap or overlap and cover the data
// section exactly (no trailing bytes). Messages name the tensor and its byte range.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/tensor.h"
#include "core/util/expected.h"

namespace pl::io {

struct SafetensorsEntry {
  std::string name;
  std::string dtype;  // as in the file: "BF16"
  std::vector<size_t> shape;
  size_t begin = 0, end = 0;  // byte range in the data section
};

struct Slice {  // [row0, row1) x [col0, col1) of the matrix view
  // An end not given runs to the end of the range. (Not 0: an explicit "0:0" -- an empty range
  // -- would then read as the whole of it.)
  static constexpr size_t kToTheEnd = SIZE_MAX;
  size_t row0 = 0, row1 = kToTheEnd, col0 = 0, col1 = kToTheEnd;
};
// "0:128,0:256"; an empty side means the whole range ("":,0:64").
Expected<std::optional<Slice>> parse_slice(const std::string& text);

Expected<std::vector<SafetensorsEntry>> list_safetensors(std::span<const uint8_t> file);
Expected<Tensor> read_safetensors(std::span<const uint8_t> file, const std::string& tensor,
                                  std::optional<Slice> slice = {});

Expected<std::vector<SafetensorsEntry>> list_safetensors_file(const std::string& path);

// A file's validated header: its tensors in offset order, and where its data section starts.
struct SafetensorsLayout {
  std::vector<SafetensorsEntry> entries;
  uint64_t data_offset = 0;  // the file offset of the data section's first byte
};
Expected<SafetensorsLayout> safetensors_layout_file(const std::string& path);

// How a safetensors dtype's elements decode (decode_elements' kind and width) and what they hold;
// null for a dtype the reader does not take.
struct StoredDtype {
  std::string_view name;  // "BF16"
  char kind;
  int bytes;
  DType dtype;
};
const StoredDtype* safetensors_dtype(std::string_view name);
Expected<Tensor> read_safetensors_file(const std::string& path, const std::string& tensor,
                                       std::optional<Slice> slice = {});

}  // namespace pl::io
