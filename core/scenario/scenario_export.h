// A scenario's run written as a slide-ready folder: story.md (title, story, what to look at and
// the checks with expected, observed and what backs each), checks.json, checks.csv, and each
// evidence experiment in evidence-N/ (setup.json that `precision-lab run` repeats, result.json,
// every figure as PNG, SVG, PDF and CSV).
#pragma once

#include <string>

#include "core/scenario/scenario_run.h"
#include "core/util/expected.h"

namespace pl::exporting {

Expected<bool> save_scenario_run(const scenario::ScenarioRun& run, const std::string& dir);

// story.md's text.
std::string scenario_markdown(const scenario::ScenarioRun& run);

}  // namespace pl::exporting
