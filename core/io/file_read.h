// Reading a file the user named: every reader of a path goes through here, so that a directory,
// a missing file, a file too large or unreadable is the same clear error everywhere, never an
// exception (libstdc++'s filebuf throws from a read of a directory, which nlohmann's stream
// parser lets through: `precision-lab run /tmp` ended in std::terminate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/expected.h"

namespace pl::io {

// "" when path names something a file can be read from, else why not: "cannot open P" (absent or
// not permitted), "P is a directory, not a file".
std::string unreadable_file(const std::string& path);

// Reads a whole file, refusing files above `limit` bytes.
Expected<std::vector<uint8_t>> read_file(const std::string& path, size_t limit);

// A JSON document of at most 64 MiB (experiment, scenario and settings files are kilobytes):
// "P is not valid JSON" when it does not parse.
Expected<nlohmann::json> read_json_file(const std::string& path);

}  // namespace pl::io
