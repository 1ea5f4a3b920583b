// The Experiment panel's dot sweep in the window: a sweep far past interactive scale (a length of
// 2^24 with 10^6 trials: days) never starts on the automatic re-run after an edit -- the panel
// shows its estimate and waits for Run -- while a small one runs and reports its estimate.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <string>

#include "app/ui/views/experiment_kinds.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/experiment/spec/train_json.h"
#include "tests/app/imgui_frames.h"

namespace pl::ui {
namespace {

using namespace experiment;

nlohmann::json sweep_file(size_t length, int trials) {
  DotSweepConfig c;
  c.lengths = {length};
  c.trials = trials;
  c.models = {*parse_accumulation("f32:sequential")};
  return to_json(c);
}

TEST(ExperimentKinds, AHugeSweepWaitsForRunWithItsEstimate) {
  std::string estimate;
  bool ran = false;
  auto run = run_other_kind(
      sweep_file(size_t{1} << 24, 1'000'000), /*asked=*/false, [&](const std::string& t) { estimate = t; },
      [&](double) { ran = true; }, nullptr);
  ASSERT_FALSE(run);
  EXPECT_TRUE(run.error().starts_with(kNotStarted)) << run.error();
  EXPECT_NE(run.error().find("press Run"), std::string::npos) << run.error();
  EXPECT_NE(run.error().find(estimate), std::string::npos) << run.error();
  EXPECT_NE(estimate.find("hours here"), std::string::npos) << estimate;
  EXPECT_FALSE(ran);  // the sweep itself never started: no progress was reported
}

TEST(ExperimentKinds, ASmallSweepRunsAndSaysItsEstimate) {
  std::string estimate;
  auto run = run_other_kind(
      sweep_file(64, 4), /*asked=*/false, [&](const std::string& t) { estimate = t; }, {}, nullptr);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->dot_rows.size(), 1u);
  EXPECT_NE(estimate.find("about 2.6e+02 terms"), std::string::npos) << estimate;
}

TEST(ExperimentKinds, OtherKindsHaveNoEstimate) {
  MlpConfig m;
  m.layer.m = m.layer.k = m.layer.n = 8;
  m.layer.op = MatmulOp::Linear;
  m.layers = 2;
  bool estimated = false;
  auto run = run_other_kind(
      to_json(m), false, [&](const std::string&) { estimated = true; }, {}, nullptr);
  ASSERT_TRUE(run) << run.error();
  EXPECT_FALSE(estimated);
}

// A training file opens in the panel (it was refused before) and comes back as the same file:
// the models, the sizes, the steps, the learning rate, the noise and the seed.
TEST(ExperimentKinds, ATrainFileOpensAndRunsInThePanel) {
  const nlohmann::json file = {{"experiment", "train"}, {"models", {"float32", "bfloat16", "bfloat16:float32"}},
                               {"features", 8},         {"samples", 64},
                               {"steps", 30},           {"learning_rate", 0.1},
                               {"noise", 0.02},         {"seed", 7u}};
  MatmulSpec spec;
  std::vector<Accumulation> models;
  OtherKindParams params;
  auto mode = read_other_kind(file, &spec, &models, &params);
  ASSERT_TRUE(mode) << mode.error();
  EXPECT_EQ(*mode, ExperimentMode::Train);
  EXPECT_EQ(params.train_models, "float32,bfloat16,bfloat16:float32");
  auto back = other_kind_file(ExperimentMode::Train, spec, models, params);
  ASSERT_TRUE(back) << back.error();
  auto config = train_config_from_json(*back);
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->features, 8u);
  EXPECT_EQ(config->samples, 64u);
  EXPECT_EQ(config->steps, 30u);
  EXPECT_EQ(config->learning_rate, 0.1);
  EXPECT_EQ(config->noise, 0.02);
  EXPECT_EQ(config->seed, 7u);
  ASSERT_EQ(config->models.size(), 3u);
  auto run = run_other_kind(*back, false, {}, {}, nullptr);
  ASSERT_TRUE(run) << run.error();
  ASSERT_TRUE(run->train);
  EXPECT_EQ(run->train->rows.size(), 3u);
  EXPECT_NE(other_kind_summary(*run).find("bfloat16:float32"), std::string::npos) << other_kind_summary(*run);
  params.train_models = "float32,int8";  // the panel's field says what is wrong
  auto bad = other_kind_file(ExperimentMode::Train, spec, models, params);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("int8"), std::string::npos) << bad.error();
}

// The sweep's table is as tall as its rows: sized a frame's height a row, it left an empty row's
// band under six rows of text.
class SweepTable : public ImGuiFrames {};

TEST_F(SweepTable, IsAsTallAsItsRows) {
  std::vector<DotSweepRow> rows(6);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].length = size_t{16} << i;
    rows[i].model = *parse_accumulation("f32:sequential");
    rows[i].stats.count = 1;
  }
  float height = 0, row = 0;
  for (int frame = 0; frame < 2; ++frame) {
    ImGui::NewFrame();
    ImGui::Begin("sweep table");
    draw_sweep_table(rows);
    const ImGuiTable* table = ImGui::TableFindByID(ImGui::GetID("sweep"));
    ASSERT_NE(table, nullptr);
    height = table->OuterRect.GetHeight();
    row = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
    ImGui::End();
    ImGui::Render();
  }
  // The header and six rows, and the border's pixel or two.
  EXPECT_NEAR(height, 7 * row, 3.0f);
}

}  // namespace
}  // namespace pl::ui

