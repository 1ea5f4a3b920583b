// A format's limits side by side with other formats' (Formats and Explorer panels), each
// column named for what it is and explained on hover, and the tooltip a format name shows.
#pragma once

#include <string>
#include <vector>

#include "core/dtype/format_lookup.h"

namespace pl::ui {

void draw_format_limits_table(const char* id, const std::vector<FormatRef>& formats);

// The limits the table writes as powers of two, and their cells: "2^-14", or "none" for the
// smallest subnormal of a format that has none (float8_e8m0fnu).
enum class PowerLimit { SmallestNormal, SmallestSubnormal, Epsilon, UnitRoundoff };
double power_limit(const FloatFormat& f, PowerLimit k);
std::string power_limit_text(const FloatFormat& f, PowerLimit k);
// Call right after the item that shows the format's name.
void format_tooltip(const FormatRef& r);

}  // namespace pl::ui
