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

}  // namespace
}  // namespace pl::ui
