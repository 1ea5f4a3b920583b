#include "core/export/result_folder.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "core/io/checked_write.h"
#include "core/util/interrupt.h"
#include "core/util/printable.h"

namespace pl::exporting {
namespace fs = std::filesystem;
namespace {

// "out/" and "out" name the same folder.
fs::path folder_path(const std::string& dest) {
  fs::path d = fs::path(dest).lexically_normal();
  if (d.filename().empty()) d = d.parent_path();
  return d;
}

std::string sibling(const fs::path& dest, const char* what) {
  const fs::path parent = dest.parent_path().empty() ? fs::path(".") : dest.parent_path();
  // (The name cut to 200 bytes: a destination's name may take all of NAME_MAX's 255, and the
  // temporary beside it must still be a name the file system takes.)
  std::string name = ".";
  name.append(dest.filename().string().substr(0, 200)).append(".").append(what).append("-XXXXXX");
  return (parent / name).string();
}

// What in `dir` no run writes, as "notes.txt, which no run writes", or "" where there is none:
// what --force may remove is an earlier run's results -- files of the kinds a run writes, in
// folders a few levels deep -- never a folder of other things ("explore 1 --out /dev" told root
// to give --force, which would have moved /dev aside and removed it).
std::string foreign_entry(const fs::path& dir) {
  static constexpr std::string_view kWritten[] = {".json", ".csv", ".png", ".svg", ".pdf", ".md", ".html"};
  constexpr int kDeepest = 3;
  constexpr size_t kMostEntries = 100000;
  std::error_code ec;
  size_t seen = 0;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return "what cannot be read (" + ec.message() + ")";
  for (; it != end; it.increment(ec)) {
    if (ec) return "what cannot be read (" + ec.message() + ")";
    const std::string rel = it->path().lexically_relative(dir).string();
    if (++seen > kMostEntries) return "more than " + std::to_string(kMostEntries) + " entries, more than a run writes";
    const fs::file_status st = it->symlink_status(ec);
    if (ec) return rel + ", which cannot be read (" + ec.message() + ")";
    if (fs::is_directory(st)) {
      if (it.depth() + 1 > kDeepest) return rel + ", a folder deeper than a run writes";
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (!fs::is_regular_file(st) || std::find(std::begin(kWritten), std::end(kWritten), ext) == std::end(kWritten))
      return rel + ", which no run writes";
  }
  return "";
}

}  // namespace

// `path` is `folder` or lies in it, both as they resolve now (links followed, ".." taken).
bool within(const std::filesystem::path& path, const std::filesystem::path& folder) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  if (ec) return false;
  const fs::path f = fs::weakly_canonical(folder, ec);
  if (ec) return false;
  const fs::path rel = p.lexically_relative(f);
  return !rel.empty() && *rel.begin() != "..";
}

Status file_refusal(const std::string& file, std::string_view kind, const std::vector<NamedInput>& inputs) {
  if (file.empty()) return Error{"the output file's name is empty"};
  std::error_code ec;
  const fs::path f(file);
  const std::string said = printable(file, 200);
  if (fs::is_directory(f, ec)) return Error{said + " is a folder: name " + std::string(kind)};
  const fs::path parent = f.parent_path().empty() ? fs::path(".") : f.parent_path();
  // (A folder that cannot be looked at, for want of permission, is left to the write, whose
  // failure is the machine's: exit 1, not bad input.)
  if (const auto st = fs::status(parent, ec); st.type() == fs::file_type::not_found)
    return Error{said + ": there is no folder " + printable(parent.string(), 200) + " to write it in"};
  else if (fs::exists(st) && !fs::is_directory(st))
    return Error{said + ": " + printable(parent.string(), 200) + " is not a folder"};
  for (const NamedInput& input : inputs)
    if (!input.path.empty() && fs::exists(f, ec) && fs::equivalent(f, fs::path(input.path), ec))
      return Error{said + " is " + input.option + ", an input of this run: write it elsewhere"};
  return {};
}

Status ResultFolder::refusal(const std::string& dest, bool replace, const std::vector<std::string>& inputs) {
  if (dest.empty()) return Error{"the output folder's name is empty"};
  std::error_code ec;
  const fs::path d = folder_path(dest);
  const auto st = fs::symlink_status(d, ec);
  if (!fs::exists(st)) {
    // The nearest ancestor that exists must be a folder to make it in (out.json/x: bad input,
    // not a failure of the machine).
    for (fs::path up = d.parent_path(); !up.empty(); up = up.parent_path()) {
      const auto s = fs::symlink_status(up, ec);
      if (!fs::exists(s)) continue;
      // (A link to a folder is followed; a dangling one, or one to a file, is no folder.)
      if (!fs::is_directory(fs::status(up, ec)))
        return Error{up.string() + " is not a folder: " + dest + " cannot be made in it"};
      break;
    }
    return {};
  }
  if (fs::is_symlink(st)) return Error{dest + " is a symbolic link; give the folder itself"};
  if (!fs::is_directory(st)) return Error{dest + " exists and is not a folder"};
  // Replaced as a whole, the folder a command runs in cannot be renamed aside ("--out . --force"
  // failed after the work, "Device or resource busy", as if the machine were at fault).
  if (const fs::path here = fs::current_path(ec); !ec && within(here, d))
    return Error{dest + (fs::equivalent(here, d, ec) ? " is" : " holds") +
                 " the folder this command runs in: it cannot be replaced; give another folder"};
  if (!fs::is_empty(d, ec) && !replace) {
    if (const std::string foreign = foreign_entry(d); !foreign.empty())
      return Error{dest + " holds " + foreign + ": write the results to another folder"};
    return Error{dest + " is not empty: give --force to replace its contents, or another folder"};
  }
  for (const std::string& input : inputs)
    if (!input.empty() && fs::exists(fs::path(input), ec) && within(input, d))
      return Error{(folder_path(input) == d ? dest + " is" : dest + " holds " + input + ",") +
                   " an input of this run: replacing the folder would remove it; write the results to another "
                   "folder"};
  if (replace)
    if (const std::string foreign = foreign_entry(d); !foreign.empty())
      return Error{dest + " holds " + foreign +
                   ": --force replaces only an earlier run's results; write these to another folder"};
  return {};
}

Expected<ResultFolder> ResultFolder::begin(const std::string& dest, bool replace) {
  if (auto st = refusal(dest, replace); !st) return Error{st.error()};
  const fs::path d = folder_path(dest);
  std::error_code ec;
  ResultFolder f;
  if (!d.parent_path().empty()) {
    // Made a level at a time, top down, and each one this call made is noted, to be removed with
    // the folder when it is never committed (one that was there, or a link, is never noted).
    std::vector<fs::path> levels;  // those not there, deepest first
    for (fs::path up = d.parent_path(); !up.empty() && !fs::exists(fs::symlink_status(up, ec)); up = up.parent_path())
      levels.push_back(up);
    for (auto it = levels.rbegin(); it != levels.rend(); ++it) {
      if (fs::create_directory(*it, ec)) f.made_.insert(f.made_.begin(), it->string());
      if (ec) return Error{"cannot create " + it->string() + ": " + ec.message()};
    }
  }
  f.dest_ = d.string();
  f.replace_ = replace;
  f.tmp_ = sibling(d, "tmp");
  if (::mkdtemp(f.tmp_.data()) == nullptr) {
    const std::string why = std::strerror(errno);
    f.tmp_.clear();
    return Error{"cannot create a folder beside " + dest + ": " + why};
  }
  ::chmod(f.tmp_.c_str(), io::created_mode(0777));  // (mkdtemp makes it 0700)
  f.scratch_ = ScratchPath(f.tmp_, int(f.made_.size()));
  return f;
}

ResultFolder::ResultFolder(ResultFolder&& o) noexcept { *this = std::move(o); }

ResultFolder& ResultFolder::operator=(ResultFolder&& o) noexcept {
  std::swap(dest_, o.dest_);
  std::swap(tmp_, o.tmp_);
  std::swap(replace_, o.replace_);
  std::swap(committed_, o.committed_);
  std::swap(made_, o.made_);
  std::swap(scratch_, o.scratch_);
  return *this;
}

ResultFolder::~ResultFolder() {
  if (committed_) return;
  std::error_code ec;
  if (!tmp_.empty()) fs::remove_all(tmp_, ec);
  for (const std::string& dir : made_) {  // deepest first; each only while empty
    fs::remove(dir, ec);
    if (ec) break;
  }
}

std::string ResultFolder::in_destination(std::string text) const {
  if (tmp_.empty()) return text;
  for (size_t at = text.find(tmp_); at != std::string::npos; at = text.find(tmp_, at + dest_.size()))
    text.replace(at, tmp_.size(), dest_);
  return text;
}

Status ResultFolder::commit() {
  if (committed_) return {};
  if (interrupt_signal() != 0) return Error{"interrupted: nothing was written to " + dest_};
  if (auto synced = io::sync_folder(tmp_); !synced) return synced;
  // Taken back from a second Ctrl-C's handler before anything is renamed (it could be emptying the
  // folder through a descriptor the rename would carry into the destination).
  if (!scratch_.claim()) return Error{"interrupted: nothing was written to " + dest_};
  auto note_again = [&] { scratch_ = ScratchPath(tmp_, int(made_.size())); };
  std::error_code ec;
  const fs::path d(dest_);
  const bool exists = fs::exists(fs::symlink_status(d, ec));
  std::string old;
  if (exists && !fs::is_empty(d, ec)) {
    if (!replace_) {
      note_again();
      return Error{dest_ + " is not empty (it was written meanwhile): nothing was replaced"};
    }
    // Asked again here: what --force may replace is an earlier run's results, and files put into
    // the folder while these were being made are not (they would go with it).
    if (const std::string foreign = foreign_entry(d); !foreign.empty()) {
      note_again();
      return Error{dest_ + " now holds " + foreign + " (put there while the results were made): nothing was replaced"};
    }
    old = sibling(d, "old");
    if (::mkdtemp(old.data()) == nullptr || ::rmdir(old.c_str()) != 0 || ::rename(dest_.c_str(), old.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      note_again();
      return Error{"cannot move the previous " + dest_ + " aside: " + why};
    }
  }
  // rename(2) also replaces an empty folder: a window export's placeholder, noted as scratch, is
  // taken back first, so that a second Ctrl-C after the rename leaves the results it has become.
  if (!claim_scratch_path(dest_)) return Error{"interrupted: nothing was written to " + dest_};
  if (::rename(tmp_.c_str(), dest_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    note_again();
    // The previous folder is put back; where it cannot be, the message says where it is (it holds
    // the only results there are).
    if (!old.empty() && ::rename(old.c_str(), dest_.c_str()) != 0) {
      const std::string back = std::strerror(errno);  // (read before any allocation can change errno)
      return Error{"cannot move the results into " + dest_ + ": " + why + "; nor the previous results back from " +
                   old + " (" + back + "): they are there"};
    }
    return Error{"cannot move the results into " + dest_ + ": " + why};
  }
  committed_ = true;
  if (!old.empty()) {
    // Only now is the previous folder scratch: before the rename it held the only results there were.
    const ScratchPath previous(old);
    fs::remove_all(old, ec);
  }
  const fs::path parent = d.parent_path().empty() ? fs::path(".") : d.parent_path();
  return io::sync_folder(parent.string());
}

}  // namespace pl::exporting
