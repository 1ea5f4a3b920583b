// Printing and saving a matrix experiment's results, shared by `matmul` and `run`.
#pragma once

#include <string>
#include <vector>

#include "core/experiment/matmul.h"
#include "core/experiment/matmul_json.h"
#include "core/figure/figure.h"
#include "core/util/expected.h"

namespace pl::cli {

// Runs the experiment with a progress line on a terminal (stderr), loading files first.
Expected<experiment::MatmulResult> run_with_progress(experiment::MatmulSpec& spec, bool quiet);

void print_report(const experiment::MatmulResult& r);

// DIR/FILE holding the JSON, the folder made if needed.
Expected<bool> save_json(const std::string& dir, const std::string& file, const nlohmann::json& j);

// Every figure as DIR/NAME.png, .svg, .pdf and .csv.
Expected<bool> save_figures(const std::vector<figure::Figure>& figures, const std::string& dir);

// DIR/result.json, DIR/setup.json (re-runnable with `run`), DIR/histograms.csv and the
// experiment's figures (core/figure/experiment_figures.h).
Expected<bool> save_results(const experiment::MatmulSpec& spec, const experiment::MatmulResult& r,
                            const std::string& dir);

}  // namespace pl::cli
