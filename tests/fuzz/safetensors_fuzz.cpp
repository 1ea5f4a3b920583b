// libFuzzer target: any bytes through the safetensors header parser and tensor reader.
#include <cstddef>
#include <cstdint>

#include "core/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  if (auto list = pl::io::list_safetensors(bytes); list && !list->empty()) {
    (void)pl::io::read_safetensors(bytes, list->front().name);
    (void)pl::io::read_safetensors(bytes, list->front().name, pl::io::Slice{0, 1, 0, 1});
  }
  return 0;
}
