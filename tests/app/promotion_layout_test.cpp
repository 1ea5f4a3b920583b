// The Promotion panel's layout, drawn in frames: where the selected pair's answer goes beside
// the grid, and where below it.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cstring>

#include "app/ui/panels/promotion_panel.h"

namespace pl::ui {
namespace {

class PromotionLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // a test leaves no imgui.ini behind in the folder it ran in
    io.DisplaySize = ImVec2(1280, 700);
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // (no renderer: the atlas is built, never drawn)
  }
  void TearDown() override { ImGui::DestroyContext(); }

  // Draws the panel for a few frames in a window filling the display.
  void draw(PromotionPanel& panel) {
    for (int f = 0; f < 4; ++f) {
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

  RunLog log{false};
};

// Bug: scenario 04's grid (b a Python int: one column) stood above its answer as in a full grid,
// six rows over a cut answer with 1000 px of pane beside it empty. A grid that narrow has the
// answer beside it, in the whole height.
TEST_F(PromotionLayout, ANarrowGridHasItsAnswerBesideIt) {
  PromotionPanel panel{log};
  PromotionPanel::StartState start;
  start.framework = "torch";
  start.op = "add";
  start.b_kind = "scalar";
  start.b_value = "1000";
  start.compare = true;
  start.compare_with = "numpy";
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

// A grid of every dtype keeps the answer below it, where the split between them moves.
TEST_F(PromotionLayout, AWideGridHasItsAnswerBelowIt) {
  PromotionPanel panel{log};
  PromotionPanel::StartState start;
  start.framework = "torch";
  start.op = "add";
  start.b_kind = "tensor";
  start.select = "int32,float32";
  ASSERT_TRUE(panel.configure(start).ok());
  draw(panel);
  EXPECT_EQ(drawn("promotion-answer"), nullptr);
  const ImGuiWindow *top = drawn("promotion-top"), *bottom = drawn("promotion-bottom");
  ASSERT_NE(top, nullptr);
  ASSERT_NE(bottom, nullptr);
  EXPECT_GE(bottom->Pos.y, top->Pos.y + top->Size.y);
}

}  // namespace
}  // namespace pl::ui
