#include "app/cli/cli.h"

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "core/util/number_text.h"

namespace pl::cli {
namespace {

// "-1", "-inf" and "-0x1p-2" are values, not options: move them behind "--" so CLI11 reads them
// as positionals wherever the user typed them.
std::vector<std::string> values_after_separator(int argc, char** argv) {
  std::vector<std::string> options, values;
  bool after_separator = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      after_separator = true;
      continue;
    }
    if (after_separator || (a.size() > 1 && a[0] == '-' && parse_number(a).ok()))
      values.push_back(a);
    else
      options.push_back(a);
  }
  if (!values.empty()) {
    options.push_back("--");
    options.insert(options.end(), values.begin(), values.end());
  }
  return options;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"Precision Lab: what happens to numbers when deep-learning code lowers dtypes.\n"
               "Run without arguments to open the window.",
               "precision-lab"};
  app.require_subcommand(1);
  std::map<CLI::App*, Runner> runners;
  auto add = [&](const char* name, const char* help, Runner (*adder)(CLI::App&)) {
    CLI::App* sub = app.add_subcommand(name, help);
    runners[sub] = adder(*sub);
  };
  add("formats", "Print the table of number formats", add_formats);
  add("cast", "Round values into a format and show bits and error", add_cast);
  add("decode", "Decode bit patterns of a format", add_decode);
  add("bench", "Measure conversion throughput against a plain copy", add_bench);
  add("devices", "List compute backends and devices", add_devices);

  std::vector<std::string> args = values_after_separator(argc, argv);
  std::vector<const char*> cargs{argv[0]};
  for (auto& a : args) cargs.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  for (auto& [sub, runner] : runners)
    if (sub->parsed()) return runner();
  return kExitBadInput;
}

}  // namespace pl::cli
