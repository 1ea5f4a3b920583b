#include "core/io/checked_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/util/scratch_paths.h"

namespace pl::io {
namespace {

std::string reason(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

// Every byte of `bytes` to fd, then fsync and close, each checked.
Status fill(int fd, std::string_view bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = reason("write", path);
      ::close(fd);
      return Error{why};
    }
    done += static_cast<size_t>(n);
  }
  // A file system may report a write error only when the data reaches the disk.
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {  // EINVAL: a pipe or special file
    const std::string why = reason("write", path);
    ::close(fd);
    return Error{why};
  }
  if (::close(fd) != 0) return Error{reason("write", path)};
  return {};
}

std::string parent_of(const std::string& path) {
  const std::string p = std::filesystem::path(path).parent_path().string();
  return p.empty() ? "." : p;
}

}  // namespace

unsigned created_mode(unsigned mode) {
  unsigned mask = 022;
  if (FILE* f = std::fopen("/proc/self/status", "re")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "Umask:", 6) == 0) {
        mask = static_cast<unsigned>(std::strtoul(line + 6, nullptr, 8));
        break;
      }
    std::fclose(f);
  }
  return mode & ~mask & 0777u;
}

Status write_file(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return Error{errno == ELOOP ? "cannot write " + path + ": it is a symbolic link" : reason("write", path)};
  auto written = fill(fd, bytes, path);
  if (!written) ::unlink(path.c_str());
  return written;
}

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  // A device or a pipe (/dev/full, a FIFO) is written as it is: renaming a file over it would
  // replace the device itself.
  // So is a device or a pipe a link leads to (/dev/stdout is a link to /proc/self/fd/1): the
  // rename would replace the link, and as root /dev/stdout itself.
  struct stat st {};
  const bool there = ::lstat(path.c_str(), &st) == 0;
  if (struct stat target{}; there && S_ISLNK(st.st_mode) && ::stat(path.c_str(), &target) == 0 &&
                            !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode))
    st = target;
  if (there && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return Error{"cannot write " + path + ": it is a folder"};
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Error{reason("write", path)};
    return fill(fd, bytes, path);
  }
  // (The name cut to 200 bytes: the file's may take all of NAME_MAX's 255, and the temporary's
  // must still be a name the file system takes.)
  std::string tmp =
      parent_of(path) + "/." + std::filesystem::path(path).filename().string().substr(0, 200) + ".tmp-XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return Error{reason("write a temporary file beside", path)};
  const ScratchPath scratch(tmp);
  ::fchmod(fd, created_mode(0666));  // (mkostemp makes it 0600)
  if (auto written = fill(fd, bytes, path); !written) {
    ::unlink(tmp.c_str());
    return written;
  }
  // (A placeholder noted as scratch at `path` is taken back first: a second Ctrl-C after the
  // rename must not remove the file it has become.)
  if (!claim_scratch_path(path)) {
    ::unlink(tmp.c_str());
    return Error{"interrupted: nothing was written to " + path};
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = reason("write", path);
    ::unlink(tmp.c_str());
    return Error{why};
  }
  return sync_folder(parent_of(path));
}

Status sync_folder(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error{reason("open the folder", dir)};
  const bool ok = ::fsync(fd) == 0 || errno == EINVAL;
  const std::string why = ok ? "" : reason("flush the folder", dir);
  ::close(fd);
  if (!ok) return Error{why};
  return {};
}

}  // namespace pl::io
