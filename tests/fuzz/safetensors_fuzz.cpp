// libFuzzer target: any bytes through the safetensors header parser and tensor reader, in
// memory and through the file readers the command line calls.
#include <cstddef>
#include <cstdint>

#include "core/io/safetensors.h"
#include "tests/fuzz/file_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  if (auto list = pl::io::list_safetensors(bytes); list && !list->empty()) {
    (void)pl::io::read_safetensors(bytes, list->front().name);
    (void)pl::io::read_safetensors(bytes, list->front().name, pl::io::Slice{0, 1, 0, 1});
  }
  if (const std::string path = pl::fuzz::as_file(data, size, ".safetensors"); !path.empty()) {
    if (auto list = pl::io::list_safetensors_file(path); list && !list->empty()) {
      (void)pl::io::read_safetensors_file(path, list->front().name);
      (void)pl::io::read_safetensors_file(path, list->back().name, pl::io::Slice{0, 2, 0, 2});
    }
  }
  return 0;
}
