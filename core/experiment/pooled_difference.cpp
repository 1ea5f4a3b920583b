#include "core/experiment/pooled_difference.h"

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
  h.values.resize(h.rows * h.cols);
  parallel_for(h.values.size(), 0, [&](size_t c0, size_t c1) {
    for (size_t cell = c0; cell < c1; ++cell) h.values[cell] = pooled_cell(a.data(), b.data(), rows, cols, s, cell);
  }, std::max<size_t>(1, (size_t{1} << 14) / (s.block_rows * s.block_cols)));
  return h;
}

}  // namespace pl::experiment
