// Where Precision Lab finds its files: the user's config folder (XDG) and the shipped assets
// (assets/ of the source tree the binary was built from, or beside the binary when installed).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pl {

// $XDG_CONFIG_HOME/precision-lab, else ~/.config/precision-lab; "" when neither is set.
std::string config_dir();

// The shipped assets folder: $PRECISION_LAB_ASSETS when set, else the first that exists of
// <binary>/../assets, <binary>/../share/precision-lab and the source tree's assets/; "" if none.
std::string assets_dir();

// The scenario library's folders, shipped first: assets/scenarios, then config_dir()/scenarios.
std::vector<std::string> scenario_dirs();
// How many of scenario_dirs() are shipped (load_library's `shipped`): 1, or 0 where no assets
// folder was found (the user's folder is then the first).
size_t shipped_scenario_dirs();

}  // namespace pl
