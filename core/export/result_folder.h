// A result folder that is complete or does not exist. Files are written into a new temporary
// folder beside the destination; commit() flushes it and renames it into place, replacing a
// previous folder only when asked to, and then as a whole (renamed aside, the new one renamed
// in, the old one removed), so no file of an earlier run survives beside the new ones. A folder
// never committed -- an error, an exception, Ctrl-C -- is removed.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/expected.h"
#include "core/util/scratch_paths.h"

namespace pl::exporting {

class ResultFolder {
 public:
  // Why `dest` cannot take results -- an empty name, a symbolic link, something that is not a
  // folder, a folder that is not empty unless `replace` (the commands' --force), a folder that
  // is or holds one of `inputs` (the paths the run reads: replacing the folder would remove
  // them), a folder holding anything no run writes (--force replaces only an earlier run's
  // results) -- as an error. The user's to fix; a command checks it before it starts the work.
  static Status refusal(const std::string& dest, bool replace, const std::vector<std::string>& inputs = {});
  // Prepares `dest` (refusal() first, then the temporary folder beside it).
  static Expected<ResultFolder> begin(const std::string& dest, bool replace);

  ResultFolder(ResultFolder&&) noexcept;
  ResultFolder& operator=(ResultFolder&&) noexcept;
  ~ResultFolder();

  const std::string& path() const { return tmp_; }  // where to write
  const std::string& destination() const { return dest_; }
  // `text` with the temporary folder's path written as the destination's (for messages: the
  // user never named the temporary folder).
  std::string in_destination(std::string text) const;
  // Moves the written folder into place. Refused once an interrupt has been noted (nothing is
  // moved; the temporary folder goes when this object does).
  Status commit();

 private:
  ResultFolder() = default;
  std::string dest_, tmp_;
  bool replace_ = false, committed_ = false;
  std::vector<std::string> made_;  // the parent folders begin() made, deepest first
  ScratchPath scratch_;             // tmp_ and made_, for a second Ctrl-C to remove
};

// `path` is `folder` or lies in it, both as they resolve now (links followed, ".." taken).
bool within(const std::filesystem::path& path, const std::filesystem::path& folder);

// An input of a run: the option that names it, and its path.
struct NamedInput {
  std::string option, path;
};
// Why a single output file (a screenshot, matmul's .npy) cannot be written at `file`, found
// before the work: a folder there ("name `kind`"), a folder to write it in that does not exist or
// is a file, or one of the run's `inputs` there. Nothing where it can be written (an existing
// file there is the caller's to refuse or replace).
Status file_refusal(const std::string& file, std::string_view kind, const std::vector<NamedInput>& inputs);

// The usual use: `fill` writes into the folder it is given; the folder is committed when it
// returns true, abandoned otherwise (its error is returned).
template <typename Fill>
Status write_result_folder(const std::string& dest, bool replace, Fill&& fill) {
  auto begun = ResultFolder::begin(dest, replace);
  if (!begun) return Error{begun.error()};
  ResultFolder folder = std::move(begun).value();
  Status filled = fill(folder.path());
  if (!filled) return Error{folder.in_destination(filled.error())};
  return folder.commit();
}

// A window export: `dir` was just made for it (export_dir.h) and is empty. It ends complete, or
// is removed: after a failure, or by a second Ctrl-C (scratch_paths.h) before the results are
// renamed onto it (the commit takes it back from the scratch paths first).
template <typename Fill>
Status fill_export_dir(const std::string& dir, Fill&& fill) {
  const ScratchPath placeholder(dir);
  auto written = write_result_folder(dir, false, fill);
  if (!written) {
    std::error_code ec;
    std::filesystem::remove(dir, ec);
  }
  return written;
}

}  // namespace pl::exporting
