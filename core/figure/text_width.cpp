#include "core/figure/text_width.h"

#include <array>

namespace pl::figure {
namespace {
#include "core/figure/dejavu_sans_bold_widths.inc"
#include "core/figure/dejavu_sans_widths.inc"
}  // namespace

double text_width(std::string_view utf8, double font_px, bool bold) {
  const std::array<unsigned short, 95>& advance = bold ? kBoldAdvance : kAdvance;
  double units = 0;
  for (unsigned char c : utf8) {
    if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: counted with its lead byte
    units += c >= 32 && c <= 126 ? advance[c - 32] : advance['0' - 32];
  }
  return units / (bold ? kBoldUnitsPerEm : kUnitsPerEm) * font_px;
}

}  // namespace pl::figure
