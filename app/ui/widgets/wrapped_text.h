// Text wrapped at the pane's edge that breaks lines only between words. ImGui's own wrapping
// also breaks after '.', ',' and ';', which cut code in two at a line's end ("x." above
// "to(torch.float32)"); the scenarios, the fixes and the error texts are full of such code.
#pragma once

#include <imgui.h>

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pl::ui {

// The lines `text` takes at `width`: broken at spaces (the spaces at a break dropped) and at
// newlines; a word wider than a whole line alone is broken after its last '.', '/', '_', ',' or
// '(' that fits, else between two characters (never inside a UTF-8 sequence). Each line is a
// view into `text`.
std::vector<std::string_view> wrap_lines(std::string_view text, float width,
                                         const std::function<float(std::string_view)>& width_of);

// wrap_lines at the narrowest width, to the pixel, that takes no more lines than `width` does:
// the lines as even as the words allow, so that a title does not end in one word under a full
// line ("A 1000 x 1000 float32 matmul against float64, and error growth with" over "K").
std::vector<std::string_view> balanced_lines(std::string_view text, float width,
                                             const std::function<float(std::string_view)>& width_of);

// Each of `texts` in its balanced lines at `width` (balanced_lines), where all of them together
// take at most `most` lines; else none (a list then cuts each to a line).
std::vector<std::vector<std::string_view>> wrap_all_within(const std::vector<std::string_view>& texts, float width,
                                                           size_t most,
                                                           const std::function<float(std::string_view)>& width_of);

// `text` as it fits in `width`: whole, or cut between two characters and ended with "...".
std::string fit_text(std::string_view text, float width, const std::function<float(std::string_view)>& width_of);
// fit_text() in the current font.
std::string fitted_text(std::string_view text, float width);

// Draws `text` wrapped from the cursor to the right edge of the current window's content region,
// as one item (hover it as a whole).
void wrapped_text(std::string_view text);
void wrapped_text_colored(const ImVec4& colour, std::string_view text);
void wrapped_text_disabled(std::string_view text);

// ImGui::SmallButton(label) where it fits in the pane's width; else the same button with its
// label wrapped onto as many lines as it needs (a look-at link in a narrow story column, wider
// than the column, was cut). `label` may end in "##id". True when clicked.
bool wrapping_small_button(const char* label);

// printf into a string, for the calls that format their text.
template <typename... Args>
std::string printf_text(const char* format, Args... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  if (n <= 0) return {};
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, args...);
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace pl::ui
