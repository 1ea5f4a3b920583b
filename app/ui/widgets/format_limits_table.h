// A format's limits side by side with other formats' (Formats and Explorer panels), each
// column named for what it is and explained on hover, and the tooltip a format name shows.
#pragma once

#include <vector>

#include "core/dtype/format_lookup.h"

namespace pl::ui {

void draw_format_limits_table(const char* id, const std::vector<FormatRef>& formats);
// Call right after the item that shows the format's name.
void format_tooltip(const FormatRef& r);

}  // namespace pl::ui
