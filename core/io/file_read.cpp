#include "core/io/file_read.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unordered_set>

#include "core/util/printable.h"

namespace pl::io {

Status not_a_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st)) return Error{path + " is a directory, not a file"};
  // A pipe, a socket or a device blocks the open or the read, or never ends: only a file of
  // bytes on disk is read (a FIFO given as input hung until killed).
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    return Error{path + " is not a regular file"};
  return {};
}

Expected<std::vector<uint8_t>> read_file(const std::string& path, size_t limit) {
  if (auto st = not_a_file(path); !st) return Error{st.error()};
  // istream::read catches what the filebuf throws and sets badbit instead.
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Error{"cannot open " + printable_whole(path) + ": " + std::strerror(errno)};
  const std::streamoff size = in.tellg();
  if (size < 0) return Error{"cannot read " + path};
  if (static_cast<uint64_t>(size) > limit)
    return Error{path + " is " + std::to_string(size) + " bytes (limit " + std::to_string(limit) + ")"};
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) return Error{"cannot read " + path};
  return bytes;
}

Expected<nlohmann::json> parse_json_strictly(std::string_view text, const std::string& what) {
  // The parser ends its input at a NUL byte: whatever follows one would go unread, unrefused.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    return Error{what + " holds a NUL byte at offset " + std::to_string(nul) + ": it is not JSON text"};
  // One set of keys per open object: a key given twice is an error, not "the last one wins".
  // (Hashed, so the check stays linear: a tokenizer.json dropped on the window has 128,256 keys.)
  std::vector<std::unordered_set<std::string>> open;
  std::string problem;
  const auto check = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (!problem.empty()) return false;
    if (depth >= kMaxJsonDepth) {  // depth counts from 0 at the outermost value
      problem = what + " is nested deeper than " + std::to_string(kMaxJsonDepth);
      return false;
    }
    if (event == E::object_start) open.emplace_back();
    if (event == E::object_end && !open.empty()) open.pop_back();
    if (event == E::key && !open.empty()) {
      std::string key = parsed.get<std::string>();
      if (!open.back().insert(key).second) {
        problem = what + " gives the key '" + printable(key) + "' twice in one object";
        return false;
      }
    }
    return true;
  };
  nlohmann::json j = nlohmann::json::parse(text, check, /*allow_exceptions=*/false);
  if (!problem.empty()) return Error{problem};
  if (j.is_discarded()) {
    // Where, as the parser says it ("line 1, column 24: syntax error while parsing object key -
    // unexpected ','; expected string literal"), so a long file need not be searched by hand.
    // Every exception of the parser's is caught: a number past double's range ("4e2026") is an
    // out_of_range, not a parse_error, and escaped into std::terminate (the fuzzer found it).
    std::string where;
    try {
      const nlohmann::json again = nlohmann::json::parse(text);  // (throws: it did not parse)
    } catch (const nlohmann::json::exception& e) {
      const std::string said = e.what();  // "[json.exception.parse_error.101] parse error at line ..."
      if (const size_t at = said.find(" at line "); at != std::string::npos) where = said.substr(at + 4);
      else if (const size_t id = said.find("] "); id != std::string::npos) where = said.substr(id + 2);
    }
    return Error{what + " is not valid JSON" + (where.empty() ? std::string() : ": " + printable(where, 200))};
  }
  return j;
}

Expected<nlohmann::json> read_json_file(const std::string& path) {
  auto bytes = read_file(path, size_t{64} << 20);
  if (!bytes) return Error{bytes.error()};
  return parse_json_strictly(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path);
}

}  // namespace pl::io
