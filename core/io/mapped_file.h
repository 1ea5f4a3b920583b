// A file mapped read-only into memory: the checkpoint scan reads shards far larger than memory
// this way, tensor by tensor, and hands pages back once a tensor is done (release), so what the
// process holds stays near one tensor's worth whatever the file's size. A file cut short while
// it is mapped cannot be caught here: reading past its new end ends the process (SIGBUS).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "core/util/expected.h"

namespace pl::io {

class MappedFile {
 public:
  // Maps the whole of `path`, read-only, advised as read in order (MADV_SEQUENTIAL: the scan reads
  // each tensor twice, one after another, front to back).
  static Expected<MappedFile> open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  // Lets the kernel drop the pages of [begin, end): they are read again from the file if touched.
  void release(size_t begin, size_t end) const;

 private:
  void reset();  // unmaps
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pl::io
