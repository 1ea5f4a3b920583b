#include "app/backends.h"

#include "core/backend/backend.h"
#ifdef PL_WITH_CUDA
#include "kernels/cuda_backend.h"
#endif

namespace pl {

void register_compiled_backends() {
#ifdef PL_WITH_CUDA
  register_backend(BackendChoice::Cuda, [] { return make_cuda_backend(); });
#endif
}

}  // namespace pl
