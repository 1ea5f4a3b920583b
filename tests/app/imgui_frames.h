// A test fixture that draws Dear ImGui frames with no window or renderer: a context of its own
// for each test, the font atlas built (never drawn), nothing saved, the display `display` large.
#pragma once

#include <gtest/gtest.h>
#include <imgui.h>

#include <chrono>
#include <thread>

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

  // Frames of the panel until its work is done (a minute at most), then one more, as the window
  // draws them while a worker runs.
  template <class Panel>
  static void frames_until_idle(Panel& panel, const char* window) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    panel_frame(panel, window);
    while (panel.busy() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      panel_frame(panel, window);
    }
    ASSERT_FALSE(panel.busy());
    panel_frame(panel, window);
  }

 private:
  ImVec2 display_;
};

}  // namespace pl::ui
