// The Checkpoint panel driven through Dear ImGui frames with no window: its plan line.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/ui/panels/checkpoint_panel.h"
#include "app/ui/shell/run_log.h"
#include "core/experiment/scan/scan_json.h"
#include "core/io/file_read.h"
#include "tests/app/imgui_frames.h"

namespace pl::ui {
namespace {

class CheckpointPanelFrames : public ImGuiFrames {
 protected:
  static void until_scanned(CheckpointPanel& panel) { frames_until_idle(panel, "checkpoint"); }
};

// One float32 tensor `w` of 4 x 64 values, each a bfloat16, as safetensors: an 8-byte header
// length, the header, the data.
void write_bfloat16_valued_file(const std::string& file) {
  std::vector<float> v(4 * 64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 17) * 0.25f - 2;
  const std::string header =
      R"({"w":{"dtype":"F32","shape":[4,64],"data_offsets":[0,)" + std::to_string(4 * v.size()) + "]}}";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[size_t(i)] = char((header.size() >> (8 * i)) & 0xff);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(v.data()), 4 * v.size());
  std::ofstream out(file, std::ios::binary);
  out << bytes;
  ASSERT_TRUE(out.flush()) << file;
}

// Bug: a plan without error read "SQNR exact dB". It reads "SQNR exact", as scan's does.
TEST_F(CheckpointPanelFrames, AnErrorFreePlansLineSaysExactWithoutAUnit) {
  const std::string file = ::testing::TempDir() + "/bfloat16-valued.safetensors";
  write_bfloat16_valued_file(file);
  RunLog log{false};
  CheckpointPanel panel{log};
  EXPECT_EQ(panel.plan_line(), "");  // no plan before a scan
  panel.open(file, {}, "bfloat16");
  until_scanned(panel);
  EXPECT_EQ(panel.plan_line(), "plan (highlighted): 16.000 bits/param, SQNR exact");
  std::filesystem::remove(file);
}

// A plan with error gives its SQNR in dB.
TEST_F(CheckpointPanelFrames, APlansLineGivesItsSqnrInDecibels) {
  const std::string file = ::testing::TempDir() + "/float8-lossy.safetensors";
  write_bfloat16_valued_file(file);
  RunLog log{false};
  CheckpointPanel panel{log};
  panel.open(file, {}, "float8_e4m3fn:per-channel");
  until_scanned(panel);
  const std::string line = panel.plan_line();
  EXPECT_TRUE(line.starts_with("plan (highlighted): 8.500 bits/param, SQNR ")) << line;
  EXPECT_TRUE(line.ends_with(" dB")) << line;
  EXPECT_EQ(line.find("exact"), std::string::npos) << line;
  std::filesystem::remove(file);
}

// Export plan writes the folder scan --out writes, off the UI thread: the result reads back as
// scan --merge reads a part, with the plan on screen in it.
TEST_F(CheckpointPanelFrames, ExportPlanWritesTheFolderScanOutWrites) {
  const std::string file = ::testing::TempDir() + "/export-plan.safetensors";
  const std::string root = ::testing::TempDir() + "/export-plan-root";
  std::filesystem::remove_all(root);
  write_bfloat16_valued_file(file);
  RunLog log{false};
  CheckpointPanel panel{log};
  EXPECT_EQ(panel.export_plan(root), "nothing to export yet");
  panel.open(file, {}, "float8_e4m3fn:per-channel,bfloat16");
  until_scanned(panel);
  ASSERT_NE(panel.plan_line(), "");
  EXPECT_TRUE(panel.export_plan(root).starts_with("exporting to " + root + "/")) << panel.export_status();
  until_scanned(panel);
  const std::string said = panel.export_status();
  ASSERT_TRUE(said.starts_with("exported to " + root + "/")) << said;
  const std::string dir = said.substr(12, said.find(' ', 12) - 12);
  for (const char* name :
       {"result.json", "tensors.csv", "frontier.csv", "plan.csv", "sqnr-heatmap.png", "plan-frontier.svg"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + name)) << dir << "/" << name;
  auto j = io::read_json_file(dir + "/result.json");
  ASSERT_TRUE(j) << j.error();
  auto back = experiment::scan_from_json(*j, dir);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->tensors.size(), 1u);
  ASSERT_TRUE(j->contains("plan"));
  const nlohmann::json& plan = (*j)["plan"];
  ASSERT_TRUE(plan.contains("tensors") && plan["tensors"].contains("w")) << plan.dump();
  EXPECT_TRUE(plan["tensors"]["w"]["candidate"].is_string()) << plan.dump();
  std::filesystem::remove_all(root);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace pl::ui
