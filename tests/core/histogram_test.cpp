// Histogram binning on hand-counted data.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core/experiment/histogram.h"

namespace pl::experiment {
namespace {

TEST(Histogram, LinearBinsAreLeftClosedAndTheLastTakesItsEdge) {
  const std::vector<double> v = {-1, 0, 0.5, 1, 1.5, 2, 2, 3, std::nan("")};
  const Histogram h = linear_histogram(v, 0, 2, 4);  // [0,.5) [.5,1) [1,1.5) [1.5,2]
  ASSERT_EQ(h.counts.size(), 4u);
  EXPECT_EQ(h.counts, (std::vector<uint64_t>{1, 1, 1, 3}));
  EXPECT_EQ(h.below, 1u);
  EXPECT_EQ(h.above, 1u);
  EXPECT_EQ(h.nonfinite, 1u);
  EXPECT_EQ(h.total(), v.size());
  EXPECT_EQ(h.edges.front(), 0.0);
  EXPECT_EQ(h.edges.back(), 2.0);
}

TEST(Histogram, LogBinsSpanDecadesAndSetZerosApart) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {0, -3, 1e-5, 2e-4, 1e-3, 5e-2, 1, inf};
  const Histogram h = log_histogram(v, 1e-4, 1, 4);  // one bin per decade
  ASSERT_EQ(h.edges.size(), 5u);
  EXPECT_DOUBLE_EQ(h.edges[1], 1e-3);
  EXPECT_EQ(h.counts, (std::vector<uint64_t>{1, 1, 1, 1}));  // 2e-4 | 1e-3 | 5e-2 | 1
  EXPECT_EQ(h.zeros, 2u);
  EXPECT_EQ(h.below, 1u);
  EXPECT_EQ(h.nonfinite, 1u);
  EXPECT_EQ(h.total(), v.size());
}

TEST(Histogram, AutoRangeCoversTheDataInWholeDecades) {
  const std::vector<double> v = {3e-9, 2e-7, 4e-4};
  const Histogram h = log_histogram_auto(v, 2);
  EXPECT_DOUBLE_EQ(h.edges.front(), 1e-9);
  EXPECT_DOUBLE_EQ(h.edges.back(), 1e-3);
  EXPECT_EQ(h.counts.size(), 12u);
  EXPECT_EQ(h.below + h.above, 0u);
  uint64_t in = 0;
  for (auto c : h.counts) in += c;
  EXPECT_EQ(in, 3u);
}

}  // namespace
}  // namespace pl::experiment
