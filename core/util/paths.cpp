#include "core/util/paths.h"

#include <cstdlib>
#include <filesystem>

namespace pl {

std::string config_dir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/precision-lab";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/precision-lab";
  return "";
}

std::string assets_dir() {
  if (const char* a = std::getenv("PRECISION_LAB_ASSETS"); a && *a) return a;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::vector<std::filesystem::path> candidates;
  if (!ec) {
    candidates.push_back(exe.parent_path().parent_path() / "assets");
    candidates.push_back(exe.parent_path().parent_path() / "share" / "precision-lab");
  }
#ifdef PL_SOURCE_ASSETS
  candidates.emplace_back(PL_SOURCE_ASSETS);
#endif
  for (const auto& c : candidates)
    if (std::filesystem::is_directory(c / "scenarios", ec)) return c.string();
  return "";
}

size_t shipped_scenario_dirs() { return assets_dir().empty() ? 0 : 1; }

std::vector<std::string> scenario_dirs() {
  std::vector<std::string> dirs;
  if (std::string a = assets_dir(); !a.empty()) dirs.push_back(a + "/scenarios");
  if (std::string c = config_dir(); !c.empty()) dirs.push_back(c + "/scenarios");
  return dirs;
}

}  // namespace pl
