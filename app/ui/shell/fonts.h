// Fonts from the system (DejaVu Sans, then Liberation Sans, then Noto Sans), with ImGui's
// built-in font as the last fallback. Sizes follow the monitor's content scale (HiDPI).
#pragma once

namespace pl::ui {

// Returns the path loaded, or "built-in".
const char* load_fonts(float pixel_size);

}  // namespace pl::ui
