#include "core/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/io/file_read.h"
#include "core/util/printable.h"

namespace pl::io {

Expected<MappedFile> MappedFile::open(const std::string& path) {
  if (auto st = not_a_file(path); !st) return Error{st.error()};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot open " + printable_whole(path) + ": " + std::strerror(errno)};
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int e = errno;
    ::close(fd);
    return Error{"cannot read " + path + ": " + std::strerror(e)};
  }
  MappedFile f;
  f.size_ = static_cast<size_t>(info.st_size);
  if (f.size_ > 0) {  // (mmap refuses a length of 0; an empty file maps to an empty span)
    void* p = ::mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      return Error{"cannot map " + path + ": " + std::strerror(e)};
    }
    ::madvise(p, f.size_, MADV_SEQUENTIAL);  // advice only: nothing to do if it is not taken
    f.data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);  // the mapping holds the file
  return f;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() { reset(); }

void MappedFile::reset() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

void MappedFile::release(size_t begin, size_t end) const {
  if (!data_ || end > size_ || begin >= end) return;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t from = (begin + page - 1) / page * page;  // whole pages inside the range only
  const size_t to = end / page * page;
  if (from < to) ::madvise(const_cast<uint8_t*>(data_) + from, to - from, MADV_DONTNEED);
}

}  // namespace pl::io
