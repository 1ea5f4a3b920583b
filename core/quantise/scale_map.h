// The scales a recipe chose, as a map over the tensor: each block's dequantisation factor -- what
// its stored values are multiplied by: an MX block's power of two, an NVFP4 block's E4M3 scale
// times the tensor's, a group's float16 scale, a row's per-channel scale -- as log2, one row of
// blocks per tensor row. Outlier channels show as stripes: a column of blocks (MX, groups) or a
// row (per-channel) whose scale stands above the rest. A large tensor's map is averaged down to
// at most `max_side` cells each way (the mean log2 factor of the blocks a cell covers). A block
// whose copy is all zero is left out (its scale says nothing: MX gives an all-zero block 2^-127,
// a group 0), and a cell holding only such blocks is NaN.
#pragma once

#include <cstddef>
#include <vector>

#include "core/quantise/scaling.h"

namespace pl::experiment {

struct ScaleMap {
  size_t rows = 0, cols = 0;          // the map's cells; 0: the recipe has no per-row or per-block scales
  size_t row_step = 1, col_step = 1;  // tensor rows and blocks a cell covers (the last ones may cover fewer)
  size_t tensor_rows = 0, blocks_per_row = 0;
  size_t block = 0;                 // elements a block holds along a row (the row's length for per-channel)
  bool per_row = false;             // a scale per row (per-channel), not per block
  std::vector<double> log2_factor;  // rows x cols

  bool empty() const { return rows == 0; }
};

ScaleMap scale_map(const Quantised& q, const Scaling& s, size_t max_side = 256);

}  // namespace pl::experiment
