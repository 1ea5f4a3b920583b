#include "core/util/scratch_paths.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace pl {
namespace {

// A slot's life: Free -> Filling (its path being copied) -> Held -> Free (released), or Held ->
// Removing (taken by remove_scratch_paths) -> Removed -> Free (released by its owner), or Held ->
// Claimed (claim_scratch_path: its path is being renamed onto) -> Free (released by its owner).
enum State : int { Free, Filling, Held, Removing, Removed, Claimed };

struct Slot {
  std::atomic<int> state{Free};
  int parents = 0;
  char path[4096] = {};
};
constexpr int kSlots = 8;
Slot g_slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

bool is_dot(const char* name) { return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)); }

// Removes everything in the open folder `dir` (closed here), depth-first. getdents64 rather than
// readdir: readdir allocates, which a signal handler must not.
void empty_folder(int dir, int depth) {
  alignas(8) char buf[4096];
  // Entries removed while reading may shift the listing: it is read again from the start until a
  // reading removes nothing.
  for (int pass = 0; pass < 64; ++pass) {
    bool removed = false;
    for (long n; (n = ::syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0;)
      for (long at = 0; at < n;) {
        // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
        unsigned short reclen;
        std::memcpy(&reclen, buf + at + 16, sizeof reclen);
        const char* name = buf + at + 19;
        at += reclen;
        if (is_dot(name)) continue;
        if (::unlinkat(dir, name, 0) == 0) {
          removed = true;
          continue;
        }
        if (errno != EISDIR || depth > 32) continue;
        const int sub = ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) empty_folder(sub, depth + 1);
        removed |= ::unlinkat(dir, name, AT_REMOVEDIR) == 0;
      }
    if (!removed || ::lseek(dir, 0, SEEK_SET) != 0) break;
  }
  ::close(dir);
}

void remove_tree(const char* path) {
  if (::unlink(path) == 0 || errno == ENOENT) return;
  // (Another thread may add a file while the folder is emptied: a few tries.)
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int dir = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0) return;
    empty_folder(dir, 0);
    if (::rmdir(path) == 0) return;
  }
}

}  // namespace

ScratchPath::ScratchPath(const std::string& path, int parents) {
  if (path.empty() || path.size() >= sizeof(Slot::path)) return;
  for (int i = 0; i < kSlots; ++i) {
    int free = Free;
    if (!g_slots[i].state.compare_exchange_strong(free, Filling)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].parents = parents;
    g_slots[i].state.store(Held);
    slot_ = i;
    return;
  }
}

ScratchPath& ScratchPath::operator=(ScratchPath&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = o.slot_;
    o.slot_ = -1;
  }
  return *this;
}

void ScratchPath::release() {
  if (slot_ < 0) return;
  // (Removing: a signal handler on another thread has it, and the process is ending.)
  for (int was : {Held, Removed, Claimed})
    if (g_slots[slot_].state.compare_exchange_strong(was, Free)) break;
  slot_ = -1;
}

bool ScratchPath::claim() {
  if (slot_ < 0) return true;  // (not noted: nothing can be removing it)
  int held = Held;
  const bool ours = g_slots[slot_].state.compare_exchange_strong(held, Free);
  if (!ours) release();
  slot_ = -1;
  return ours;
}

bool claim_scratch_path(const std::string& path) {
  for (Slot& s : g_slots) {
    int held = Held;
    if (s.state.load() != Held || path != s.path) continue;  // (a Held slot's path is written)
    if (s.state.compare_exchange_strong(held, Claimed)) continue;
    if (held == Removing || held == Removed) return false;
  }
  return true;
}

void remove_scratch_paths() {
  for (Slot& s : g_slots) {
    int held = Held;
    if (!s.state.compare_exchange_strong(held, Removing)) continue;
    remove_tree(s.path);
    // Its enclosing folders made for it, innermost first, each only while empty.
    char up[sizeof s.path];
    std::memcpy(up, s.path, sizeof up);
    for (int p = 0; p < s.parents; ++p) {
      char* slash = std::strrchr(up, '/');
      if (slash == nullptr || slash == up) break;
      *slash = 0;
      if (::rmdir(up) != 0) break;
    }
    s.state.store(Removed);
  }
}

}  // namespace pl
