// A test fixture that draws Dear ImGui frames with no window or renderer: a context of its own
// for each test, the font atlas built (never drawn), nothing saved, the display `display` large.
#pragma once

#include <gtest/gtest.h>
#include <imgui.h>

namespace pl::ui {

class ImGuiFrames : public ::testing::Test {
 protected:
  explicit ImGuiFrames(ImVec2 display = ImVec2(800, 600)) : display_(display) {}
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // a test leaves no imgui.ini behind in the folder it ran in
    io.DisplaySize = display_;
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override { ImGui::DestroyContext(); }

  // One frame of a panel's content in a window of its own, `window`.
  template <class Panel>
  static void panel_frame(Panel& panel, const char* window) {
    ImGui::NewFrame();
    ImGui::Begin(window);
    panel.draw_content();
    ImGui::End();
    ImGui::Render();
  }

 private:
  ImVec2 display_;
};

}  // namespace pl::ui
