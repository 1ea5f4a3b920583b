#include "core/backend/backend_choice.h"

#include "core/util/names.h"

namespace pl {

std::string_view backend_choice_name(BackendChoice c) { return kBackendChoiceNames[static_cast<size_t>(c)]; }

std::optional<BackendChoice> parse_backend_choice(std::string_view name) {
  return find_named<BackendChoice>(kBackendChoiceNames, name);
}

std::string backend_choice_names() {
  std::string out;
  for (size_t i = 0; i < kBackendChoiceNames.size(); ++i)
    out.append(i == 0 ? "" : i + 1 == kBackendChoiceNames.size() ? " or " : ", ").append(kBackendChoiceNames[i]);
  return out;
}

}  // namespace pl
