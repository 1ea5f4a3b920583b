// What a run is writing on disk under a temporary name (a result folder's `.NAME.tmp-XXXXXX`, a
// file's `.C.npy.tmp-XXXXXX`), so that a signal that ends the process at once can remove it
// first. The normal path removes or renames these itself; this is for the second Ctrl-C, which
// does not wait for the work to notice the first.
#pragma once

#include <string>

namespace pl {

// A scratch path held for as long as the object lives: `path` (a file, or a folder and all it
// holds) and then, each while empty, its first `parents` enclosing folders (those made for it).
// At most a few are held at once; past that, one is not noted (the normal path still cleans it).
class ScratchPath {
 public:
  ScratchPath() = default;
  explicit ScratchPath(const std::string& path, int parents = 0);
  ~ScratchPath() { release(); }
  ScratchPath(ScratchPath&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  ScratchPath& operator=(ScratchPath&& o) noexcept;
  ScratchPath(const ScratchPath&) = delete;
  ScratchPath& operator=(const ScratchPath&) = delete;
  // No longer scratch: committed, or removed by its owner.
  void release();
  // Takes the path back before its owner renames it into place: false when a signal handler
  // already has it (it may be emptying the folder through a descriptor that the rename would
  // carry into the destination), and then it must not be renamed. Released either way.
  bool claim();

 private:
  int slot_ = -1;
};

// Takes `path` back from the scratch paths before something is renamed onto it (a window export's
// placeholder, replaced by its file or folder): a second Ctrl-C then leaves it. False when a
// signal handler already has it (the rename must not happen: the process is ending). True when
// no scratch path is `path`. Its owner still releases it.
bool claim_scratch_path(const std::string& path);

// Removes every scratch path held now, each once: its owner still releases it. Async-signal-safe
// (system calls only, no allocation), for a signal handler about to end the process.
void remove_scratch_paths();

}  // namespace pl
