// The heat map's pooling rule (pooled_difference.h) in device-safe C++17: the CPU's sweep and the
// GPU's kernel (kernels/held_kernels.cu) take each element into its cell with the same function.
#pragma once

#include <cstddef>

#include "core/util/host_device.h"

namespace pl::experiment {

// The pooled shape alone: cell (r / block_rows, c / block_cols) holds element (r, c).
struct PoolShape {
  size_t block_rows = 1, block_cols = 1, rows = 0, cols = 0;
};

// One element x of a cell's block taken into the cell's value v: the larger magnitude, the first
// of equal ones; a NaN is taken and kept, so that a block holding a NaN output shows it (grey, as
// the figure's subtitle says), however many finite elements follow it.
PL_HD inline void pool_into(double& v, double x) {
  if (v != v) return;
  const double mv = v < 0 ? -v : v, mx = x < 0 ? -x : x;
  if (x != x || !(mv >= mx)) v = x;
}

// One cell: its block of a - b (rows x cols arrays), visited row by row -- the GPU's kernel
// (kernels/held_kernels.cu), one thread a cell. The CPU sweeps whole rows in the same order.
PL_HD inline double pooled_cell(const double* a, const double* b, size_t rows, size_t cols, const PoolShape& s,
                                size_t cell) {
  const size_t r0 = (cell / s.cols) * s.block_rows, c0 = (cell % s.cols) * s.block_cols;
  const size_t r1 = r0 + s.block_rows < rows ? r0 + s.block_rows : rows;
  const size_t c1 = c0 + s.block_cols < cols ? c0 + s.block_cols : cols;
  double v = 0;
  for (size_t r = r0; r < r1; ++r)
    for (size_t c = c0; c < c1; ++c) pool_into(v, a[r * cols + c] - b[r * cols + c]);
  return v;
}

}  // namespace pl::experiment
