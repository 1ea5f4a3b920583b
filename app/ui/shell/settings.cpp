#include "app/ui/shell/settings.h"

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/io/checked_write.h"
#include "core/io/file_read.h"
#include "core/io/json_text.h"
#include "core/util/printable.h"

namespace pl::ui {

Settings load_settings() {
  Settings s;
  const std::string dir = config_dir();
  if (dir.empty()) return s;
  const std::string path = dir + "/settings.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    s.first_run = true;
    return s;
  }
  auto read = io::read_json_file(path);
  if (!read || !read->is_object()) {
    std::string why = (read ? path + " is not a JSON object" : read.error()) + "; using defaults";
    // What the user wrote is kept: the next save would otherwise write over it.
    if (std::filesystem::is_regular_file(path, ec)) why += set_aside(path);
    s.problem = why;
    return s;
  }
  const nlohmann::json& j = *read;
  // Each key on its own: one bad value does not cost the others, but each one not used is said
  // (the next save writes the defaults over it).
  std::vector<std::string> unused;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "panel" && it.key() != "presentation" && it.key() != "width" && it.key() != "height")
      unused.push_back(std::string("unknown key \"").append(printable(it.key(), 40)).append("\""));
  if (j.contains("panel")) {
    if (j["panel"].is_string()) s.panel = j["panel"].get<std::string>();
    else unused.push_back("\"panel\" is not a panel's name");
  }
  if (j.contains("presentation")) {
    if (j["presentation"].is_boolean()) s.presentation = j["presentation"].get<bool>();
    else unused.push_back("\"presentation\" is neither true nor false");
  }
  // Read as 64 bits before the range check: get<int>() would wrap 4294967396 to 100, a size
  // nobody saved (and 2^64 - 1, stored unsigned, reads as -1 here: refused too).
  for (const auto& [key, field] : {std::pair{"width", &s.width}, std::pair{"height", &s.height}}) {
    const auto it = j.find(key);
    if (it == j.end()) continue;
    const bool whole = it->is_number_integer();
    const auto v = whole ? it->get<std::int64_t>() : 0;
    if (whole && v > 0 && v <= 8192) *field = static_cast<int>(v);
    else unused.push_back(std::string("\"").append(key).append("\" is not a size in pixels from 1 to 8192"));
  }
  if (!unused.empty()) {
    s.problem = path + ": ";
    for (size_t i = 0; i < unused.size(); ++i) s.problem += (i ? "; " : "") + unused[i];
    s.problem += " (the rest used; defaults for these)";
  }
  return s;
}

std::string set_aside(const std::string& path) {
  const std::string aside = path + ".bad-" + std::to_string(static_cast<long long>(std::time(nullptr)));
  std::error_code ec;
  std::filesystem::rename(path, aside, ec);
  return ec ? " (it could not be moved aside: " + ec.message() + ")" : "; the file was kept as " + aside;
}

std::string settings_text(const Settings& s) {
  const nlohmann::json j = {
      {"panel", s.panel}, {"presentation", s.presentation}, {"width", s.width}, {"height", s.height}};
  return j.dump(2, ' ', false, io::kReplaceInvalidUtf8) + "\n";
}

Status save_settings(const Settings& s) {
  const std::string dir = config_dir();
  if (dir.empty()) return Error{"no config directory (XDG_CONFIG_HOME and HOME are unset)"};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"cannot create " + dir + ": " + ec.message()};
  return io::write_file_atomic(dir + "/settings.json", settings_text(s));
}

}  // namespace pl::ui
