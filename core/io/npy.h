// NumPy's .npy format (format versions 1.0, 2.0 and 3.0, numpy/lib/format.py): read every
// numeric dtype NumPy writes (bool, int8..uint64, float16/32/64, either byte order, C or
// Fortran order), and bfloat16/float8/float6/float4 arrays stored as raw 8/16-bit codes with
// the dtype named by the caller. Write float64/32/16 and integers natively, the other formats
// as raw codes ('<u2' / '|u1') that ml_dtypes reads back with .view(dtype).
//
// Everything about the file is checked before it is trusted: magic and version, header
// length and syntax, the dtype, shape arithmetic against the size of the file, trailing
// bytes. A bad file is an error message, never a crash (tests/fuzz/npy_fuzz.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/io/tensor.h"
#include "core/util/expected.h"

namespace pl::io {

inline constexpr size_t kMaxElements = size_t{1} << 31;

// `raw_as`: read 8/16-bit unsigned, signed or void elements as codes of this format.
Expected<Tensor> parse_npy(std::span<const uint8_t> bytes, std::optional<DType> raw_as = {});
Expected<Tensor> read_npy(const std::string& path, std::optional<DType> raw_as = {});

// Values are rounded to `dtype` (nearest even; integers must already be in range).
Status write_npy(const std::string& path, const std::vector<size_t>& shape, std::span<const double> values,
                 DType dtype);

// The header dictionary, exposed for tests: descr, fortran_order, shape.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<size_t> shape;
};
Expected<NpyHeader> parse_npy_header(std::string_view dict);

// A file's header, its size checked against it, without reading the data (`tensors` of a
// 16 GiB array read all of it to print one line).
Expected<NpyHeader> read_npy_header(const std::string& path);

}  // namespace pl::io
