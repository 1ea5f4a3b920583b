// Where the window's exports go: precision-lab-export/<date-time>[-what] under the working
// directory, one new folder per export so nothing is overwritten.
#pragma once

#include <ctime>
#include <string>

namespace pl::ui {

inline std::string new_export_dir(const std::string& what = "") {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  return std::string("precision-lab-export/") + stamp + (what.empty() ? "" : "-" + what);
}

}  // namespace pl::ui
