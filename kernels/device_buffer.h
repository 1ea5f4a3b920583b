// Device memory that frees itself; a failed allocation is an error code the caller turns into
// a message (out of memory), never an exception or a crash.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace pl::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  cudaError_t allocate(size_t bytes) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = bytes;
    const cudaError_t e = cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes);
    // A failed allocation also becomes the runtime's "last error", which the next kernel
    // launch's check (cudaGetLastError) would then report as its own failure: clear it here,
    // the caller has the code.
    if (e != cudaSuccess) {
      ptr_ = nullptr;
      cudaGetLastError();
    }
    return e;
  }
  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

inline std::string cuda_error(const char* what, cudaError_t e) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}

}  // namespace pl::cuda
