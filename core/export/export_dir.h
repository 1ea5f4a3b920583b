// Where the window's exports go: ROOT/<date-time>[-what], one new folder (or file) per export.
// Two exports in the same second get -2, -3, ... so nothing is ever written over, even while an
// earlier export is still being written on its own thread.
#pragma once

#include <string>

#include "core/util/expected.h"

namespace pl::exporting {

constexpr const char* kExportRoot = "precision-lab-export";

// Creates and returns a folder that did not exist: ROOT/STAMP[-what][-N].
Expected<std::string> new_export_dir(const std::string& what = "", const std::string& root = kExportRoot);

// A new file's path, ROOT/STAMP[-what][-N].EXT, ROOT created if needed: the file is created empty,
// so no other export takes the name; write it (write_file_atomic replaces it), or remove it.
Expected<std::string> new_export_file(const std::string& what, const std::string& ext,
                                      const std::string& root = kExportRoot);

}  // namespace pl::exporting
