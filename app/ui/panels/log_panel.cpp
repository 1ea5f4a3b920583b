#include "app/ui/panels/log_panel.h"

#include <imgui.h>

#include <string>

#include "app/ui/widgets/wrapped_text.h"

namespace pl::ui {

void LogPanel::draw_content() {
  size_t dropped = 0;
  const auto entries = log_.entries(&dropped);
  ImGui::Checkbox("follow new entries", &follow_);
  ImGui::SameLine();
  if (ImGui::Button("Copy all")) {
    std::string all;
    for (const auto& e : entries) {
      char stamp[32];
      std::snprintf(stamp, sizeof stamp, "[%8.3f] ", e.at);
      all += stamp + e.source + ": " + e.text + "\n";
    }
    ImGui::SetClipboardText(all.c_str());
  }
  ImGui::SameLine();
  if (dropped > 0)
    ImGui::TextDisabled("the last %zu entries (%zu earlier let go; --verbose prints every one)", entries.size(),
                        dropped);
  else ImGui::TextDisabled("%zu %s", entries.size(), entries.size() == 1 ? "entry" : "entries");
  ImGui::BeginChild("entries", {0, 0}, true);
  if (ImGui::BeginTable("log", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("time");
    ImGui::TableSetupColumn("source");
    ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (const auto& e : entries) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%8.3f s", e.at);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(e.source.c_str());
      ImGui::TableNextColumn();
      wrapped_text(e.text);
    }
    ImGui::EndTable();
  }
  // (Counted with those let go: after a trim the entries held can number the same as before.)
  if (follow_ && dropped + entries.size() != seen_) ImGui::SetScrollHereY(1.0f);
  seen_ = dropped + entries.size();
  ImGui::EndChild();
}

}  // namespace pl::ui
