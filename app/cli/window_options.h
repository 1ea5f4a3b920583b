// The window's options on the command line's parser: `precision-lab [OPTIONS]` without a command
// opens the window with them, and `precision-lab --help` lists them with the commands.
#pragma once

#include <string>

#include "app/cli/cli.h"
#include "app/window_options.h"
#include "core/util/expected.h"

namespace pl::cli {

// The group the window options are listed under in --help.
inline constexpr const char* kWindowGroup = "Window (without a command)";

// The spellings parsed into GuiOptions after the parse (on|off, WIDTHxHEIGHT).
struct WindowFlags {
  std::string size, presentation, compare;
};

void add_window_options(CLI::App& app, ui::GuiOptions& o, WindowFlags& f);
// Fills what the flags say into `o`; an error when a value is bad.
Status finish_window_options(const CLI::App& app, ui::GuiOptions& o, const WindowFlags& f);

}  // namespace pl::cli
