// A tensor read from a file: its shape, its values as float64 (every numeric dtype we read
// converts exactly, except int64/uint64 beyond 2^53, which the reader refuses), and what it
// was stored as.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl::io {

struct Tensor {
  std::vector<size_t> shape;  // row-major (C order); empty for a 0-d array
  std::vector<double> values;
  DType dtype = DType::float64;  // what the stored numbers are (after any raw view)
  std::string stored_as;         // the file's own spelling: "<f4", "BF16", "<u2 viewed as bfloat16"

  size_t rows() const;  // a matrix view: all leading dimensions x the last (1 x n for 1-D)
  size_t cols() const;
};

std::string shape_text(const std::vector<size_t>& shape);  // "(3, 4)"

// The element count of a shape; an error when it overflows or exceeds `limit`.
Expected<size_t> element_count(const std::vector<size_t>& shape, size_t limit);

// Little-endian element decoding shared by the readers: `bytes` per element of `kind`
// ('f' float, 'i' signed, 'u' unsigned, 'b' bool, 'r' raw codes of `raw`).
Status decode_elements(const uint8_t* data, size_t count, char kind, int bytes, bool big_endian, DType raw,
                       std::vector<double>& out);

}  // namespace pl::io
