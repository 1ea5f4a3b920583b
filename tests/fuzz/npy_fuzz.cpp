// libFuzzer target: any bytes through the .npy parser, plain and as raw bfloat16 / float8
// codes, in memory and through the file readers the command line calls. The parser must return
// a value or an error; sanitizers catch the rest.
#include <cstddef>
#include <cstdint>

#include "core/io/npy.h"
#include "tests/fuzz/file_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  (void)pl::io::parse_npy(bytes);
  (void)pl::io::parse_npy(bytes, pl::DType::bfloat16);
  (void)pl::io::parse_npy(bytes, pl::DType::float8_e4m3fn);
  if (const std::string path = pl::fuzz::as_file(data, size, ".npy"); !path.empty()) {
    (void)pl::io::read_npy_header(path);
    (void)pl::io::read_npy(path);
    (void)pl::io::read_npy(path, pl::DType::bfloat16);
  }
  return 0;
}
