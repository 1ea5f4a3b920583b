#include "app/cli/choice_options.h"

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/int_convert.h"
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

// One of `names`, as the table spells them (CLI11 lists them: "TEXT:{a,b,c}").
CLI::Option* add_choice(CLI::App& command, const std::string& flag, std::string* out, const std::string& names,
                        const std::string& help) {
  std::vector<std::string> members;
  for (size_t at = 0; at < names.size();) {
    const size_t comma = std::min(names.find(", ", at), names.size());
    members.push_back(names.substr(at, comma - at));
    at = comma + 2;
  }
  return command.add_option(flag, *out, help)->check(CLI::IsMember(members));
}

}  // namespace

CLI::Option* add_rounding_option(CLI::App& command, std::string* out, const std::string& help) {
  return add_choice(command, "--rounding", out, rounding_names(), help);
}

CLI::Option* add_cast_path_option(CLI::App& command, std::string* out, const std::string& help) {
  return add_choice(command, "--path", out, cast_path_names(), help);
}

CLI::Option* add_int_overflow_option(CLI::App& command, std::string* out, const std::string& help) {
  return add_choice(command, "--int-overflow", out, int_overflow_names(), help);
}

CLI::Option* add_backend_option(CLI::App& command, BackendChoice* out, const std::string& help) {
  return command.add_option_function<std::string>(
      "--backend", [out](const std::string& text) { *out = read_backend(text); }, described(help));
}

CLI::Option* add_backend_option(CLI::App& command, std::optional<BackendChoice>* out, const std::string& help) {
  return command.add_option_function<std::string>(
      "--backend", [out](const std::string& text) { *out = read_backend(text); }, described(help));
}

}  // namespace pl::cli
