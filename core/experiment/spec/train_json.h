// The training experiment's file (docs/experiment-json.md, "train") and result.json.
#pragma once

#include <nlohmann/json.hpp>

#include "core/experiment/train.h"
#include "core/util/expected.h"

namespace pl::experiment {

// {"experiment": "train", "models": ["float32", "bfloat16", "bfloat16:float32"], "features": 16,
//  "samples": 256, "steps": 400, "learning_rate": 0.05, "noise": 0.01, "seed": 0}: every key
// checked, an unknown one named.
Expected<TrainConfig> train_config_from_json(const nlohmann::json& j);
nlohmann::json to_json(const TrainConfig& c);
// The setup, the best loss the data allows, and per model: the loss before each step and after
// the last, the lost updates per step, the step where every update was lost, the final loss.
nlohmann::json to_json(const TrainResult& r);

}  // namespace pl::experiment
