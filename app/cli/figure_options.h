// --size WxH and --dpi for every command that writes figures: each figure's size in pixels at 96
// dpi (SVG and PDF keep their text and lines as vectors at that size in inches) and the PNGs'
// resolution. Slides want 1600x900 at 192 dpi; the default is 900x560 at 96.
#pragma once

#include <CLI/CLI.hpp>

namespace pl::cli {

void add_figure_options(CLI::App& command);

}  // namespace pl::cli
