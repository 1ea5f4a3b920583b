// The dot/sum and cast experiments as experiment files (docs/experiment-json.md), read as
// strictly as the matrix experiments, and their results as JSON.
//
//   {"experiment": "dot", "lengths": [16, 256, 4096], "a": "bfloat16", "b": "bfloat16",
//    "accumulate": ["f32:sequential", "f16:chunked:128"], "trials": 64, "seed": 1}
//   {"experiment": "sum", ...}  (as dot; every b_k is 1)
//   {"experiment": "cast", "rows": 256, "cols": 1024, "dtype": "float8_e4m3fn",
//    "scaling": "mx", "rounding": "rne", "overflow": "default", "data": "outlier-channels",
//    "seed": 1, "input_file": "x.npy"}
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/dot_sweep.h"
#include "core/experiment/roundtrip.h"
#include "core/util/expected.h"

namespace pl::experiment {

Expected<DotSweepConfig> dot_config_from_json(const nlohmann::json& j);
nlohmann::json to_json(const DotSweepConfig& c);
nlohmann::json to_json(const DotSweepRow& r);
// A sweep's result.json: {"setup": the config, "rows": every row}.
nlohmann::json sweep_result_json(const DotSweepConfig& c, const std::vector<DotSweepRow>& rows);

Expected<RoundtripSpec> roundtrip_spec_from_json(const nlohmann::json& j);
nlohmann::json to_json(const RoundtripSpec& s);
nlohmann::json to_json(const RoundtripResult& r);

}  // namespace pl::experiment
