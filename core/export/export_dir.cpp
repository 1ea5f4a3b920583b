#include "core/export/export_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

namespace pl::exporting {
namespace {

constexpr int kMaxSameSecond = 1000;

std::string stem(const std::string& root, const std::string& what, int n) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  // Appended, not "-" + what inside a ?: -- GCC 12's false -Wrestrict on that (bug 105329).
  std::string s = root + "/" + stamp;
  if (!what.empty()) s.append("-").append(what);
  if (n > 1) s.append("-").append(std::to_string(n));
  return s;
}

}  // namespace

Expected<std::string> new_export_dir(const std::string& what, const std::string& root) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) return Error{"cannot create " + root + ": " + ec.message()};
  for (int n = 1; n <= kMaxSameSecond; ++n) {
    const std::string dir = stem(root, what, n);
    // create_directory says false when the folder was there: someone else's, try the next.
    if (std::filesystem::create_directory(dir, ec)) return dir;
    if (ec) return Error{"cannot create " + dir + ": " + ec.message()};
  }
  return Error{"too many exports in one second under " + root};
}

Expected<std::string> new_export_file(const std::string& what, const std::string& ext, const std::string& root) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) return Error{"cannot create " + root + ": " + ec.message()};
  // The name is taken by creating the file (O_EXCL), empty: a name only seen free could be handed
  // to two exports in the same second, and the second's rename would replace the first's file.
  for (int n = 1; n <= kMaxSameSecond; ++n) {
    const std::string path = stem(root, what, n) + "." + ext;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return path;
    }
    if (errno != EEXIST) return Error{"cannot create " + path + ": " + std::strerror(errno)};
  }
  return Error{"too many exports in one second under " + root};
}

}  // namespace pl::exporting
