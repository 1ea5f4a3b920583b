#include "app/cli/backend_option.h"

#include "core/util/join.h"

namespace pl::cli {
namespace {

BackendChoice read_backend(const std::string& text) {
  const auto c = parse_backend_choice(text);
  if (!c) throw CLI::ValidationError("--backend", "'" + text.substr(0, 40) + "': expected " + backend_choice_names());
  return *c;
}

std::string described(const std::string& help) {
  return join(kBackendChoiceNames, " | ", [](std::string_view n) { return std::string(n); }) + ": " + help;
}

}  // namespace

CLI::Option* add_backend_option(CLI::App& command, BackendChoice* out, const std::string& help) {
  return command.add_option_function<std::string>(
      "--backend", [out](const std::string& text) { *out = read_backend(text); }, described(help));
}

CLI::Option* add_backend_option(CLI::App& command, std::optional<BackendChoice>* out, const std::string& help) {
  return command.add_option_function<std::string>(
      "--backend", [out](const std::string& text) { *out = read_backend(text); }, described(help));
}

}  // namespace pl::cli
