#include "core/export/scan_export.h"

#include "core/export/experiment_export.h"
#include "core/figure/scan_figures.h"
#include "core/io/checked_write.h"

namespace pl::exporting {

using namespace experiment;

Status save_scan(const ScanResult& r, const std::vector<PlanPoint>& frontier, const std::optional<PlanReport>& plan,
                 const std::string& dir) {
  auto saved = save_json(dir, "result.json", scan_to_json(r, frontier, plan));
  if (saved) saved = io::write_file(dir + "/tensors.csv", scan_csv(r));
  if (saved) saved = io::write_file(dir + "/frontier.csv", frontier_csv(r, frontier));
  if (saved && plan) saved = io::write_file(dir + "/plan.csv", plan_csv(r, *plan));
  if (saved) saved = save_figures(figure::scan_figures(r, frontier, plan), dir);
  return saved;
}

}  // namespace pl::exporting
