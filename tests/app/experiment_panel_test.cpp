// The Experiment panel driven through Dear ImGui frames with no window: its status line.
#include <gtest/gtest.h>
#include <imgui.h>

#include "app/ui/panels/experiment_panel.h"
#include "app/ui/shell/run_log.h"
#include "tests/app/imgui_frames.h"

namespace pl::ui {
namespace {

class ExperimentPanelFrames : public ImGuiFrames {};

// Bug: a roundtrip, a dot sweep or a training run left the status line at "computed", where a
// matrix product's said "computed in 0.010 s". Every kind says how long it took.
TEST_F(ExperimentPanelFrames, ARoundtripsStatusSaysHowLongItTook) {
  RunLog log;
  ExperimentPanel panel{log};
  ASSERT_TRUE(panel.use_setup(nlohmann::json::parse(
      R"({"experiment": "roundtrip", "rows": 512, "cols": 4096, "dtype": "float8_e4m3fn", "scaling": "mx"})")));
  frames_until_idle(panel, "experiment");
  EXPECT_TRUE(panel.status().starts_with("computed in ")) << panel.status();
  EXPECT_TRUE(panel.status().ends_with(" s")) << panel.status();
  // (Two million values take milliseconds anywhere: a time the worker did not take reads 0.000.)
  EXPECT_NE(panel.status(), "computed in 0.000 s");
}

// Bug: the setup column, taller than its pane, was cut through its last line (a setup's error
// under Run) with nothing but the scrollbar to say more follows. It marks its edge, as every pane
// that scrolls does: the marker is drawn on the foreground list.
TEST_F(ExperimentPanelFrames, ASetupColumnPastItsPanesEdgeSaysSo) {
  RunLog log;
  ExperimentPanel panel{log};
  const auto foreground_vertices = [&](float height) {
    int vertices = 0;
    for (int frame = 0; frame < 3; ++frame) {  // (the child's scroll range is known from its second frame)
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(ImVec2(800, height));
      ImGui::Begin("experiment", nullptr, ImGuiWindowFlags_NoDecoration);
      panel.draw_content();
      ImGui::End();
      vertices = ImGui::GetForegroundDrawList()->VtxBuffer.Size;
      ImGui::Render();
    }
    return vertices;
  };
  EXPECT_EQ(foreground_vertices(3000), 0);  // nothing past a pane that holds it all: no marker
  EXPECT_GT(foreground_vertices(300), 0);   // the column runs past a 300 px pane
}

}  // namespace
}  // namespace pl::ui
