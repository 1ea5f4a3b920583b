// The controls the Formats, Explorer and Experiment panels share: the value typed, the rounding and the
// overflow policy on one line, and a custom format spelled and added.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/format_lookup.h"
#include "core/util/expected.h"

namespace pl::ui {

// A rounding mode's and an overflow policy's pickers (true when changed); the Experiment panel's
// setup uses them too.
bool draw_rounding_combo(const char* label, Rounding* r);
bool draw_overflow_combo(const char* label, Overflow* o);

// True when one of the three changed. `rounding` and `overflow` index Rounding and Overflow.
bool draw_value_rounding_overflow(char* value, size_t value_size, int* rounding, int* overflow);

// The spelling field and its button: nothing until the button is pressed, then the parsed
// format or why the spelling does not read.
std::optional<Expected<FormatRef>> draw_custom_format_adder(char* spelling, size_t size);

// Custom formats named since the last call (an experiment's dtype or accumulator, custom_dtype.h),
// for a panel to add to its rows; `seen` counts those already handed out.
std::vector<FormatRef> newly_named_custom_formats(size_t* seen);

}  // namespace pl::ui
