// The CUDA backend (kernels/), behind core's Backend interface.
//
// Implemented features:
//  [x] device info: name, compute capability, SMs, memory, driver and runtime versions
//  [x] float32 round trip through every format of the table, every rounding
//      mode, bit-identical to the CPU codec (same element function, core/dtype/device/roundtrip_f32.h)
//  [x] float64 round trip in place through every format but e8m0 (roundtrip_f64.h: the codec's
//      own rounding steps), the cast experiment's elements
//  [x] conversion timing with CUDA events against a device-to-device copy in the same run
//  [x] matrix products: cuBLASLt (the library model) and own kernels for the emulated models,
//      bit-exact with the CPU, and their timing on the device (product_engine.h); float32
//      GEMMs of float32 arrays uploaded and read back as they are (the bound check's |A||B|)
//  [x] the error statistics and histograms: both passes over the elements on the GPU
//      (device_error_stats.h), reading the arrays the backend keeps where they are
//  [x] an experiment's arrays kept on the device (core/backend/held_values.h, device_values.h):
//      a library product's sums (widened to float64 there), its epilogue (scales, bias, int32
//      conversion) and output rounding, the float64 references and their bias, the statistics
//      and the heat map; only what is read comes back. An emulated product's sums too: the
//      elements the CPU recomputes are written back into them on the device
//  [ ] quantising on the device: the operands are rounded on the host and uploaded
//  [x] host <-> device copies of 1 MB or more through pinned chunks (staged_copy.h)
// No GPU, no driver, or out of memory: an error value, never a crash.
#pragma once

#include <memory>

#include "core/backend/backend.h"

namespace pl {

Expected<std::unique_ptr<Backend>> make_cuda_backend();

}  // namespace pl
