#include "app/ui/figure_view.h"

#include <imgui.h>

#include <algorithm>

#include "app/ui/theme.h"

namespace pl::ui {

void FigureView::draw(const char* id, const std::vector<figure::Figure>& figures, const std::string& version,
                      float aspect) {
  if (ImGui::BeginTabBar(id)) {
    for (size_t i = 0; i < figures.size(); ++i)
      if (ImGui::BeginTabItem(figures[i].name.c_str())) {
        chosen_ = static_cast<int>(i);
        ImGui::EndTabItem();
      }
    ImGui::EndTabBar();
  }
  if (chosen_ >= static_cast<int>(figures.size())) return;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (presentation_mode()) aspect = std::max(1.2f, avail.x / std::max(avail.y, 1.0f));
  const int w = static_cast<int>(std::min(avail.x, avail.y * aspect));
  const figure::Figure& f = figures[chosen_];
  texture_.show(f, version + "/" + f.name, w, static_cast<int>(w / aspect));
}

}  // namespace pl::ui
