// The figures of a checkpoint scan (core/experiment/scan), described once for the screen and
// for export alike.
#pragma once

#include <optional>
#include <vector>

#include "core/experiment/scan/scan_json.h"
#include "core/figure/figure.h"

namespace pl::figure {

// sqnr-heatmap: layers (and the tensors outside the layers: embeddings, the head) by
// candidates, each cell the SQNR of the layer's tensors together, 10 log10(sum ||x||^2 / sum
// ||q(x) - x||^2) -- or of their outputs, sum ||X W^T||^2 over the sum of the output errors,
// when the scan had the layers' inputs -- on a viridis scale.
Figure scan_heatmap_figure(const experiment::ScanResult& r);

// plan-frontier: the whole scan's SQNR against average bits per parameter along the plan
// frontier, each candidate used for every tensor, and the plan within the budget when there is one
// (with activations, also the plan the weights' own errors would have chosen, on the outputs).
Figure frontier_figure(const experiment::ScanResult& r, const std::vector<experiment::PlanPoint>& frontier,
                       const std::optional<experiment::PlanReport>& plan);

std::vector<Figure> scan_figures(const experiment::ScanResult& r, const std::vector<experiment::PlanPoint>& frontier,
                                 const std::optional<experiment::PlanReport>& plan);

}  // namespace pl::figure
