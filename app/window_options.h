// What the window starts with: the options of `precision-lab` without a command, parsed by the
// command line's parser (app/cli/window_options.cpp, so they appear in `precision-lab --help`)
// and read by the window (app/ui/shell/gui.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pl::ui {

struct GuiOptions {
  std::string screenshot_path;    // non-empty: render a few frames, write a PNG, exit
  std::string panel = "formats";  // which panel the screenshot shows
  int width = 1400, height = 860;
  std::string value = "0.1";  // initial value in the Formats panel
  // Promotion panel start state (for demos and screenshots).
  std::string promote_op = "add";
  bool compare = false;             // compare tensor x tensor with tensor x zero-dim
  std::string select;               // "A,B": the pair shown below the grid
  std::string framework = "torch";  // promotion engine id (promote::engine_names())
  std::string compare_with;         // engine id for the compared grid (implies compare)
  std::string b_kind = "tensor";    // b operand kind: tensor | zerodim | scalar
  std::string b_value;              // b's value when it is a zero-dim array or scalar
  std::string a_shape, b_shape;     // a convolution's shapes ("2,3,8,8"), for --op conv1d/conv2d
  std::string a_device, b_device;   // where the Promotion panel's a and b live: cpu | cuda
  std::string setup;                // an experiment file (JSON) the Experiment panel starts from
  std::vector<std::string> open;    // files opened as if dropped on the window (--open, repeatable)
  std::string scenario;             // the scenario the Scenarios panel opens (name or number)
  std::string checkpoint;           // a checkpoint the Checkpoint panel scans at start
  std::string activations;          // its layers' inputs: the scan weighs the outputs' errors
  std::string figure;               // the figure tab to bring forward ("error-heatmap")
  size_t look_at = 0;               // with `scenario`: its look-at link opened at start (1-based; 0: none)
  bool figure_only = false;         // with `scenario`: its figures on the whole pane, the story hidden
  bool verbose = false;             // print the run log to stdout as it grows
  bool check_layout = false;        // a screenshot fails (exit 1) when a control or figure is cut off
  bool panel_given = false;         // --panel was on the command line (else the remembered one)
  // The panel --setup, --open or --scenario opens on when --panel is not given: it wins over
  // the remembered panel too (the file was opened to be seen).
  std::string implied_panel;
  bool size_given = false;           // --size was on the command line (else the remembered one)
  std::optional<bool> presentation;  // --presentation on|off (else the remembered setting)
  // --no-settings: neither read nor write the remembered settings (settings.json, last-setup.json,
  // imgui.ini); a screenshot otherwise starts from them as the window does.
  bool no_settings = false;
};

}  // namespace pl::ui
