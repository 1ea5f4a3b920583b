#include "app/cli/figure_options.h"

#include <charconv>
#include <string>

#include "core/export/figure_export.h"

namespace pl::cli {
namespace {

constexpr int kMinSide = 100, kMaxSide = 10000;  // points
constexpr int kMinDpi = 24, kMaxDpi = 1200;

struct Size {
  int w = 0, h = 0;
};

// "1600x900": two whole numbers of pixels at 96 dpi, each in [kMinSide, kMaxSide].
Expected<Size> read_size(const std::string& text) {
  const Error why{"--size '" + text.substr(0, 80) + "': expected WIDTHxHEIGHT in pixels at 96 dpi, each " +
                  std::to_string(kMinSide) + " to " + std::to_string(kMaxSide) + " (1600x900)"};
  const size_t x = text.find('x');
  if (x == std::string::npos) return why;
  Size s;
  const char *a = text.data(), *mid = a + x, *end = a + text.size();
  if (std::from_chars(a, mid, s.w).ptr != mid || std::from_chars(mid + 1, end, s.h).ptr != end) return why;
  if (s.w < kMinSide || s.w > kMaxSide || s.h < kMinSide || s.h > kMaxSide) return why;
  return s;
}

// A PNG is the size times the scale in pixels, and cairo's image surfaces hold at most 32767 a
// side: past that each PNG failed to be written after the whole run, with exit 1. Checked
// whichever of --size and --dpi comes last, against the other's value so far.
constexpr double kMostPngPixels = 32767;
void check_png_pixels() {
  const auto& o = figure::default_export_options();
  const double w = o.width * o.scale, h = o.height * o.scale;
  if (w <= kMostPngPixels && h <= kMostPngPixels) return;
  throw CLI::ValidationError("--size " + std::to_string(static_cast<long>(o.width)) + "x" +
                             std::to_string(static_cast<long>(o.height)) + " at --dpi " +
                             std::to_string(static_cast<int>(o.scale * 96 + 0.5)) + " makes PNGs of " +
                             std::to_string(static_cast<long>(w + 0.5)) + " x " +
                             std::to_string(static_cast<long>(h + 0.5)) + " pixels; a PNG is at most " +
                             std::to_string(static_cast<int>(kMostPngPixels)) + " a side: lower one of them");
}

}  // namespace

void add_figure_options(CLI::App& command) {
  command
      .add_option_function<std::string>(
          "--size",
          [](const std::string& text) {
            const auto size = read_size(text);
            if (!size) throw CLI::ValidationError(size.error());
            figure::default_export_options().width = size->w;
            figure::default_export_options().height = size->h;
            check_png_pixels();
          },
          "every figure's size, WIDTHxHEIGHT (default 900x560) in pixels at 96 dpi: the PNG's at --dpi 96, the "
          "SVG's px, and the same inches in the PDF (3/4 as many points)")
      ->group("Figures");
  command
      .add_option_function<int>(
          "--dpi",
          [](int dpi) {
            if (dpi < kMinDpi || dpi > kMaxDpi)
              throw CLI::ValidationError("--dpi " + std::to_string(dpi) + ": expected " + std::to_string(kMinDpi) +
                                         " to " + std::to_string(kMaxDpi));
            figure::default_export_options().scale = dpi / 96.0;
            check_png_pixels();
          },
          "the PNGs' resolution in dots per inch: at 96 (the default) a PNG is the figure's size in pixels, at "
          "192 twice that")
      ->group("Figures");
}

}  // namespace pl::cli
