#include "kernels/device_values.h"

#include "kernels/staged_copy.h"

namespace pl::cuda {

Expected<std::span<const double>> DeviceValues::host() const {
  const std::lock_guard hold(lock_);
  if (!read_) {
    read_ = true;
    host_.resize(size());
    if (cudaError_t e = copy_to_host(host_.data(), buffer_->get(), size() * sizeof(double)); e != cudaSuccess) {
      error_ = cuda_error("reading an array back from the GPU failed", e);
      host_.clear();
    }
  }
  if (!error_.empty()) return Error{error_};
  return std::span<const double>(host_);
}

Expected<std::unique_ptr<DeviceBuffer>> device_doubles(size_t size, const char* what) {
  auto b = std::make_unique<DeviceBuffer>();
  if (cudaError_t e = b->allocate(size * sizeof(double)); e != cudaSuccess)
    return Error{cuda_error((std::string("out of GPU memory for ") + what).c_str(), e)};
  return b;
}

const double* held_pointer(const HeldValues& values, uint64_t holder) {
  if (holder == 0 || values.holder() != holder) return nullptr;
  return static_cast<const DeviceValues&>(values).device();
}

}  // namespace pl::cuda
