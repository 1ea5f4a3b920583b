#include "core/io/file_read.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace pl::io {

std::string not_a_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec) ? path + " is a directory, not a file" : "";
}

Expected<std::vector<uint8_t>> read_file(const std::string& path, size_t limit) {
  if (auto why = not_a_file(path); !why.empty()) return Error{why};
  // istream::read catches what the filebuf throws and sets badbit instead.
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  const std::streamoff size = in.tellg();
  if (size < 0) return Error{"cannot read " + path};
  if (static_cast<uint64_t>(size) > limit)
    return Error{path + " is " + std::to_string(size) + " bytes (limit " + std::to_string(limit) + ")"};
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) return Error{"cannot read " + path};
  return bytes;
}

Expected<nlohmann::json> read_json_file(const std::string& path) {
  auto bytes = read_file(path, size_t{64} << 20);
  if (!bytes) return Error{bytes.error()};
  nlohmann::json j = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error{path + " is not valid JSON"};
  return j;
}

}  // namespace pl::io
