// A checkpoint scan's results in a folder, for `scan --out` and the Checkpoint panel's export
// alike: result.json (what `scan --json` prints, and `scan --merge` reads back), tensors.csv,
// frontier.csv, plan.csv when there is a plan, and the heat map and frontier figures as PNG,
// SVG, PDF and CSV.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/experiment/scan/scan_json.h"
#include "core/util/expected.h"

namespace pl::exporting {

Status save_scan(const experiment::ScanResult& r, const std::vector<experiment::PlanPoint>& frontier,
                 const std::optional<experiment::PlanReport>& plan, const std::string& dir);

}  // namespace pl::exporting
