// Pass 1's totals for one comparison (error_stats.cpp): apart from error_sums.h's vector lanes so
// that code made for any CPU (kernels/, a device's host side) can hold them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace pl::experiment::error_sums {

// Every statistic's sum, count and range over a span of elements (one comparison's).
struct Sums {
  size_t count = 0, nan = 0, inf = 0, saturated = 0, flushed = 0;
  double sum_abs = 0, sum_sq = 0, sum_ref_sq = 0, sum_rel = 0, sum_ulp = 0, sum_bits = 0;
  double max_abs = 0, max_rel = 0, max_ulp = 0;
  // Ranges of the log bins: smallest positive and largest finite (an error in ulps of a
  // float64 output can overflow to inf: binned apart as not finite).
  double min_pos_rel = INFINITY, min_pos_ulp = INFINITY, top_rel = 0, top_ulp = 0;

  void merge(const Sums& o) {
    count += o.count, nan += o.nan, inf += o.inf, saturated += o.saturated, flushed += o.flushed;
    sum_abs += o.sum_abs, sum_sq += o.sum_sq, sum_ref_sq += o.sum_ref_sq;
    sum_rel += o.sum_rel, sum_ulp += o.sum_ulp, sum_bits += o.sum_bits;
    max_abs = std::max(max_abs, o.max_abs), max_rel = std::max(max_rel, o.max_rel);
    max_ulp = std::max(max_ulp, o.max_ulp);
    min_pos_rel = std::min(min_pos_rel, o.min_pos_rel), min_pos_ulp = std::min(min_pos_ulp, o.min_pos_ulp);
    top_rel = std::max(top_rel, o.top_rel), top_ulp = std::max(top_ulp, o.top_ulp);
  }
};

}  // namespace pl::experiment::error_sums
