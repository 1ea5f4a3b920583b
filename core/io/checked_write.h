// Writes that either happen completely or say why not. Every byte is written and the file is
// flushed to the disk and closed with each step checked (a full disk, a closed pipe or a write
// error after the last byte all fail, naming the file and the system's reason), and nothing
// follows a symbolic link for writing.
#pragma once

#include <string>
#include <string_view>

#include "core/util/expected.h"

namespace pl::io {

// Creates `path` (which must not be a symbolic link; an existing file is replaced) with
// `bytes`. A failure leaves no file behind.
Status write_file(const std::string& path, std::string_view bytes);

// Writes `bytes` to a new temporary file beside `path` and renames it onto `path` once it is
// complete: a reader sees the old file or the whole new one, never a part. A link at `path` is
// replaced, not followed; a device or a pipe there is written directly, every write checked.
Status write_file_atomic(const std::string& path, std::string_view bytes);

// `mode` as a file or folder created now gets it: less the process's umask (Linux's
// /proc/self/status, read without umask(2)'s change of it, which would race other threads; 022
// where it cannot be read). For a temporary made 0600 or 0700 and given its final mode, as
// open(2) and mkdir(2) would have given it.
unsigned created_mode(unsigned mode);

// Flushes a folder's entries (new files, renames) to the disk.
Status sync_folder(const std::string& dir);

}  // namespace pl::io
