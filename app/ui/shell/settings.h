// What the window remembers between runs, in the XDG config directory
// ($XDG_CONFIG_HOME/precision-lab, else ~/.config/precision-lab): settings.json (panel,
// presentation mode, window size), last-setup.json (the Experiment panel's setup) and imgui.ini
// (table column widths). A missing or unreadable file means defaults, never a failure to start.
#pragma once

#include <string>

#include "core/util/expected.h"
#include "core/util/paths.h"

namespace pl::ui {

struct Settings {
  std::string panel = "formats";
  bool presentation = false;
  int width = 0, height = 0;  // 0: the default size
  bool first_run = false;     // no settings file yet: the window opens on the start screen
  std::string problem;        // why a settings file that exists was not used; empty when it was
};

using pl::config_dir;  // core/util/paths.h: the folder, or "" when neither XDG_CONFIG_HOME nor HOME is set

// Defaults when the file is missing; with `problem` set when a file that exists was not used.
Settings load_settings();
Status save_settings(const Settings& s);
// settings.json's text for `s`, as save_settings writes it.
std::string settings_text(const Settings& s);
// A remembered file that could not be used, renamed PATH.bad-TIME so that the next save does not
// write over what the user had; says where it went (or why it could not be moved).
std::string set_aside(const std::string& path);

}  // namespace pl::ui
