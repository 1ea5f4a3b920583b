// Where the window's exports go: ROOT/<date-time>[-what], one new folder (or file) per export.
// Two exports in the same second get -2, -3, ... so nothing is ever written over, even while an
// earlier export is still being written on its own thread.
#pragma once

#include <filesystem>
#include <string>

#include "core/util/expected.h"
#include "core/util/scratch_paths.h"

namespace pl::exporting {

constexpr const char* kExportRoot = "precision-lab-export";

// Creates and returns a folder that did not exist: ROOT/STAMP[-what][-N].
Expected<std::string> new_export_dir(const std::string& what = "", const std::string& root = kExportRoot);

// A new file's path, ROOT/STAMP[-what][-N].EXT, ROOT created if needed: the file is created empty,
// so no other export takes the name; write it (write_file_atomic replaces it), or remove it.
Expected<std::string> new_export_file(const std::string& what, const std::string& ext,
                                      const std::string& root = kExportRoot);

// Fills new_export_file's file with `write` (a Status), and removes it unless `write` succeeds --
// a failure, an exception or a second Ctrl-C (scratch_paths.h) leaves no empty file behind.
template <typename Write>
Status fill_export_file(const std::string& path, Write&& write) {
  // (Noted until its file is renamed onto it, which takes it back: a signal that ends the process
  // before then removes it too.)
  const ScratchPath placeholder(path);
  struct RemoveUnlessKept {
    const std::string& path;
    bool keep = false;
    ~RemoveUnlessKept() {
      std::error_code ec;
      if (!keep) std::filesystem::remove(path, ec);
    }
  } guard{path};
  Status ok = write();
  guard.keep = ok.ok();
  return ok;
}

}  // namespace pl::exporting
