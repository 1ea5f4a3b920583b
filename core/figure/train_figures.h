// The training experiment's figures: the loss per step of each model against the best loss the
// data allows, and the share of weight updates lost to rounding per step.
#pragma once

#include <vector>

#include "core/experiment/train.h"
#include "core/figure/figure.h"

namespace pl::figure {

std::vector<Figure> train_figures(const experiment::TrainResult& r);

}  // namespace pl::figure
