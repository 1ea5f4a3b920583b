// Kernels over arrays an experiment keeps on the GPU (core/backend/held_values.h): a library
// GEMM's output widened to float64 where it lies, the bias added to a reference's rows, and the
// heat map's pooling (core/analysis/pooled_difference.h, the same order within a cell). Each is
// exact: widening and the one float64 addition round as the host's code does.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/accumulate/device/epilogue_element.h"
#include "core/analysis/device/pool_cell.h"

namespace pl::cuda {

// How a GEMM's output elements are stored, for widening (operand_pack.h's Element, as plain ints
// so that this header needs no host code).
enum class WideFrom : uint8_t { F64, F32, F16, BF16, I32 };

// dst (m x n, row-major float64) from src (m rows of `ld` elements).
cudaError_t launch_widen_to_f64(const void* src, WideFrom from, size_t m, size_t n, size_t ld, double* dst,
                                int sm_count, cudaStream_t stream);
// dst[index[t]] = values[t] for t < count.
cudaError_t launch_scatter(const size_t* index, const double* values, size_t count, double* dst, int sm_count,
                           cudaStream_t stream);
// y[i] = x[i] + row[i % n] for i < count (count a multiple of n).
cudaError_t launch_add_to_rows(const double* x, const double* row, size_t count, size_t n, double* y, int sm_count,
                               cudaStream_t stream);
// The GEMM epilogue of every element of an m x n array in place (epilogue_element.h, the CPU's
// apply_epilogue bit for bit): fa (m) and fb (n) the row factors when `scaled`, bias (n) or null.
cudaError_t launch_epilogue(double* values, size_t m, size_t n, const double* fa, const double* fb, bool scaled,
                            const double* bias, const experiment::EpilogueParams& p, int sm_count, cudaStream_t stream);
// out (shape.rows x shape.cols): each cell experiment::pooled_cell of a and b (rows x cols).
cudaError_t launch_pooled_difference(const double* a, const double* b, size_t rows, size_t cols,
                                     const experiment::PoolShape& shape, double* out, cudaStream_t stream);

}  // namespace pl::cuda
