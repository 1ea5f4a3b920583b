// Draws a figure description (core/figure/figure.h) with cairo and writes it as PNG, SVG or
// PDF, and its data as CSV. Text uses the system's DejaVu Sans through cairo's font layer
// (fonts-dejavu-core), falling back to cairo's default sans-serif.
#pragma once

#include <optional>
#include <string>

#include "core/figure/figure.h"
#include "core/figure/line_thinning.h"
#include "core/util/expected.h"

typedef struct _cairo cairo_t;

namespace pl::figure {

enum class FileType : uint8_t { Png, Svg, Pdf, Csv };
const char* extension(FileType t);  // "png", ...

// A figure's size is in CSS pixels (1/96 inch): the PNG's pixels at `scale` 1, the SVG's px, and
// the PDF's page in points (1/72 inch) at 3/4 as many, so that all three have the same size in
// inches.
inline constexpr double kPointsPerPixel = 72.0 / 96.0;

struct ExportOptions {
  double width = 900, height = 560;  // pixels at 96 dpi
  double scale = 1;                  // PNG only: 2 for HiDPI
  double font_scale = 1;             // presentation mode: larger text
};

// What the commands' exports use unless told otherwise: 900x560 pixels at 96 dpi, or the
// command line's --size and --dpi (app/cli/figure_options.h), set once before a command runs.
ExportOptions& default_export_options();

// Writes `path` (its extension need not match; `type` decides), whole or not at all: the file
// is drawn in memory first (io::write_file_atomic).
Status export_figure(const Figure& f, const std::string& path, FileType type, const ExportOptions& o = {});

// The figure as SVG text (what an .svg export holds; the slide deck's HTML page inlines it).
Expected<std::string> figure_svg(const Figure& f, const ExportOptions& o = {});

// Draws into any cairo context (the window's offscreen surface uses this too).
void draw_figure(cairo_t* cr, const Figure& f, double width, double height, double font_scale = 1);
// The device pixel columns a solid line drawn on `cr` is thinned to (line_thinning.h): on an image
// surface (the window, a PNG) whose matrix scales and moves x alone; none on a vector surface (SVG,
// PDF: every point kept for a reader who zooms in) or under a rotation or shear.
std::optional<PixelColumns> raster_columns(cairo_t* cr);

std::string figure_csv(const Figure& f);

}  // namespace pl::figure
