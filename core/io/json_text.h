// How every JSON output is written: nlohmann's dump() throws on a string that is not valid UTF-8
// (a file name of other bytes), which would end a finished run without its results, and the
// window in std::terminate. Such bytes are written as U+FFFD instead:
//   j.dump(1, ' ', false, io::kReplaceInvalidUtf8)
#pragma once

#include <nlohmann/json.hpp>

namespace pl::io {

inline constexpr auto kReplaceInvalidUtf8 = nlohmann::json::error_handler_t::replace;

}  // namespace pl::io
