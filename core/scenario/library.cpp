#include "core/scenario/library.h"

#include <algorithm>
#include <filesystem>

#include "core/experiment/spec/experiment_file.h"

namespace pl::scenario {
namespace {

// "06-float16-overflow" -> ("6", "float16-overflow"); no number -> ("", name).
std::pair<std::string, std::string> split_number(const std::string& name) {
  const size_t dash = name.find('-');
  if (dash == std::string::npos || dash == 0 || name.find_first_not_of("0123456789") != dash) return {"", name};
  std::string number = name.substr(0, dash);
  number.erase(0, std::min(number.find_first_not_of('0'), number.size() - 1));
  return {number, name.substr(dash + 1)};
}

}  // namespace

Library load_library(const std::vector<std::string>& dirs, size_t shipped) {
  Library lib;
  for (size_t d = 0; d < dirs.size(); ++d) {
    const std::string& dir = dirs[d];
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) {
      auto s = load_scenario(f);
      if (!s) {
        lib.errors.push_back(s.error());
        continue;
      }
      if (d >= shipped) {
        std::string bad;  // the first setup that does not read
        for (const Evidence& e : s->evidence)
          if (Status st = experiment::check_experiment_file(e.setup); !st) {
            bad = f + ": evidence '" + e.label + "': " + st.error();
            break;
          }
        if (!bad.empty()) {
          lib.errors.push_back(bad);
          continue;
        }
      }
      auto same = std::find_if(lib.scenarios.begin(), lib.scenarios.end(),
                               [&](const Scenario& x) { return x.name == s->name; });
      if (same != lib.scenarios.end()) *same = std::move(s).value();
      else lib.scenarios.push_back(std::move(s).value());
    }
  }
  std::stable_sort(lib.scenarios.begin(), lib.scenarios.end(),
                   [](const Scenario& a, const Scenario& b) { return a.name < b.name; });
  return lib;
}

const Scenario* find_scenario(const Library& lib, const std::string& key) {
  for (const auto& s : lib.scenarios)
    if (s.name == key) return &s;
  std::string number = key;
  number.erase(0, std::min(number.find_first_not_of('0'), number.size() - 1));
  for (const auto& s : lib.scenarios) {
    const auto [n, rest] = split_number(s.name);
    if (rest == key || (!n.empty() && n == number)) return &s;
  }
  return nullptr;
}

}  // namespace pl::scenario
