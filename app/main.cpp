// precision-lab: no arguments (or window options) -> the window; a subcommand -> the CLI.
#include <cstdio>
#include <cstring>
#include <string>

#include "app/backends.h"
#include "app/cli/cli.h"
#include "app/ui/gui.h"
#include "core/util/allocator.h"

namespace {

bool is_window_option(const char* a) {
  for (const char* o : {"--screenshot", "--panel", "--size", "--value", "--op", "--compare",
                        "--select", "--framework", "--compare-with", "--b-kind", "--b-value", "--a-shape", "--b-shape", "--setup",
                        "--verbose", "--presentation", "--scenario", "--open", "--figure"})
    if (std::strcmp(a, o) == 0) return true;
  return false;
}

int run_window(int argc, char** argv) {
  pl::ui::GuiOptions o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--verbose") {
      o.verbose = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "error: %s needs a value\n", a.c_str());
      return pl::cli::kExitBadInput;
    }
    std::string v = argv[++i];
    if (a == "--screenshot") o.screenshot_path = v;
    else if (a == "--panel") o.panel = v, o.panel_given = true;
    else if (a == "--presentation" && (v == "on" || v == "off")) o.presentation = v == "on";
    else if (a == "--value") o.value = v;
    else if (a == "--op") o.promote_op = v;
    else if (a == "--select") o.select = v;
    else if (a == "--framework") o.framework = v;
    else if (a == "--compare-with") o.compare_with = v;
    else if (a == "--b-kind") o.b_kind = v;
    else if (a == "--b-value") o.b_value = v;
    else if (a == "--a-shape") o.a_shape = v;
    else if (a == "--b-shape") o.b_shape = v;
    else if (a == "--scenario") o.scenario = v, o.implied_panel = "scenarios";
    else if (a == "--setup") o.setup = v, o.implied_panel = "experiment";
    else if (a == "--figure") o.figure = v;
    else if (a == "--open") o.open.push_back(v), o.implied_panel = "experiment";
    else if (a == "--compare" && (v == "on" || v == "off")) o.compare = v == "on";
    else if (a == "--size" && std::sscanf(v.c_str(), "%dx%d", &o.width, &o.height) == 2 &&
             o.width > 0 && o.height > 0 && o.width <= 8192 && o.height <= 8192) {
      o.size_given = true;
    } else {
      std::fprintf(stderr, "error: bad window option %s %s (--size takes WIDTHxHEIGHT, --compare and --presentation on|off)\n",
                   a.c_str(), v.c_str());
      return pl::cli::kExitBadInput;
    }
  }
  return pl::ui::run_gui(o);
}

}  // namespace

int main(int argc, char** argv) {
  pl::keep_freed_memory();
  pl::register_compiled_backends();
  if (argc == 1 || is_window_option(argv[1])) return run_window(argc, argv);
  return pl::cli::run(argc, argv);
}
