// The total error over the output matrix, pooled for the heat map: a - b element by element, each
// cell of at most limit x limit cells holding the largest |a - b| of its block of elements (a 4096^2
// output: 8 x 8 blocks). Made where the arrays are, so a window never needs the full arrays back.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/analysis/device/pool_cell.h"

namespace pl::experiment {

struct PooledDifference {
  size_t rows = 0, cols = 0;  // cells
  // The elements a cell covers (the last cell of a row or column may cover fewer): cell (i, j)
  // holds rows i * block_rows ... and columns j * block_cols ... of the output matrix.
  size_t block_rows = 1, block_cols = 1;
  std::vector<double> values;  // row-major
};

// Blocks of ceil(rows / limit) x ceil(cols / limit) elements. Within a block the elements are
// visited row by row, and one replaces the cell's value unless |cell| >= |x|: the first of equal
// magnitudes stays, and a NaN is kept only until the next element -- an order a device's kernel
// keeps too (one thread a cell). a and b: rows x cols, row-major.
PooledDifference pooled_difference(std::span<const double> a, std::span<const double> b, size_t rows, size_t cols,
                                   size_t limit);

PoolShape pool_shape(size_t rows, size_t cols, size_t limit);

}  // namespace pl::experiment
