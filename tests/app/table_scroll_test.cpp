// A row a link points at is scrolled into view by whole rows. SetScrollHereY(0.3) left the row
// above it half under the table's frozen header (the Formats table in scenarios 12 and 19, the
// Promotion grid in scenario 23), and where the scroll stopped at its limit, a part of a row
// short of the last whole one, the clamp did the same.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/table_rows.h"
#include "tests/app/imgui_frames.h"

namespace pl::ui {
namespace {

class TableScrollFrames : public ImGuiFrames {
 protected:
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

// Bug: a row brought into view stayed there only until the table grew: ImGui clamped the scroll
// to the new, smaller limit, inside a row, and the top row sat partly under the header (scenario
// 23's live grid at 1920x1080, 3 px, its pane grown a few frames after the link scrolled it).
TEST_F(TableScrollFrames, ARowBroughtIntoViewStaysByWholeRowsWhenTheTableGrows) {
  TableRows rows;
  rows.scroll_to(size_t{18});
  float scroll = 0, pitch = 0, limit = 0;
  for (int f = 0; f < 12; ++f) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(800, 600));
    ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
    if (ImGui::BeginTable("t", 2, ImGuiTableFlags_ScrollY, ImVec2(0, f < 5 ? 203.0f : 263.0f))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableSetupColumn("a");
      ImGui::TableSetupColumn("b");
      ImGui::TableHeadersRow();
      for (int r = 0; r < 20; ++r) {
        ImGui::TableNextRow();
        rows.at_row(size_t(r), 20);
        ImGui::TableNextColumn();
        ImGui::Text("row %d", r);
      }
      scroll = ImGui::GetScrollY();
      limit = ImGui::GetScrollMaxY();
      pitch = rows.pitch(0);
      ImGui::EndTable();
    }
    ImGui::End();
    ImGui::Render();
  }
  ASSERT_GT(pitch, 0);
  ASSERT_GT(std::fmod(limit, pitch), 0.5f) << "the grown table's limit falls inside a row";
  EXPECT_GT(scroll, 0);
  EXPECT_NEAR(std::fmod(scroll, pitch), 0.0f, 0.01f) << "scroll " << scroll << ", row " << pitch;
}

// Draws `frames` frames of a table of `rows` body rows, wider than the window (a sideways bar),
// in a child `space` px tall, sized by table_height with the row pitch TableRows measured;
// returns the table's height, its scroll limit and the row pitch on the last frame.
struct Fitted {
  float height = 0, scroll_max = 0, pitch = 0;
};
Fitted fitted_table(int frames, int rows, float space) {
  TableRows measured;
  Fitted out;
  for (int f = 0; f < frames; ++f) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(800, 600));
    ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
    ImGui::BeginChild("pane", ImVec2(0, space));
    const float row = measured.pitch(table_row_height());
    out.pitch = row;
    out.height = table_height(float(rows + 1), row);
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInner;
    if (ImGui::BeginTable("t", 12, flags, ImVec2(0, out.height))) {
      ImGui::TableSetupScrollFreeze(1, 1);
      for (int c = 0; c < 12; ++c) ImGui::TableSetupColumn("column", ImGuiTableColumnFlags_WidthFixed, 100);
      ImGui::TableHeadersRow();
      for (int r = 0; r < rows; ++r) {
        ImGui::TableNextRow();
        measured.at_row(size_t(r), size_t(rows));
        for (int c = 0; c < 12; ++c) {
          ImGui::TableNextColumn();
          ImGui::Text("%d", r);
        }
      }
      out.scroll_max = ImGui::GetScrollMaxY();
      ImGui::EndTable();
    }
    ImGui::EndChild();
    ImGui::End();
    ImGui::Render();
  }
  return out;
}

// Bug: a table whose rows fit its pane but for the sideways scrollbar was given a row and a
// scrollbar less than its rows: the Promotion grid sat 53 px short of its pane (presentation
// mode, 1280x800). It fills the pane, and still scrolls to its last row.
TEST_F(TableScrollFrames, ATableARowShortFillsItsPaneAndScrolls) {
  const int rows = 19;
  const float pitch = fitted_table(3, rows, 590).pitch;
  ASSERT_GT(pitch, 0);
  // The rows and the header fit, with a few pixels to spare; the sideways bar does not.
  const float space = std::floor(float(rows + 1) * pitch + 0.4f * ImGui::GetStyle().ScrollbarSize);
  const Fitted t = fitted_table(6, rows, space);
  ASSERT_FLOAT_EQ(t.pitch, pitch);
  EXPECT_GT(t.height, float(rows) * pitch) << "more than the body rows but one, pitch " << pitch;
  EXPECT_GT(t.scroll_max, 0) << "no vertical scroll reaches the last row";
}

// Bug: a grid narrow enough to need no sideways bar still kept room for one, a blank row under
// scenario 30's 4 x 4 Promotion grid.
TEST_F(TableScrollFrames, ATableThatFitsTheWidthKeepsNoRoomForASidewaysBar) {
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(800, 600));
  ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
  EXPECT_FLOAT_EQ(table_height(5, 20, /*sideways_bar=*/false), 100);
  EXPECT_FLOAT_EQ(table_height(5, 20), 100 + ImGui::GetStyle().ScrollbarSize);
  ImGui::End();
  ImGui::Render();
}

// Draws one frame of table `id`, four columns of `column` px with five rows, in a `window` px
// wide window, sized by a SidewaysBar; returns whether the bar wanted room on that frame.
bool sideways_bar_frame(const char* id, float window, float column) {
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(window, 600));
  ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
  const SidewaysBar bar(id);
  const bool needed = bar.needed();
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable(id, 4, flags, ImVec2(0, 6 * table_row_height() + bar.height()))) {
    for (int c = 0; c < 4; ++c) ImGui::TableSetupColumn("c", ImGuiTableColumnFlags_WidthFixed, column);
    ImGui::TableHeadersRow();
    for (int r = 0; r < 5; ++r) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", r);
    }
    bar.note();
    ImGui::EndTable();
  }
  ImGui::End();
  ImGui::Render();
  return needed;
}

// SidewaysBar learns on the first frame whether a table scrolls sideways, and keeps its answer.
// Bug: the Formats panel's tables kept room for a bar at 1920x1080, where they fit the width.
TEST_F(TableScrollFrames, SidewaysBarRoomOnlyForATableWiderThanItsWindow) {
  for (const float column : {50.0f, 400.0f}) {  // 4 columns: 200 px, or 1600 px in an 800 px window
    std::vector<bool> needed;
    char id[16];
    std::snprintf(id, sizeof id, "t%d", int(column));
    for (int frame = 0; frame < 4; ++frame) needed.push_back(sideways_bar_frame(id, 800, column));
    EXPECT_TRUE(needed[0]) << "room until the table has drawn";
    EXPECT_TRUE(needed[1]) << "room until ImGui knows the scroll range: no jump on the second frame";
    for (int frame = 2; frame < 4; ++frame)
      EXPECT_EQ(needed[size_t(frame)], column > 100) << "column " << column << ", frame " << frame;
  }
}

// Bug: a table that needed the bar in a narrow window kept its room for good, a blank strip under
// it once the window had grown wider than the table.
TEST_F(TableScrollFrames, SidewaysBarLooksAgainWhenTheWindowGrows) {
  std::vector<bool> needed;
  for (int frame = 0; frame < 8; ++frame)  // 4 columns of 150 px: 600 px, in 400 px and then 800 px
    needed.push_back(sideways_bar_frame("grows", frame < 4 ? 400.0f : 800.0f, 150));
  EXPECT_TRUE(needed[3]) << "600 px of columns in a 400 px window";
  EXPECT_FALSE(needed[7]) << "the same table in an 800 px window";
}

TEST_F(TableScrollFrames, ATableFarTallerThanItsPaneFillsIt) {
  const Fitted t = fitted_table(6, 60, 300);
  EXPECT_GT(t.height, 295);
  EXPECT_GT(t.scroll_max, 0);
}

// Bug: the pitch measured at one font scale was given at another: the Promotion grid, which
// tries 1.0, 0.9 and 0.8 of the font until its columns fit, reserved its 0.9 rows at the 0.8
// pitch, and its pane flipped between two heights frame by frame (scenario 25 at 1920x1080 was
// caught at the shorter, its rows behind "more below"). The pitch follows the font size.
TEST_F(TableScrollFrames, ThePitchFollowsTheFontScale) {
  TableRows measured;
  float at_small = 0, at_large = 0, drawn_large = 0;
  for (int f = 0; f < 3; ++f) {
    const float scale = f < 2 ? 0.8f : 1.0f;  // measured at 0.8, then asked at 1.0
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(800, 600));
    ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
    ImGui::SetWindowFontScale(scale);
    if (f == 2) at_large = measured.pitch(0);
    if (ImGui::BeginTable("t", 2, ImGuiTableFlags_ScrollY, ImVec2(0, 400))) {
      ImGui::TableHeadersRow();
      float first = 0;
      for (int r = 0; r < 5; ++r) {
        ImGui::TableNextRow();
        if (r == 0) first = ImGui::GetCursorPosY();
        if (r == 4 && f == 2) drawn_large = (ImGui::GetCursorPosY() - first) / 4;
        measured.at_row(size_t(r), 5);
        ImGui::TableNextColumn();
        ImGui::Text("row %d", r);
      }
      ImGui::EndTable();
    }
    if (f == 1) at_small = measured.pitch(0);
    ImGui::End();
    ImGui::Render();
  }
  ASSERT_GT(at_small, 0);
  EXPECT_GT(at_large, at_small);
  EXPECT_NEAR(at_large, drawn_large, 0.5f);  // (rows snap to pixels: within half of one)
}

}  // namespace
}  // namespace pl::ui
