// The Promotion panel's layout, drawn in frames: where the selected pair's answer goes beside
// the grid, and where below it.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "app/ui/panels/promotion_panel.h"
#include "tests/app/imgui_frames.h"

namespace pl::ui {
namespace {

class PromotionLayout : public ImGuiFrames {
 protected:
  PromotionLayout() : ImGuiFrames(ImVec2(1280, 700)) {}

  // Draws the panel for a few frames in a window filling the display.
  void draw(PromotionPanel& panel, int frames = 4) {
    for (int f = 0; f < frames; ++f) {
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
      ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
      panel.draw_content();
      ImGui::End();
      ImGui::Render();
    }
  }
  // The child window drawn on the last frame whose name holds `part`, or null.
  static const ImGuiWindow* drawn(const char* part) {
    for (const ImGuiWindow* w : GImGui->Windows)
      if (w->Active && std::strstr(w->Name, part)) return w;
    return nullptr;
  }

  // Scenario 04's grid: PyTorch's add of a tensor and the Python int 1000, against NumPy's.
  static PromotionPanel::StartState scenario_04() {
    PromotionPanel::StartState start;
    start.framework = "torch";
    start.op = "add";
    start.b_kind = "scalar";
    start.b_value = "1000";
    start.compare = true;
    start.compare_with = "numpy";
    return start;
  }

  // PyTorch's add of two tensors, every dtype, int32 and float32 selected.
  static PromotionPanel::StartState every_torch_dtype() {
    PromotionPanel::StartState start;
    start.framework = "torch";
    start.op = "add";
    start.b_kind = "tensor";
    start.select = "int32,float32";
    return start;
  }

  RunLog log{false};
};

// Bug: scenario 04's grid (b a Python int: one column) stood above its answer as in a full grid,
// six rows over a cut answer with 1000 px of pane beside it empty. A grid that narrow has the
// answer beside it, in the whole height.
TEST_F(PromotionLayout, ANarrowGridHasItsAnswerBesideIt) {
  PromotionPanel panel{log};
  PromotionPanel::StartState start = scenario_04();
  start.select = "uint8,int64";
  ASSERT_TRUE(panel.configure(start).ok());
  draw(panel);
  const ImGuiWindow *grid = drawn("promotion-grid"), *answer = drawn("promotion-answer");
  ASSERT_NE(grid, nullptr);
  ASSERT_NE(answer, nullptr);
  EXPECT_EQ(answer->Pos.y, grid->Pos.y);                 // side by side
  EXPECT_GE(answer->Pos.x, grid->Pos.x + grid->Size.x);  // the answer right of the grid
  EXPECT_LT(grid->Size.x, 0.45f * 1280);
  EXPECT_GT(grid->Size.y, 0.5f * 700);  // the whole height, not a share of it
}

// Bug: in a scenario's live pane (compact), Left/Right went to the next scenario and also moved
// the grid's selected cell, undoing the pair the scenario's link chose. The scenario owns the
// arrow keys there; the Promotion tab's own grid still takes them.
TEST_F(PromotionLayout, ACompactGridLeavesTheArrowKeysToTheScenario) {
  // (This ImGui reads keys through io.KeyMap, as the GLFW backend fills it: GLFW_KEY_RIGHT.)
  constexpr int kRight = 262;
  ImGui::GetIO().KeyMap[ImGuiKey_RightArrow] = kRight;
  auto press_right = [&](PromotionPanel& panel) {
    ImGui::GetIO().KeysDown[kRight] = true;
    draw(panel, 1);
    ImGui::GetIO().KeysDown[kRight] = false;
    draw(panel, 1);
  };
  for (const bool compact : {true, false}) {
    PromotionPanel panel{log};
    ASSERT_TRUE(panel.configure(every_torch_dtype()).ok());
    panel.set_compact(compact);
    draw(panel);
    const auto before = panel.selected_outcome();
    ASSERT_TRUE(before && before->ok());
    press_right(panel);
    const auto after = panel.selected_outcome();
    ASSERT_TRUE(after && after->ok());
    EXPECT_EQ(after->rule == before->rule && after->result == before->result, compact) << after->rule;
  }
}

// The tops of the colour key's swatches the panel's window drew on the last frame: its filled
// squares a line of text high.
std::vector<float> swatch_tops() {
  const ImGuiWindow* panel = ImGui::FindWindowByName("panel");
  const ImDrawList* draw = panel->DrawList;
  const float h = ImGui::GetTextLineHeight();
  std::vector<float> tops;
  for (int i = 0; i + 3 < draw->VtxBuffer.Size; ++i) {
    const ImDrawVert* v = &draw->VtxBuffer[i];
    if (v[0].col != v[1].col || v[0].col != v[2].col || v[0].col != v[3].col) continue;
    if (v[0].uv.x != v[2].uv.x || v[0].uv.y != v[2].uv.y) continue;  // (a glyph's quad samples the font)
    const float w = v[2].pos.x - v[0].pos.x, hh = v[2].pos.y - v[0].pos.y;
    if (std::abs(w - h) < 0.5f && std::abs(hh - h) < 0.5f) tops.push_back(v[0].pos.y), i += 3;
  }
  return tops;
}

// Bug: the colour key's chips each went on the line before them where each fitted: after a
// scenario's caption "one operand's dtype" stood at the end of the caption's last line and the
// rest of the key under it (scenario 04 at 1920x1080), and at 1280x800 "raises" took a line
// alone. The key stays on one line wherever the window is wide enough for it.
TEST_F(PromotionLayout, TheColourKeyStaysOnOneLine) {
  PromotionPanel panel{log};
  const PromotionPanel::StartState start = scenario_04();
  panel.set_compact(true);  // (the caption in a line of text, as a scenario shows it)
  ASSERT_TRUE(panel.configure(start).ok());
  for (float width = 500; width <= 1500; width += 10) {
    ImGui::GetIO().DisplaySize = ImVec2(width, 700);
    draw(panel, 3);
    const std::vector<float> tops = swatch_tops();
    ASSERT_GE(tops.size(), 4u) << width;
    for (const float top : tops) EXPECT_EQ(top, tops[0]) << "at " << width << " px";
  }
}

// Where the panel's window drew its first checkbox on the last frame: the first square in the
// frames' colour (a combo's arrow is a square in the buttons' colour). That is "compare with".
ImVec2 first_checkbox() {
  const ImGuiWindow* window = ImGui::FindWindowByName("panel");
  const float box = ImGui::GetFrameHeight();
  const ImU32 frame = ImGui::GetColorU32(ImGuiCol_FrameBg);
  for (int i = 0; i + 3 < window->DrawList->VtxBuffer.Size; ++i) {
    const ImDrawVert* v = &window->DrawList->VtxBuffer[i];
    if (v[0].col != frame || v[2].col != frame || v[0].uv.x != v[2].uv.x || v[0].uv.y != v[2].uv.y) continue;
    const float w = v[2].pos.x - v[0].pos.x, h = v[2].pos.y - v[0].pos.y;
    if (std::abs(w - box) < 0.5f && std::abs(h - box) < 0.5f) return v[0].pos;
  }
  return ImVec2(-1, -1);
}

// Bug: with the compared setting run on after the first one, its controls wrapped under the
// first setting's and read as its own ("b zero-dim tensor  a on cpu  b on cpu" under "... b on
// cpu  compare with torch 2.15.0  op add  a tensor" at 1600x1000). The compared setting starts
// a line of its own, with its checkbox at the panel's left edge.
TEST_F(PromotionLayout, TheComparedSettingStartsALineOfItsOwn) {
  PromotionPanel panel{log};
  ASSERT_TRUE(panel.configure(scenario_04()).ok());
  ImGui::GetIO().DisplaySize = ImVec2(1600, 1000);
  draw(panel, 3);
  const ImVec2 box = first_checkbox();
  ASSERT_GE(box.x, 0);
  EXPECT_NEAR(box.x, ImGui::FindWindowByName("panel")->Pos.x + ImGui::GetStyle().WindowPadding.x, 0.5f);
}

// Bug: ticking "compare with" moved its checkbox from the end of the first line to the start of
// the second, away from the pointer that ticked it. It stays where it was.
TEST_F(PromotionLayout, TheCompareCheckboxStaysWhereItIsWhenTicked) {
  for (const float width : {1280.0f, 1600.0f, 1920.0f}) {
    PromotionPanel panel{log};
    PromotionPanel::StartState start;
    start.framework = "torch";
    start.op = "add";
    start.b_kind = "tensor";
    ASSERT_TRUE(panel.configure(start).ok());
    ImGui::GetIO().DisplaySize = ImVec2(width, 1000);
    draw(panel, 3);
    const ImVec2 unticked = first_checkbox();
    start.compare = true;
    start.compare_with = "numpy";
    ASSERT_TRUE(panel.configure(start).ok());
    draw(panel, 3);
    const ImVec2 ticked = first_checkbox();
    ASSERT_GE(unticked.x, 0) << width;
    EXPECT_EQ(ticked.x, unticked.x) << width;
    EXPECT_EQ(ticked.y, unticked.y) << width;
  }
}

// A grid of every dtype keeps the answer below it, where the split between them moves.
TEST_F(PromotionLayout, AWideGridHasItsAnswerBelowIt) {
  PromotionPanel panel{log};
  ASSERT_TRUE(panel.configure(every_torch_dtype()).ok());
  draw(panel);
  EXPECT_EQ(drawn("promotion-answer"), nullptr);
  const ImGuiWindow *top = drawn("promotion-top"), *bottom = drawn("promotion-bottom");
  ASSERT_NE(top, nullptr);
  ASSERT_NE(bottom, nullptr);
  EXPECT_GE(bottom->Pos.y, top->Pos.y + top->Size.y);
}

// Bug: at 1920 px the grid of every dtype (about half the width) stood above its answer with the
// pane beside it and the lower half of the window empty. A grid up to 55% of the width has its
// answer beside it.
TEST_F(PromotionLayout, AGridOfHalfTheWidthHasItsAnswerBesideIt) {
  const ImVec2 display(1920, 1080);
  PromotionPanel panel{log};
  ASSERT_TRUE(panel.configure(every_torch_dtype()).ok());
  ImGui::GetIO().DisplaySize = display;
  draw(panel);
  const ImGuiWindow *grid = drawn("promotion-grid"), *answer = drawn("promotion-answer");
  ASSERT_NE(grid, nullptr);
  ASSERT_NE(answer, nullptr);
  EXPECT_GT(grid->Size.x, 0.45f * display.x) << "a grid this narrow was beside its answer before";
  EXPECT_GE(answer->Pos.x, grid->Pos.x + grid->Size.x);
}

// The narrowed-class buttons the window `w` drew on the last frame: filled rectangles of the
// narrowed class's colour wider than two lines of text (its key's swatch is a square).
std::vector<ImVec2> narrowed_button_centres(const ImGuiWindow* w) {
  const ImU32 narrowed = IM_COL32(150, 100, 0, 255);
  const float h = ImGui::GetTextLineHeight();
  std::vector<ImVec2> centres;
  const ImDrawList* draw = w->DrawList;
  for (int i = 0; i + 3 < draw->VtxBuffer.Size; ++i) {
    const ImDrawVert* v = &draw->VtxBuffer[i];
    if (v[0].col != narrowed || v[1].col != narrowed || v[2].col != narrowed || v[3].col != narrowed) continue;
    if (v[2].pos.x - v[0].pos.x > 2 * h)
      centres.push_back({(v[0].pos.x + v[2].pos.x) / 2, (v[0].pos.y + v[2].pos.y) / 2}), i += 3;
  }
  return centres;
}

// Bug: with no pair chosen, the pane beside the grid of every dtype held one line of help, and
// 900 px of nothing under it at 1920x1080. It sums the grid up by class, and each pair that
// narrows is a button to its cell.
TEST_F(PromotionLayout, TheEmptyPaneBesideTheGridSumsItUp) {
  ImGui::GetIO().DisplaySize = ImVec2(1920, 1080);
  PromotionPanel panel{log};
  PromotionPanel::StartState start = every_torch_dtype();
  start.select.clear();
  ASSERT_TRUE(panel.configure(start).ok());
  draw(panel);
  const PromotionPanel::Overview& overview = panel.overview();
  // Every cell drawn counted once: a square grid, each pair of the dtypes shown.
  int total = 0;
  for (int k : overview.count) total += k;
  const int side = int(std::lround(std::sqrt(double(total))));
  EXPECT_EQ(side * side, total);
  EXPECT_GT(side, 10);
  EXPECT_EQ(size_t(overview.count[size_t(promote::OutcomeClass::Narrowed)]), overview.narrowed.size());
  EXPECT_GT(overview.count[size_t(promote::OutcomeClass::Widened)], 0);  // float16 + bfloat16 among them
  auto listed = [&](const char* label) {
    for (const auto& pair : overview.narrowed)
      if (pair.label == label) return true;
    return false;
  };
  EXPECT_TRUE(listed("i32, f32 -> f32"));  // int32's digits past 2^24
  EXPECT_TRUE(listed("f16, i16 -> f16"));
  EXPECT_FALSE(listed("f16, bf16 -> f32"));  // widened
  EXPECT_FALSE(panel.selected_outcome().has_value());

  // A click on the first button chooses its pair, as a click on its cell does.
  const ImGuiWindow* answer = drawn("promotion-answer");
  ASSERT_NE(answer, nullptr);
  const std::vector<ImVec2> buttons = narrowed_button_centres(answer);
  ASSERT_EQ(buttons.size(), overview.narrowed.size());
  const PromotionPanel::NarrowedPair first = overview.narrowed.front();
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = buttons.front();
  draw(panel, 1);
  io.MouseDown[0] = true;
  draw(panel, 1);
  io.MouseDown[0] = false;
  draw(panel, 1);
  const auto chosen = panel.selected_outcome();
  ASSERT_TRUE(chosen.has_value());
  ASSERT_TRUE(chosen->ok());
  EXPECT_NE(first.label.find(" -> " + short_name(*chosen->result)), std::string::npos) << first.label;
  EXPECT_EQ(first.label, "f64, i64 -> f64");  // the first row's first narrowing pair
}

// The same where the grid stands above the pane (1600x1000: the grid is wider than 55% of the
// window), which held one line of help over 480 px.
TEST_F(PromotionLayout, ThePaneBelowTheGridSumsItUpToo) {
  ImGui::GetIO().DisplaySize = ImVec2(1600, 1000);
  PromotionPanel panel{log};
  PromotionPanel::StartState start = every_torch_dtype();
  start.select.clear();
  ASSERT_TRUE(panel.configure(start).ok());
  draw(panel);
  EXPECT_EQ(drawn("promotion-answer"), nullptr);  // stacked
  const ImGuiWindow* bottom = drawn("promotion-bottom");
  ASSERT_NE(bottom, nullptr);
  EXPECT_FALSE(narrowed_button_centres(bottom).empty());
}

// Bug: uint8 + the Python int 1000 -> uint8 was drawn as keeping an operand's dtype, though 1000
// is no uint8 value (scenario 04: the sum wraps). Such a scalar's cells are narrowed.
TEST_F(PromotionLayout, AScalarTheResultCannotHoldIsNarrowed) {
  ImGui::GetIO().DisplaySize = ImVec2(1920, 1080);
  PromotionPanel panel{log};
  PromotionPanel::StartState start;
  start.framework = "torch";
  start.op = "add";
  start.b_kind = "scalar";
  start.b_value = "1000";
  ASSERT_TRUE(panel.configure(start).ok());
  draw(panel);
  std::vector<std::string> labels;
  for (const auto& pair : panel.overview().narrowed) labels.push_back(pair.label);
  for (const char* label : {"u8, int -> u8", "i8, int -> i8"})
    EXPECT_NE(std::find(labels.begin(), labels.end(), label), labels.end()) << label;
  for (const char* label : {"i16, int -> i16", "i64, int -> i64"})  // 1000 fits
    EXPECT_EQ(std::find(labels.begin(), labels.end(), label), labels.end()) << label;
}

}  // namespace
}  // namespace pl::ui
