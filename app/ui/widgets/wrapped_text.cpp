#include "app/ui/widgets/wrapped_text.h"

#include <algorithm>
#include <cmath>

namespace pl::ui {
namespace {

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The length of the longest prefix of `text` that ends on a character boundary and fits in
// `width`. Widths add up character by character (ImGui's text has no kerning): one pass, not
// one measure per prefix.
size_t fitting_prefix(std::string_view text, float width, const std::function<float(std::string_view)>& width_of) {
  size_t fits = 0;
  float reach = 0;
  for (size_t i = 0; i < text.size();) {
    size_t next = i + 1;
    while (next < text.size() && continuation_byte(text[next])) ++next;
    reach += width_of(text.substr(i, next - i));
    if (reach > width) break;
    fits = i = next;
  }
  return fits;
}

// Where to cut `word`, which is wider than `width` alone: after its last punctuation that fits,
// else after the last whole character that fits (at least one, so that the text moves on).
size_t cut_long_word(std::string_view word, float width, const std::function<float(std::string_view)>& width_of) {
  const size_t fits = fitting_prefix(word, width, width_of);
  for (size_t i = fits; i > 0; --i)
    if (std::string_view("./_,(").find(word[i - 1]) != std::string_view::npos) return i;
  if (fits > 0) return fits;
  size_t one = 1;
  while (one < word.size() && continuation_byte(word[one])) ++one;
  return one;
}

void wrap_paragraph(std::string_view p, float width, const std::function<float(std::string_view)>& width_of,
                    std::vector<std::string_view>& lines) {
  size_t start = 0;
  while (true) {
    while (start < p.size() && p[start] == ' ' && !lines.empty()) ++start;  // a break's spaces go
    if (start >= p.size()) {
      if (start == 0) lines.push_back(p);  // an empty paragraph is an empty line
      return;
    }
    // The words that fit after `start`, each measured once with the spaces before it.
    size_t end = start;
    float reach = 0;
    while (true) {
      const size_t word_start = p.find_first_not_of(' ', end);
      if (word_start == std::string_view::npos) break;  // only spaces are left: they end the line
      const size_t word_end = std::min(p.find(' ', word_start), p.size());
      const float added = width_of(p.substr(end, word_end - end));
      if (reach + added > width) {
        if (end == start)  // the first word alone is too wide: cut inside it
          end = word_start + cut_long_word(p.substr(word_start, word_end - word_start),
                                           width - width_of(p.substr(start, word_start - start)), width_of);
        break;
      }
      reach += added;
      end = word_end;
    }
    if (end == start) end = p.size();  // nothing but spaces
    lines.push_back(p.substr(start, end - start));
    start = end;
  }
}

void draw_lines(std::string_view text) {
  const float width = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize());
  const auto measure = [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; };
  ImGui::BeginGroup();
  for (std::string_view line : wrap_lines(text, width, measure))
    ImGui::TextUnformatted(line.data(), line.data() + line.size());
  ImGui::EndGroup();
}

}  // namespace

std::vector<std::vector<std::string_view>> wrap_all_within(const std::vector<std::string_view>& texts, float width,
                                                           size_t most,
                                                           const std::function<float(std::string_view)>& width_of) {
  std::vector<std::vector<std::string_view>> out;
  size_t lines = 0;
  for (const std::string_view t : texts) {
    out.push_back(balanced_lines(t, width, width_of));
    lines += out.back().size();
    if (lines > most) return {};
  }
  return out;
}

std::vector<std::string_view> balanced_lines(std::string_view text, float width,
                                             const std::function<float(std::string_view)>& width_of) {
  std::vector<std::string_view> best = wrap_lines(text, width, width_of);
  if (best.size() < 2) return best;
  // (Fewer lines never come at a narrower width: `hi` takes best's count, `lo` more.)
  float lo = 0, hi = width;
  while (hi - lo > 1) {
    const float mid = (lo + hi) / 2;
    if (std::vector<std::string_view> lines = wrap_lines(text, mid, width_of); lines.size() <= best.size())
      hi = mid, best = std::move(lines);
    else lo = mid;
  }
  return best;
}

std::vector<std::string_view> wrap_lines(std::string_view text, float width,
                                         const std::function<float(std::string_view)>& width_of) {
  std::vector<std::string_view> lines;
  size_t from = 0;
  while (true) {
    const size_t nl = text.find('\n', from);
    const std::string_view p = text.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl - from);
    std::vector<std::string_view> paragraph;
    wrap_paragraph(p, width, width_of, paragraph);
    lines.insert(lines.end(), paragraph.begin(), paragraph.end());
    if (nl == std::string_view::npos) break;
    from = nl + 1;
  }
  return lines;
}

std::string fit_text(std::string_view text, float width, const std::function<float(std::string_view)>& width_of) {
  if (width_of(text) <= width) return std::string(text);
  return std::string(text.substr(0, fitting_prefix(text, width - width_of("..."), width_of))) + "...";
}

std::string fitted_text(std::string_view text, float width) {
  return fit_text(text, width, [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; });
}

void wrapped_text(std::string_view text) { draw_lines(text); }

void wrapped_text_colored(const ImVec4& colour, std::string_view text) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  draw_lines(text);
  ImGui::PopStyleColor();
}

void wrapped_text_disabled(std::string_view text) {
  wrapped_text_colored(ImGui::GetStyle().Colors[ImGuiCol_TextDisabled], text);
}

bool wrapping_small_button(const char* label) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float width = ImGui::GetContentRegionAvail().x;
  const std::string_view whole(label), shown = whole.substr(0, whole.find("##"));
  const auto measure = [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; };
  if (measure(shown) + 2 * style.FramePadding.x <= width) return ImGui::SmallButton(label);
  const std::vector<std::string_view> lines = wrap_lines(shown, width - 2 * style.FramePadding.x, measure);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float line = ImGui::GetTextLineHeight();
  // A little room above and below the lines: flush with the frame, the last line's descenders
  // touched its border ("open: 65520 in every format, float16 / marked").
  const float pad = std::floor(line * 0.12f);
  ImGui::PushID(label);
  const bool clicked =
      ImGui::InvisibleButton("##wrapped", ImVec2(width, line * static_cast<float>(lines.size()) + 2 * pad));
  ImGui::PopID();
  const ImGuiCol colour = ImGui::IsItemActive()    ? ImGuiCol_ButtonActive
                          : ImGui::IsItemHovered() ? ImGuiCol_ButtonHovered
                                                   : ImGuiCol_Button;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), ImGui::GetColorU32(colour),
                      style.FrameRounding);
  if (style.FrameBorderSize > 0)
    draw->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), ImGui::GetColorU32(ImGuiCol_Border),
                  style.FrameRounding, 0, style.FrameBorderSize);
  for (size_t i = 0; i < lines.size(); ++i)
    draw->AddText(ImVec2(at.x + style.FramePadding.x, at.y + pad + line * static_cast<float>(i)),
                  ImGui::GetColorU32(ImGuiCol_Text), lines[i].data(), lines[i].data() + lines[i].size());
  return clicked;
}

}  // namespace pl::ui
