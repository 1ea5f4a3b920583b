// Wrapped text breaks only between words: ImGui's own wrapping breaks after '.', which split
// "x.to(torch.float32)" across two lines in the scenarios' stories and fixes.
#include "app/ui/widgets/wrapped_text.h"

#include "app/ui/panels/scenario_panel.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <string>
#include <vector>

namespace pl::ui {
namespace {

// One unit per byte: widths are lengths.
float bytes(std::string_view s) { return static_cast<float>(s.size()); }

std::vector<std::string> lines_of(std::string_view text, float width) {
  std::vector<std::string> out;
  for (std::string_view l : wrap_lines(text, width, bytes)) out.emplace_back(l);
  return out;
}

// Bug: at 1920x1080 half the Scenarios list's titles ended in "..." above 300 px of empty list.
// Where every title's lines fit the list's height, each takes its lines; else none is wrapped
// (and the list cuts each to a line).
TEST(WrapLines, AllTextsWrapOnlyWhereAllTheirLinesFit) {
  const std::vector<std::string_view> titles = {"a short one", "a title that takes two lines", "one"};
  const auto wrapped = wrap_all_within(titles, 16, 4, bytes);
  ASSERT_EQ(wrapped.size(), 3u);
  EXPECT_EQ(wrapped[1], (std::vector<std::string_view>{"a title that", "takes two lines"}));
  EXPECT_TRUE(wrap_all_within(titles, 16, 3, bytes).empty());
}

// Bug: at 1920x1080 five of the Scenarios list's titles ended in one word on a line of its own
// ("...float32 matmul against float64, and error growth with" over "K"; "really?", "int32",
// "you"). The list's titles take as many lines as before, as even as the words allow.
TEST(WrapLines, AListsTitlesAreBalancedOverTheirLines) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(balanced_lines("aaa bbb ccc ddd e", 15, bytes), (V{"aaa bbb", "ccc ddd e"}));  // greedy: "e" alone
  EXPECT_EQ(balanced_lines("fits whole", 20, bytes), (V{"fits whole"}));
  const std::vector<std::string_view> titles = {
      "A 1000 x 1000 float32 matmul against float64, and error growth with K"};
  const auto wrapped = wrap_all_within(titles, 66, 10, bytes);
  ASSERT_EQ(wrapped.size(), 1u);
  EXPECT_EQ(wrapped[0], (V{"A 1000 x 1000 float32 matmul against", "float64, and error growth with K"}));
  EXPECT_EQ(wrap_lines(titles[0], 66, bytes).size(), 2u);  // as many lines as greedy wrapping
}

TEST(WrapLines, BreaksBetweenWordsOnly) {
  using L = std::vector<std::string>;
  EXPECT_EQ(lines_of("call x.to(torch.float32) now", 20), (L{"call", "x.to(torch.float32)", "now"}));
  EXPECT_EQ(lines_of("a b c d", 3), (L{"a b", "c d"}));
  EXPECT_EQ(lines_of("fits whole", 10), (L{"fits whole"}));
}

TEST(WrapLines, KeepsNewlinesAndEmptyLines) {
  using L = std::vector<std::string>;
  EXPECT_EQ(lines_of("one\n\ntwo three", 5), (L{"one", "", "two", "three"}));
  EXPECT_EQ(lines_of("", 5), (L{""}));
  EXPECT_EQ(lines_of("  indented", 20), (L{"  indented"}));  // a paragraph's own indent stays
}

TEST(WrapLines, CutsAWordWiderThanALineAfterPunctuation) {
  using L = std::vector<std::string>;
  EXPECT_EQ(lines_of("torch.nn.functional.linear", 12), (L{"torch.nn.", "functional.", "linear"}));
  EXPECT_EQ(lines_of("abcdefgh", 3), (L{"abc", "def", "gh"}));
}

TEST(WrapLines, NeverSplitsAUtf8Sequence) {
  const std::string text = "\xC2\xB5\xC2\xB5\xC2\xB5";  // three 'µ', two bytes each
  const auto lines = lines_of(text, 3);
  ASSERT_EQ(lines.size(), 3u);
  for (const auto& l : lines) EXPECT_EQ(l, "\xC2\xB5");
}

// A scenario's title in the list: whole when it fits, else cut with "..." inside the width.
TEST(FitText, CutsWithAnEllipsisInsideTheWidth) {
  EXPECT_EQ(fit_text("short", 10, bytes), "short");
  EXPECT_EQ(fit_text("a longer title", 10, bytes), "a longe...");
  EXPECT_EQ(fit_text("\xC2\xB5\xC2\xB5\xC2\xB5\xC2\xB5", 6, bytes), "\xC2\xB5...");  // never half a character
}

// The reason for all this: ImGui's wrapping, with room for the whole code span on a line of its
// own, cuts it at a dot instead.
TEST(WrapLines, ImGuiItselfBreaksAfterADot) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // a test leaves no imgui.ini behind in the folder it ran in
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  ImFont* font = io.Fonts->Fonts[0];
  const std::string text = "call x.to(torch.float32)";
  const float size = font->FontSize;
  const auto measure = [&](std::string_view s) {
    return font->CalcTextSizeA(size, 1e9f, 0, s.data(), s.data() + s.size()).x;
  };
  const float width = measure("x.to(torch.float32)");  // room for the code, not for the line
  const char* imgui_end = font->CalcWordWrapPositionA(1.0f, text.data(), text.data() + text.size(), width);
  EXPECT_EQ(std::string(text.data(), imgui_end), "call x.to(torch.");
  const auto ours = wrap_lines(text, width, measure);
  ASSERT_EQ(ours.size(), 2u);
  EXPECT_EQ(ours[0], "call");
  EXPECT_EQ(ours[1], "x.to(torch.float32)");
  ImGui::DestroyContext();
}

// Bug: a link button that wraps ("open: 65520 in every format, float16" over "marked") was
// exactly its lines high, and the last line's descenders touched its border.
TEST(WrappingSmallButton, LeavesRoomAroundItsLines) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(400, 300);
  io.DeltaTime = 1.0f / 60.0f;
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  ImGui::NewFrame();
  ImGui::SetNextWindowSize(ImVec2(200, 200));
  ImGui::Begin("links");
  wrapping_small_button("open: 65520 in every format, float16 marked##link0");
  const float height = ImGui::GetItemRectSize().y, line = ImGui::GetTextLineHeight();
  ImGui::End();
  ImGui::Render();
  const float lines = std::round(height / line);
  EXPECT_GE(lines, 2.0f);  // (it wrapped)
  EXPECT_GE(height, lines * line + 2.0f);
  ImGui::DestroyContext();
}

// A scenario's status keeps its time whole where it wraps: "(0.00" ended one line of the bar and
// "s)" stood alone on the next.
TEST(WrapLines, AScenarioStatusKeepsItsTimeOnOneLine) {
  const std::string status = run_status("9 of 9 checks pass", 0.0);
  for (float width = 9; width <= static_cast<float>(status.size()); ++width) {  // 9: "(0.00 s)" itself
    const std::vector<std::string> lines = lines_of(status, width);
    EXPECT_NE(lines.back(), "s)") << width;
    EXPECT_NE(lines.back().find("(0.00"), std::string::npos) << width << ": " << lines.back();
  }
}

}  // namespace
}  // namespace pl::ui
