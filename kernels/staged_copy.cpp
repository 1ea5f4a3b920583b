#include "kernels/staged_copy.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/util/parallel.h"

namespace pl::cuda {
namespace {

constexpr size_t kChunk = size_t{16} << 20;  // bytes a pinned chunk holds
constexpr size_t kStaged = size_t{1} << 20;  // smaller copies go straight (no chunking to gain)

// The two chunks, their events and the copy stream, made at the first large copy and kept for
// the process (one device: the backend serialises its callers; the lock guards the chunks).
struct Staging {
  std::mutex lock;
  bool tried = false, ok = false;
  void* chunk[2] = {};
  cudaEvent_t done[2] = {};
  cudaStream_t stream = nullptr;

  bool ready() {
    if (tried) return ok;
    tried = true;
    if (const char* v = std::getenv("PL_CUDA_PAGEABLE"); v && *v && std::strcmp(v, "0") != 0) return ok = false;
    for (int i = 0; i < 2; ++i)
      if (cudaMallocHost(&chunk[i], kChunk) != cudaSuccess ||
          cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();  // the plain path's next call must not see this as its own error
        return ok = false;
      }
    if (cudaStreamCreate(&stream) != cudaSuccess) {
      cudaGetLastError();
      return ok = false;
    }
    return ok = true;
  }
};

Staging& staging() {
  static Staging* s = new Staging;  // never destroyed: the driver may be gone at exit
  return *s;
}

// dst[0, n) = src[0, n), split between the cores (a chunk is 16 MB).
void copy_on_cores(void* dst, const void* src, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  parallel_for(
      n, 0, [&](size_t b, size_t e) { std::memcpy(d + b, s + b, e - b); }, size_t{1} << 20);
}

}  // namespace

cudaError_t copy_to_device(void* dst, const void* src, size_t bytes) {
  Staging& st = staging();
  std::lock_guard hold(st.lock);
  if (bytes < kStaged || !st.ready()) return cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  for (size_t off = 0, i = 0; off < bytes; off += kChunk, ++i) {
    const size_t slot = i % 2, len = bytes - off < kChunk ? bytes - off : kChunk;
    // The chunk's previous copy (two chunks ago) must have left it before it is refilled.
    if (i >= 2)
      if (cudaError_t e = cudaEventSynchronize(st.done[slot]); e != cudaSuccess) return e;
    copy_on_cores(st.chunk[slot], from + off, len);
    if (cudaError_t e = cudaMemcpyAsync(to + off, st.chunk[slot], len, cudaMemcpyHostToDevice, st.stream);
        e != cudaSuccess)
      return e;
    if (cudaError_t e = cudaEventRecord(st.done[slot], st.stream); e != cudaSuccess) return e;
  }
  return cudaStreamSynchronize(st.stream);
}

cudaError_t copy_to_host(void* dst, const void* src, size_t bytes) {
  Staging& st = staging();
  std::lock_guard hold(st.lock);
  if (bytes < kStaged || !st.ready()) return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  const size_t chunks = (bytes + kChunk - 1) / kChunk;
  auto start = [&](size_t i) -> cudaError_t {  // chunk i's copy into its slot, in flight
    const size_t off = i * kChunk, len = bytes - off < kChunk ? bytes - off : kChunk;
    if (cudaError_t e = cudaMemcpyAsync(st.chunk[i % 2], from + off, len, cudaMemcpyDeviceToHost, st.stream);
        e != cudaSuccess)
      return e;
    return cudaEventRecord(st.done[i % 2], st.stream);
  };
  if (cudaError_t e = start(0); e != cudaSuccess) return e;
  for (size_t i = 0; i < chunks; ++i) {
    // The next chunk flies into the other slot (emptied by the previous round) while this one
    // is copied out.
    if (i + 1 < chunks)
      if (cudaError_t e = start(i + 1); e != cudaSuccess) return e;
    if (cudaError_t e = cudaEventSynchronize(st.done[i % 2]); e != cudaSuccess) return e;
    const size_t off = i * kChunk, len = bytes - off < kChunk ? bytes - off : kChunk;
    copy_on_cores(to + off, st.chunk[i % 2], len);
  }
  return cudaSuccess;
}

}  // namespace pl::cuda
