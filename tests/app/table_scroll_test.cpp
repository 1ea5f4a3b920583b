// A row a link points at is scrolled into view by whole rows. SetScrollHereY(0.3) left the row
// above it half under the table's frozen header (the Formats table in scenarios 12 and 19, the
// Promotion grid in scenario 23), and where the scroll stopped at its limit, a part of a row
// short of the last whole one, the clamp did the same.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>

#include "app/ui/widgets/flow_layout.h"

namespace pl::ui {
namespace {

class TableScrollFrames : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(800, 600);
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override { ImGui::DestroyContext(); }

  // Draws `frames` frames of a `rows`-row table `height` px tall with a frozen header, scrolling
  // to `target`; returns the table's scroll and its row height on the last frame.
  std::pair<float, float> scroll_after(int frames, int rows, float height, int target) {
    int waited = 0;
    bool settled = false;
    float scroll = -1, row_h = 0, first_y = 0;
    for (int f = 0; f < frames; ++f) {
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(ImVec2(800, 600));
      ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
      if (ImGui::BeginTable("t", 2, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg, ImVec2(0, height))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("a");
        ImGui::TableSetupColumn("b");
        ImGui::TableHeadersRow();
        for (int r = 0; r < rows; ++r) {
          ImGui::TableNextRow();
          if (r == 0) first_y = ImGui::GetCursorPosY();
          if (r == 1) row_h = ImGui::GetCursorPosY() - first_y;
          if (r == target && !settled) settled = scroll_to_row(size_t(r), first_y, 2, waited);
          ImGui::TableNextColumn();
          ImGui::Text("row %d", r);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted("value");
        }
        scroll = ImGui::GetScrollY();
        ImGui::EndTable();
      }
      ImGui::End();
      ImGui::Render();
    }
    return {scroll, row_h};
  }
};

TEST_F(TableScrollFrames, ARowInTheMiddleHasTwoWholeRowsAboveIt) {
  const auto [scroll, row_h] = scroll_after(6, 40, 203.0f, 20);
  ASSERT_GT(row_h, 0);
  EXPECT_FLOAT_EQ(scroll, 18 * row_h);
}

TEST_F(TableScrollFrames, NearTheEndItStopsAtAWholeRow) {
  // 203 px is not a whole number of rows: the scroll's limit falls inside a row.
  const auto [scroll, row_h] = scroll_after(6, 40, 203.0f, 39);
  ASSERT_GT(row_h, 0);
  EXPECT_GT(scroll, 0);
  EXPECT_NEAR(std::fmod(scroll, row_h), 0.0f, 0.01f) << "scroll " << scroll << ", row " << row_h;
}

}  // namespace
}  // namespace pl::ui
