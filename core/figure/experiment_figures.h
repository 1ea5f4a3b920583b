// The figures an experiment's results make, described once (figure.h) for the screen and
// for export alike.
#pragma once

#include <vector>

#include "core/experiment/dot_sweep.h"
#include "core/experiment/framework_check.h"
#include "core/experiment/matmul.h"
#include "core/experiment/mlp.h"
#include "core/experiment/roundtrip.h"
#include "core/experiment/spec/experiment_file.h"
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
Figure dot_sweep_figure(const std::vector<experiment::DotSweepRow>& rows, const experiment::DotSweepConfig& c);

// error-vs-layer: the network's normwise relative error after each layer (against the
// float64 network) and each layer's own error (against its exact product), log y.
Figure mlp_figure(const experiment::MlpResult& r);
// The float64 network's activation RMS by layer: whether the layers shrink or grow what they pass on.
Figure mlp_rms_figure(const experiment::MlpResult& r);
// Both, as the window and `mlp --save` show them.
std::vector<Figure> mlp_figures(const experiment::MlpResult& r);

// roundtrip-error: |e| / |x| of an array's round trip through a dtype and recipe, with the
// format's unit roundoff; roundtrip-range: where the data's magnitudes lie against the format's
// smallest subnormal, smallest normal and largest value.
std::vector<Figure> roundtrip_figures(const experiment::RoundtripResult& r);

// framework-fixes: when a framework call raises, the mean bits of agreement with the float64
// reference of each fix's result, one bar per fix (higher is better), its dtype in the label.
Figure framework_fixes_figure(const experiment::FrameworkRun& f);

// Every figure of an experiment file's run: a matrix experiment's (or, when its framework call
// raises, the fixes figure and each fix's error attribution as fix-N-error-attribution), an
// MLP's, a dot/sum sweep's or a cast's.
std::vector<Figure> experiment_figures(const experiment::ExperimentRun& run);

}  // namespace pl::figure
