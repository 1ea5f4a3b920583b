// Operands as a GPU library reads them: every value in its element type's storage (float64,
// float32, float16 / bfloat16 bits, one float8 byte, int8), rows padded with zeros to a
// leading dimension the library's layout rules ask for (fp8 and int8 tensor-core GEMMs want
// multiples of 16). Host code, so it is tested on machines without a GPU.
//
// A value that is not exactly a number of the element type is an error, never rounded here:
// the experiment has already quantised the operands, so such a value means the recipe (a
// block-scaled MX or NVFP4 operand, say) does not fit the library path, and the caller runs
// the product elsewhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"
#include "core/util/no_init_vector.h"

namespace pl::cuda {

enum class Element : uint8_t { F64, F32, F16, BF16, E4M3, E5M2, I8, I32 };

size_t element_bytes(Element e);
const char* element_name(Element e);  // "f64", "bf16", "e4m3", ...
// The storage a dtype's values travel in to a library GEMM (tf32 travels as float32); none
// (an error) for dtypes no library GEMM reads.
Expected<Element> library_element(DType t);

struct PackedRows {
  Element element;
  size_t rows = 0, cols = 0, ld = 0;  // ld >= cols: elements per stored row
  NoInitVector<uint8_t> bytes;        // rows * ld elements, each written once by pack_rows
};

// `values` holds rows x cols row-major; columns cols..ld-1 are zero.
Expected<PackedRows> pack_rows(std::span<const double> values, size_t rows, size_t cols, size_t ld, Element e);
// The first `cols` of every stored row back as doubles (exact for every element type).
std::vector<double> unpack_rows(const uint8_t* bytes, size_t rows, size_t cols, size_t ld, Element e);

// n rounded up to a multiple of `multiple`.
inline size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

}  // namespace pl::cuda
