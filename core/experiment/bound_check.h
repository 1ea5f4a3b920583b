// The arithmetic error of a matrix product against its accumulation model's bounds: for each
// output element, |Cacc - Rq| / ((|A||B|)_ij + |bias_j|) -- the error the accumulation made,
// relative to the sum of the magnitudes it added -- compared with the deterministic and the
// probabilistic bound, and binned for the figures.
#pragma once

#include <cstddef>
#include <span>

#include "core/experiment/accumulate.h"
#include "core/experiment/histogram.h"

namespace pl::experiment {

struct BoundCheck {
  size_t compared = 0;                  // elements with a finite sum and a positive denominator
  size_t within_deterministic = 0, within_probabilistic = 0;
  double max_scaled = 0;                // the largest scaled error
  Histogram scaled;                     // log10 bins, 4 a decade, over the positive ones
};

// accumulated and reference: m x n row-major; abs_product: (|A||B|)_ij in float32, perhaps times
// a power of two that kept it in float32's range, and taken times `slack`, which undoes that
// power and leaves the denominator never above the exact one; bias: n values or none.
// Split between the threads; the counts do not depend on how many ran.
BoundCheck check_bounds(std::span<const double> accumulated, std::span<const double> reference,
                        std::span<const float> abs_product, double slack, std::span<const double> bias, size_t n,
                        const ErrorBounds& bounds);

}  // namespace pl::experiment
