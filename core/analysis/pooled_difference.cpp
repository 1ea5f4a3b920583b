#include "core/analysis/pooled_difference.h"

#include <algorithm>

#include "core/util/parallel.h"

namespace pl::experiment {

PoolShape pool_shape(size_t rows, size_t cols, size_t limit) {
  PoolShape s;
  s.block_rows = (rows + limit - 1) / limit;
  s.block_cols = (cols + limit - 1) / limit;
  s.rows = (rows + s.block_rows - 1) / s.block_rows;
  s.cols = (cols + s.block_cols - 1) / s.block_cols;
  return s;
}

PooledDifference pooled_difference(std::span<const double> a, std::span<const double> b, size_t rows, size_t cols,
                                   size_t limit) {
  const PoolShape s = pool_shape(rows, cols, limit);
  PooledDifference h;
  h.rows = s.rows, h.cols = s.cols;
  h.block_rows = s.block_rows, h.block_cols = s.block_cols;
  h.values.assign(h.rows * h.cols, 0.0);
  // Bands of cell rows on every core, each swept row by row: every cell sees its elements in
  // pooled_cell's order (rows, then columns), and the reads stream. (Cell by cell, as the GPU's
  // threads go, would take about twice as long.)
  parallel_for(
      h.rows, 0,
      [&](size_t cr0, size_t cr1) {
        for (size_t r = cr0 * s.block_rows; r < std::min(rows, cr1 * s.block_rows); ++r) {
          double* const cells = &h.values[(r / s.block_rows) * h.cols];
          const double* const ar = a.data() + r * cols;
          const double* const br = b.data() + r * cols;
          for (size_t cell = 0, c = 0; cell < h.cols; ++cell) {
            double v = cells[cell];
            for (const size_t end = std::min(cols, c + s.block_cols); c < end; ++c) pool_into(v, ar[c] - br[c]);
            cells[cell] = v;
          }
        }
      },
      rows_worth_a_thread(cols * s.block_rows));
  return h;
}

}  // namespace pl::experiment
