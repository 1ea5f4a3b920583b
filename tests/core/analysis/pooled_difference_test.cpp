// The heat map's pooling (core/analysis/pooled_difference.h): each cell keeps the element of
// largest |a - b| of its block, visited row by row -- the first of equal magnitudes, and a NaN
// once one is met -- on the CPU's sweep and in the GPU's cell function alike.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/analysis/pooled_difference.h"

namespace pl::experiment {
namespace {

// The plainest pooling, cell by cell: the reference the parallel sweep must match.
std::vector<double> plain_pooling(const std::vector<double>& a, const std::vector<double>& b, size_t rows, size_t cols,
                                  size_t limit) {
  const size_t br = (rows + limit - 1) / limit, bc = (cols + limit - 1) / limit;
  const size_t hr = (rows + br - 1) / br, hc = (cols + bc - 1) / bc;
  std::vector<double> h(hr * hc, 0.0);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      double& cell = h[(r / br) * hc + c / bc];
      const double x = a[r * cols + c] - b[r * cols + c];
      if (std::isnan(cell)) continue;
      if (std::isnan(x) || std::fabs(x) > std::fabs(cell)) cell = x;
    }
  return h;
}

TEST(PooledDifference, IsThePlainLoopForEveryShapeTiesAndNaNs) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> small(-3, 3);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto [rows, cols, limit] :
       {std::array<size_t, 3>{7, 5, 512}, {37, 41, 8}, {64, 3, 5}, {1, 100, 7}, {100, 100, 9}}) {
    std::vector<double> a(rows * cols), b(rows * cols);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = small(rng), b[i] = small(rng);  // many ties of magnitude, of both signs
      if (i % 13 == 5) a[i] = nan;
      if (i % 29 == 7) b[i] = -0.0;
    }
    const PooledDifference got = pooled_difference(a, b, rows, cols, limit);
    const std::vector<double> want = plain_pooling(a, b, rows, cols, limit);
    ASSERT_EQ(got.values.size(), want.size());
    EXPECT_EQ(got.rows * got.cols, want.size());
    const PoolShape shape = pool_shape(rows, cols, limit);
    for (size_t i = 0; i < want.size(); ++i) {
      // The CPU's sweep, and the GPU kernel's function cell by cell.
      const double cell = pooled_cell(a.data(), b.data(), rows, cols, shape, i);
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got.values[i]) && std::isnan(cell)) << rows << "x" << cols << " cell " << i;
      } else {
        EXPECT_EQ(got.values[i], want[i]) << rows << "x" << cols << " cell " << i;
        EXPECT_EQ(cell, want[i]) << rows << "x" << cols << " cell " << i;
      }
    }
  }
}

// Bug: a NaN output was kept only until the next element of its block, so a pooled heat map
// (m or n past 512) showed a block of 1024 NaN outputs as finite cells, under a subtitle that
// said the NaN outputs were grey.
TEST(PooledDifference, ABlockWithANaNShowsTheNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const size_t rows = 4, cols = 4;
  std::vector<double> a(rows * cols, 1.0), b(rows * cols, 0.0);
  a[0] = nan;  // the first element of the first 2x2 block; the rest of the block follows it
  const PooledDifference got = pooled_difference(a, b, rows, cols, 2);
  ASSERT_EQ(got.values.size(), 4u);
  EXPECT_TRUE(std::isnan(got.values[0]));
  EXPECT_TRUE(std::isnan(pooled_cell(a.data(), b.data(), rows, cols, pool_shape(rows, cols, 2), 0)));
  EXPECT_EQ(got.values[1], 1.0);
}

}  // namespace
}  // namespace pl::experiment
