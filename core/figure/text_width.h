// How wide a line of figure text is drawn. Every figure is drawn in DejaVu Sans
// (core/export/figure_export.cpp); the layout, which draws nothing, measures its labels with the
// font's own advance widths (dejavu_sans_widths.inc, read from the font file by
// scripts/gen_font_widths.py): DejaVu Sans's characters differ threefold in width ('i' against
// 'm'), so a count of characters misjudges a label by a third either way.
#pragma once

#include <string_view>

namespace pl::figure {

// The advance of `utf8` set in DejaVu Sans (Bold where `bold`) at `font_px` pixels. A character
// past ASCII counts as wide as a digit.
double text_width(std::string_view utf8, double font_px, bool bold = false);

}  // namespace pl::figure
