#include "app/ui/shell/start_screen.h"

#include <imgui.h>

#include <algorithm>

namespace pl::ui {

int StartScreen::draw(float width, float height) {
  if (!open_) return -1;
  const float fs = ImGui::GetFontSize();
  const float w = std::min(width - 2 * fs, 44 * fs);
  ImGui::SetNextWindowPos({width * 0.5f, height * 0.5f}, ImGuiCond_Always, {0.5f, 0.5f});
  ImGui::SetNextWindowSize({w, 0});
  ImGui::SetNextWindowBgAlpha(1.0f);  // over the panel, not mixed with it
  if (focus_) ImGui::SetNextWindowFocus(), focus_ = false;
  int taken = -1;
  if (ImGui::Begin("Start", &open_,
                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                       ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted("What happens to numbers when deep-learning code mixes and lowers dtypes. Start with one:");
    ImGui::Spacing();
    for (size_t i = 0; i < ways_.size(); ++i) {
      const Way& way = ways_[i];
      ImGui::PushID(static_cast<int>(i));
      const std::string label = std::to_string(i + 1) + "   " + way.title;
      if (ImGui::Button(label.c_str(), {-1, 2.2f * fs}) || ImGui::IsKeyPressed('1' + static_cast<int>(i), false))
        taken = static_cast<int>(i);
      ImGui::TextDisabled("%s", way.what.c_str());
      ImGui::Spacing();
      ImGui::PopID();
    }
    ImGui::TextDisabled("F1 opens this again; Esc closes it. The panels' tabs are above.");
    ImGui::PopTextWrapPos();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) open_ = false;
  }
  ImGui::End();
  if (taken >= 0) {
    open_ = false;
    ways_[static_cast<size_t>(taken)].go();
  }
  return taken;
}

}  // namespace pl::ui
