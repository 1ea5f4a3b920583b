#include "core/quantise/scale_map.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pl::experiment {

ScaleMap scale_map(const Quantised& q, const Scaling& s, size_t max_side) {
  ScaleMap m;
  const bool per_row = s.kind == ScalingKind::PerChannel || s.kind == ScalingKind::PerChannelAsymmetric;
  const size_t block = per_row ? q.cols : block_elements(s);
  if (block == 0 || q.rows == 0 || q.cols == 0 || q.row_factor.size() != q.rows) return m;
  const size_t blocks = per_row ? 1 : (q.cols + block - 1) / block;
  if (!per_row && q.block_scales.size() != q.rows * blocks) return m;
  max_side = std::max<size_t>(max_side, 1);
  m.block = block, m.tensor_rows = q.rows, m.blocks_per_row = blocks, m.per_row = per_row;
  m.row_step = (q.rows + max_side - 1) / max_side, m.col_step = (blocks + max_side - 1) / max_side;
  m.rows = (q.rows + m.row_step - 1) / m.row_step, m.cols = (blocks + m.col_step - 1) / m.col_step;
  std::vector<double> sum(m.rows * m.cols, 0);
  std::vector<size_t> count(m.rows * m.cols, 0);
  auto all_zero = [&](size_t r, size_t b) {
    const size_t c0 = b * block, c1 = std::min(q.cols, c0 + block);
    return std::all_of(q.values.begin() + long(r * q.cols + c0), q.values.begin() + long(r * q.cols + c1),
                       [](double v) { return v == 0; });
  };
  for (size_t r = 0; r < q.rows; ++r)
    for (size_t b = 0; b < blocks; ++b) {
      const double factor = (per_row ? 1.0 : q.block_scales[r * blocks + b]) * q.row_factor[r];
      if (!(factor > 0) || !std::isfinite(factor) || all_zero(r, b)) continue;
      const size_t cell = (r / m.row_step) * m.cols + b / m.col_step;
      sum[cell] += std::log2(factor);
      ++count[cell];
    }
  m.log2_factor.resize(sum.size());
  for (size_t i = 0; i < sum.size(); ++i)
    m.log2_factor[i] = count[i] ? sum[i] / double(count[i]) : std::numeric_limits<double>::quiet_NaN();
  return m;
}

}  // namespace pl::experiment
