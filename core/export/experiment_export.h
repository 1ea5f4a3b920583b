// Writing an experiment's results to a folder, for the command line and the window alike:
// result.json, a setup.json that `precision-lab run` repeats, histograms.csv, and every figure
// as PNG, SVG, PDF and CSV.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/framework_check.h"
#include "core/experiment/spec/matmul_json.h"
#include "core/figure/figure.h"
#include "core/util/expected.h"

namespace pl::exporting {

// DIR/FILE holding the JSON, the folder made if needed.
Status save_json(const std::string& dir, const std::string& file, const nlohmann::json& j);

// Every figure as DIR/NAME.png, .svg, .pdf and .csv.
Status save_figures(const std::vector<figure::Figure>& figures, const std::string& dir);

// DIR/result.json, DIR/setup.json, DIR/histograms.csv and the experiment's figures.
Status save_results(const experiment::MatmulSpec& spec, const experiment::MatmulResult& r, const std::string& dir);

// A run as a setup describes it: DIR/setup.json (with its framework), DIR/framework.json when
// the setup names one, and the experiment's results -- or, when the call raises, each fix's
// results in DIR/fix-1, DIR/fix-2, ... (their setup.json re-runs the fix alone).
Status save_spec_run(const experiment::SpecRun& run, const std::string& dir);

}  // namespace pl::exporting
