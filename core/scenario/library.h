// The scenario library: every *.json in the given folders (the shipped assets/scenarios, then
// the user's own), in file-name order, so "06-float16-overflow" is the sixth story of the tour.
// A file that does not read is listed with its error instead of hiding the others.
#pragma once

#include <string>
#include <vector>

#include "core/scenario/scenario.h"

namespace pl::scenario {

struct Library {
  std::vector<Scenario> scenarios;
  std::vector<std::string> errors;  // "PATH: why", one per file that did not read
};

// A later folder's scenario replaces an earlier one of the same name (a user's own copy of a
// shipped story wins). Missing folders are skipped. The first `shipped` folders hold the shipped
// scenarios, whose evidence the tests run; each evidence setup of the others' scenarios is read
// as `run` reads it (check_experiment_file), and a file with one that does not read is listed
// with its error.
Library load_library(const std::vector<std::string>& dirs, size_t shipped = 0);

// By full name ("06-float16-overflow"), by name without its number ("float16-overflow") or by
// number ("6"). Null when none matches.
const Scenario* find_scenario(const Library& lib, const std::string& key);

}  // namespace pl::scenario
