#include "app/cli/window_options.h"

#include <cstdio>
#include <filesystem>
#include <utility>
#include <vector>

#include "core/export/result_folder.h"
#include "core/util/number_text.h"
#include "core/util/printable.h"

namespace pl::cli {

void add_window_options(CLI::App& app, ui::GuiOptions& o, WindowFlags& f) {
  const char* g = kWindowGroup;
  app.add_option("--screenshot", o.screenshot_path, "draw the window headless, write this PNG and exit")->group(g);
  app.add_option("--size", f.size, "window or screenshot size, WIDTHxHEIGHT (else the remembered size)")->group(g);
  app.add_option(
         "--panel", o.panel,
         "panel to open: formats promotion experiment throughput log scenarios explorer checkpoint, or start (the "
         "start screen)")
      ->group(g);
  app.add_option("--presentation", f.presentation, "presentation mode: on | off (else the remembered setting)")
      ->check(CLI::IsMember({"on", "off"}))
      ->group(g);
  app.add_flag("--no-settings", o.no_settings,
               "neither read nor write the remembered settings (a screenshot otherwise starts from them)")
      ->group(g);
  app.add_option("--value", o.value, "the value the Formats and Explorer panels start with")->group(g);
  app.add_option("--op", o.promote_op, "the Promotion panel's op (add, matmul, linear, conv2d, ...)")->group(g);
  app.add_option("--framework", o.framework, "the Promotion panel's engine (promote --help lists them)")->group(g);
  app.add_option("--compare", f.compare, "the Promotion panel compares operand kinds: on | off")
      ->check(CLI::IsMember({"on", "off"}))
      ->group(g);
  app.add_option("--compare-with", o.compare_with, "a second engine the Promotion grid is compared with")->group(g);
  app.add_option("--select", o.select, "the Promotion pair shown below the grid, A,B")->group(g);
  app.add_option("--b-kind", o.b_kind, "the Promotion panel's second operand: tensor | zerodim | scalar")->group(g);
  app.add_option("--b-value", o.b_value, "the second operand's value when it is a zero-dim array or a scalar")
      ->group(g);
  app.add_option("--a-shape", o.a_shape, "a convolution's input shape, N,C,H[,W]")->group(g);
  app.add_option("--b-shape", o.b_shape, "a convolution's weight shape, O,I,kH[,kW]")->group(g);
  app.add_option("--a-device", o.a_device, "where the Promotion panel's a lives: cpu | cuda")->group(g);
  app.add_option("--b-device", o.b_device, "where the Promotion panel's b (the model) lives: cpu | cuda")->group(g);
  app.add_option("--setup", o.setup, "an experiment file (JSON) the Experiment panel starts from")->group(g);
  app.add_option("--open", o.open, "a file opened as if dropped on the window (repeatable)")->group(g);
  app.add_option("--scenario", o.scenario, "the scenario the Scenarios panel opens (name or number)")->group(g);
  app.add_option("--checkpoint", o.checkpoint,
                 "a checkpoint the Checkpoint panel scans at start: a .safetensors file, an index or a folder")
      ->group(g);
  app.add_option("--activations", o.activations,
                 "with --checkpoint: the layers' inputs (NAME.input for NAME.weight); the scan weighs their outputs' "
                 "errors")
      ->group(g);
  app.add_option("--figure", o.figure,
                 "the figure tab brought forward (error-heatmap, ...; in a scenario the first run's of that name, or "
                 "'N: NAME' run N's; checks: a scenario's checks where they have a tab); a screenshot whose view "
                 "draws no such figure exits 2")
      ->group(g);
  app.add_option("--look-at", o.look_at,
                 "with --scenario: open its Nth look-at link (1, 2, ...), the panel in the state the text points at")
      ->group(g);
  app.add_flag("--figure-only", o.figure_only,
               "with --scenario: its figures (or live panel) on the whole pane, the story hidden (F in the window)")
      ->group(g);
  app.add_flag("--check-layout", o.check_layout,
               "with --screenshot: list every control off the window and every figure too small or past its "
               "pane, and exit 1 if there is one")
      ->group(g);
  app.add_flag("--verbose", o.verbose, "print the window's run log and frame rate to stdout")->group(g);
}

Status finish_window_options(const CLI::App& app, ui::GuiOptions& o, const WindowFlags& f) {
  for (std::string* s : {&o.value, &o.b_value}) *s = restore_value(*s);
  if (!f.size.empty()) {
    char tail = 0;
    if (std::sscanf(f.size.c_str(), "%dx%d%c", &o.width, &o.height, &tail) != 2 || o.width <= 0 || o.height <= 0 ||
        o.width > 8192 || o.height > 8192)
      return Error{"--size " + f.size + ": give WIDTHxHEIGHT, each from 1 to 8192 (1600x1000)"};
    o.size_given = true;
  }
  if (!f.presentation.empty()) o.presentation = f.presentation == "on";
  if (!f.compare.empty()) o.compare = f.compare == "on";
  o.panel_given = app.count("--panel") > 0;
  // The panel a file or scenario opens on when --panel is not given.
  if (!o.setup.empty() || !o.open.empty()) o.implied_panel = "experiment";
  if (!o.scenario.empty()) o.implied_panel = "scenarios";
  if (!o.checkpoint.empty()) o.implied_panel = "checkpoint";
  if (!o.activations.empty() && o.checkpoint.empty())
    return Error{"--activations are the inputs of a --checkpoint's layers: give --checkpoint too"};
  if (o.figure_only && o.scenario.empty())
    return Error{"--figure-only shows the figures of the --scenario given: give --scenario too"};
  if (o.look_at > 0 && o.scenario.empty())
    return Error{"--look-at opens a link of the --scenario given: give --scenario too"};
  if (!o.figure.empty() && o.look_at > 0)
    return Error{"--figure and --look-at both choose the figure shown: give one of them"};
  if (o.check_layout && o.screenshot_path.empty())
    return Error{"--check-layout checks a --screenshot's frame: give --screenshot too"};
  // (Bad input, refused here: found only when the frame is written, it would exit 1, as if the
  // machine had failed.)
  // Nor may the picture replace a file the run reads (--setup x.json --screenshot x.json), or a
  // symbolic link: with no --force to ask for it, the link would be replaced without a word.
  if (!o.screenshot_path.empty()) {
    std::vector<exporting::NamedInput> inputs = {
        {"--setup", o.setup}, {"--checkpoint", o.checkpoint}, {"--activations", o.activations}};
    for (const std::string& path : o.open) inputs.push_back({"--open", path});
    if (Status st = exporting::file_refusal(o.screenshot_path, "the PNG file", inputs); !st)
      return Error{"--screenshot " + st.error()};
    if (std::error_code ec; std::filesystem::is_symlink(o.screenshot_path, ec))
      return Error{"--screenshot " + printable(o.screenshot_path, 200) + " is a symbolic link: name the file itself"};
  }
  // A path or value the window would only report in its log is refused here, where it was typed.
  for (const auto& [flag, path] : {std::pair{"--setup", &o.setup}, std::pair{"--checkpoint", &o.checkpoint},
                                   std::pair{"--activations", &o.activations}})
    if (std::error_code ec; !path->empty() && !std::filesystem::exists(*path, ec))
      return Error{std::string(flag) + " " + printable(*path, 200) + ": " +
                   (ec ? ec.message() : std::string("no such file or folder"))};
  for (const std::string& path : o.open)  // (a folder is a checkpoint's, as when dropped)
    if (std::error_code ec; !std::filesystem::exists(path, ec))
      return Error{"--open " + printable(path, 200) + ": " +
                   (ec ? ec.message() : std::string("no such file or folder"))};
  if (app.count("--value") > 0)
    if (auto v = parse_number_expression(o.value); !v) return Error{"--value: " + v.error()};
  return {};
}

}  // namespace pl::cli
