// The fuzzers' bytes as a file on disk, for the readers that take a path (the ones the command
// line calls: read_npy, read_npy_header, list_safetensors_file, read_safetensors_file), which
// read through their own code (sizes, seeks, partial reads), not the in-memory parsers'.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace pl::fuzz {

// One file per process, rewritten for every input; "" if it cannot be written.
inline std::string as_file(const uint8_t* data, size_t size, const char* suffix) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/pl-fuzz-XXXXXX";
    const char* made = mkdtemp(tmpl);
    return std::string(made ? made : "");
  }();
  if (dir.empty()) return "";
  const std::string path = dir + "/input" + suffix;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return "";
  const bool ok = std::fwrite(data, 1, size, f) == size;
  if (std::fclose(f) != 0 || !ok) return "";
  return path;
}

}  // namespace pl::fuzz
