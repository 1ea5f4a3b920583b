// The figures an experiment's results make, described once (figure.h) for the screen and
// for export alike.
#pragma once

#include <vector>

#include "core/experiment/dot_sweep.h"
#include "core/experiment/matmul.h"
#include "core/experiment/mlp.h"
#include "core/figure/figure.h"

namespace pl::figure {

// error-attribution: log10 histograms of |e| / |ref| for total, input rounding, arithmetic and
//   output rounding, with the unit roundoff of the input, accumulator and output dtypes;
// arithmetic-vs-bound: |Cacc - Rq| / (|A||B|) with the model's gamma_k and sqrt(k) u;
// signed-error: the total error e = C - R, linear bins;
// ulp-error: |e| in ulps of the output dtype, total and output rounding;
// error-heatmap: C - R over the output matrix (blocks of large matrices keep their largest).
std::vector<Figure> matmul_figures(const experiment::MatmulResult& r);

// error-vs-k: the largest |e| / sum |a_k b_k| per model against K, with each model's
// deterministic bound, on log-log axes.
Figure dot_sweep_figure(const std::vector<experiment::DotSweepRow>& rows,
                        const experiment::DotSweepConfig& c);

// error-vs-layer: the network's normwise relative error after each layer (against the
// float64 network) and each layer's own error (against its exact product), log y.
Figure mlp_figure(const experiment::MlpResult& r);

}  // namespace pl::figure
