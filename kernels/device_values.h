// A float64 array in a CUDA device's memory, held for an experiment (core/backend/held_values.h):
// the backend that made it reads it where it is; host() copies it back once, on first use.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/backend/held_values.h"
#include "kernels/device_buffer.h"
#include "kernels/staged_copy.h"

namespace pl::cuda {

class DeviceValues final : public HeldValues {
 public:
  // `buffer` holds `size` doubles; `holder` is the backend's new_holder_id().
  DeviceValues(std::unique_ptr<DeviceBuffer> buffer, size_t size, uint64_t holder)
      : HeldValues(size, holder), buffer_(std::move(buffer)) {}
  Expected<std::span<const double>> host() const override;
  const double* device() const { return buffer_->as<const double>(); }

 private:
  std::unique_ptr<DeviceBuffer> buffer_;
  mutable std::mutex lock_;
  mutable bool read_ = false;
  mutable std::string error_;  // the failed download's, kept: the data is gone or the device is
  mutable std::vector<double> host_;
};

// A device copy of `host` in `b`; `what` names a failed allocation ("out of GPU memory for ...").
template <typename T>
Status upload(DeviceBuffer& b, std::span<const T> host, const char* what) {
  if (auto e = b.allocate(host.size_bytes()); e != cudaSuccess) return Error{cuda_error(what, e)};
  if (auto e = copy_to_device(b.get(), host.data(), host.size_bytes()); e != cudaSuccess)
    return Error{cuda_error("copying to the GPU failed", e)};
  return {};
}

// `size` doubles of fresh device memory, or the error ("out of GPU memory for <what>: ...").
Expected<std::unique_ptr<DeviceBuffer>> device_doubles(size_t size, const char* what);

// The device pointer of an array `holder` keeps; null for any other (a host array, another
// backend's).
const double* held_pointer(const HeldValues& values, uint64_t holder);

}  // namespace pl::cuda
