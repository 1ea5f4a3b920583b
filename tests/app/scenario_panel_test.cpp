// The Scenarios panel works a scenario's exact checks out off the UI thread: a running sum may
// take seconds, and the tour's frames go on meanwhile.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

#include <gtest/gtest.h>

#include "app/ui/panels/scenario_panel.h"
#include "tests/app/imgui_frames.h"

namespace pl::ui {
namespace {

namespace fs = std::filesystem;

class ScenarioPanelFrames : public ImGuiFrames {
 protected:
  void SetUp() override {
    ImGuiFrames::SetUp();
    config_ = fs::temp_directory_path() / ("pl-scenario-panel-" + std::to_string(::getpid()));
    fs::create_directories(config_ / "precision-lab" / "scenarios");
    ASSERT_EQ(::setenv("XDG_CONFIG_HOME", config_.c_str(), 1), 0);
  }
  void TearDown() override {
    ::unsetenv("XDG_CONFIG_HOME");
    fs::remove_all(config_);
    ImGuiFrames::TearDown();
  }
  void write_scenario(const std::string& file, const std::string& text) {
    std::ofstream(config_ / "precision-lab" / "scenarios" / file) << text;
  }
  static void frame(ScenarioPanel& panel) { panel_frame(panel, "scenarios"); }
  // A user's scenario "99-long-sum" whose one exact check adds 1 `count` times in float64.
  void write_long_sum(long long count) {
    const std::string n = std::to_string(count);
    write_scenario("99-long-sum.json", R"({"name": "99-long-sum", "title": "A long running sum",
      "story": "1 added )" + n + R"( times in float64.", "look_at": "the check", "panel": "formats",
      "checks": [{"id": "long", "label": "1 added )" + n + R"( times in float64", "expect": ")" + n + R"(",
                  "running_sum": {"value": "1", "count": )" + n + R"(, "dtype": "float64"}}]})");
  }
  // Frames until the panel's work is done, at most `seconds`; then one more, which takes its
  // results. False where the work outlasted them.
  [[nodiscard]] static bool frames_until_idle(ScenarioPanel& panel, int seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (panel.busy() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      frame(panel);
    }
    if (panel.busy()) return false;
    frame(panel);
    return true;
  }

 private:
  fs::path config_;
};

// Bug: beside the figures, presentation mode gave every story 44% of the pane's width, and a
// short one (scenario 15 at 1920x1080) filled half its column beside a plot 430 px wide.
TEST(BesideStoryShare, AShortStoryLeavesItsWidthToTheFigures) {
  const float pane_w = 1900, pane_h = 960, widest = std::floor(pane_w * kBesideStoryShare);
  // A story that fills its column at the widest share keeps it; so does one that overflows it.
  EXPECT_EQ(beside_story_share(pane_h, widest, pane_w, pane_h), kBesideStoryShare);
  EXPECT_EQ(beside_story_share(3 * pane_h, widest, pane_w, pane_h), kBesideStoryShare);
  // One a third as high is narrowed to the narrowest share; one of 70% in between, wrapped to
  // fill three quarters of the pane.
  EXPECT_EQ(beside_story_share(pane_h / 3, widest, pane_w, pane_h), kNarrowestStoryShare);
  const float most = beside_story_share(0.7f * pane_h, widest, pane_w, pane_h);
  EXPECT_GT(most, kNarrowestStoryShare);
  EXPECT_LT(most, kBesideStoryShare);
  EXPECT_NEAR(most * pane_w * 0.75f * pane_h, widest * 0.7f * pane_h, 100.0f);
  // Nothing measured yet: the widest.
  EXPECT_EQ(beside_story_share(0, widest, pane_w, pane_h), kBesideStoryShare);
}

// Bug: choosing a scenario worked its exact checks out on the UI thread, and reading the file ran
// each probe once more: a user's scenario whose running sum takes 1e8 steps in float64 (seconds)
// froze the window at start and at each visit. (2e7 steps keep the test short, and still take
// far longer than a frame.)
TEST_F(ScenarioPanelFrames, ALongExactCheckIsWorkedOutOffTheUIThread) {
  write_long_sum(20000000);
  RunLog log{false};
  ScenarioPanel panel(log, "99-long-sum");
  ASSERT_EQ(panel.start_error(), "");
  ASSERT_EQ(panel.scenario().name, "99-long-sum");
  frame(panel);
  // The frame came back with the sum still under way.
  EXPECT_TRUE(panel.busy());
  EXPECT_TRUE(panel.checks_shown().empty());
  ASSERT_TRUE(frames_until_idle(panel, 120));
  // The exact checks' own worker answered, and the table shows its answers with the evidence run.
  for (const auto* rows : {&panel.exact_checks(), &panel.checks_shown()}) {
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_TRUE((*rows)[0].passed) << (*rows)[0].observed << " " << (*rows)[0].note;
  }
}

// Bug: the evidence run worked the exact checks out again after their own worker had (a running
// sum of 1e8 steps, seconds, twice at each visit). It must leave them to that worker. Both are
// asked to stop as soon as they start: the sum stops at its next look at the flag, and so would an
// evidence run that took it too, "cancelled"; this scenario has no evidence, so its evidence run
// is done, and waits for exact checks that will not come.
TEST_F(ScenarioPanelFrames, TheEvidenceRunLeavesTheExactChecksToTheirOwnWorker) {
  write_long_sum(100000000);
  RunLog log{false};
  ScenarioPanel panel(log, "99-long-sum");
  ASSERT_EQ(panel.start_error(), "");
  frame(panel);
  panel.stop_work();
  ASSERT_TRUE(frames_until_idle(panel, 60));
  EXPECT_TRUE(panel.evidence_waits_for_exact_checks());
  EXPECT_TRUE(panel.exact_checks().empty());  // cancelled
  EXPECT_TRUE(panel.checks_shown().empty());
}

}  // namespace
}  // namespace pl::ui
