// Reading a file the user named: every reader of a path goes through here, so that a directory,
// a missing file, a file too large or unreadable is the same clear error everywhere, never an
// exception (libstdc++'s filebuf throws from a read of a directory, which nlohmann's stream
// parser lets through: `precision-lab run /tmp` ended in std::terminate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/expected.h"

namespace pl::io {

// "P is a directory, not a file" for a directory (which an ifstream opens, then throws from its
// first read). Readers check it before they open the path ("cannot open P" is theirs).
Status not_a_file(const std::string& path);

// Reads a whole file, refusing files above `limit` bytes.
Expected<std::vector<uint8_t>> read_file(const std::string& path, size_t limit);

// Experiment, scenario and settings files are a few levels deep: a deeper document is refused
// while it is parsed ("nested deeper than 64"), before it can exhaust memory or the stack.
inline constexpr int kMaxJsonDepth = 64;

// `text` as JSON, refusing a key given twice in one object and nesting past kMaxJsonDepth;
// `what` names the document in messages.
Expected<nlohmann::json> parse_json_strictly(std::string_view text, const std::string& what);

// A JSON document of at most 64 MiB (experiment, scenario and settings files are kilobytes):
// "P is not valid JSON" when it does not parse; parse_json_strictly's checks.
Expected<nlohmann::json> read_json_file(const std::string& path);

}  // namespace pl::io
