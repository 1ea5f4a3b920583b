#include "app/ui/panels/link_preview.h"

#include <imgui.h>

#include "app/ui/shell/panel_links.h"
#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/split_view.h"

namespace pl::ui {

bool LinkPreview::previews(const scenario::Scenario::PanelLink& link) {
  return link.panel == "promotion" || link.panel == "formats";
}

bool LinkPreview::show(const std::vector<scenario::Scenario::PanelLink>& links) {
  links_.clear();
  for (const auto& l : links)
    if (previews(l)) links_.push_back(l);
  shown_ = -1;
  extra_shown_ = false;
  if (links_.empty()) return false;
  configure(0);
  return true;
}

float LinkPreview::presentation_lines() const {
  return shown_ >= 0 && links_[size_t(shown_)].panel == "promotion" ? 10 : 6;
}

void LinkPreview::configure(size_t index) {
  shown_ = static_cast<int>(index);
  const scenario::Scenario::PanelLink& link = links_[index];
  if (link.panel == "formats") {
    if (!formats_) formats_ = std::make_unique<FormatsPanel>(link.value);
    formats_->set_compact(true);
    formats_->show(link.value, link.row, link.path);
    return;
  }
  if (!promotion_) promotion_ = std::make_unique<PromotionPanel>(log_);
  promotion_->set_compact(true);
  // In the smaller space, the float8/6/4 rows and columns are hidden unless the link's pair is
  // one of them: with them, a mul grid's integer and complex columns would be off the right edge.
  PromotionPanel::StartState st = promotion_state(link);
  st.hide_narrow_floats = true;
  // The reader checked every name the link gives; a refusal here is a bug worth a log line.
  if (auto done = promotion_->configure(st); !done)
    log_.add("scenario", "preview of '" + link.label + "': " + done.error());
}

void LinkPreview::draw(const std::function<void(const scenario::Scenario::PanelLink&)>& open, const std::string& extra,
                       const std::function<void()>& extra_body) {
  if (shown_ < 0) return;
  const scenario::Scenario::PanelLink& link = links_[size_t(shown_)];
  const bool extra_on = extra_shown_ && !extra.empty() && extra_body;
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("Live:");
  // One button a choice, the one shown lit.
  auto choice = [&](const std::string& label, bool on) {
    same_line_if_fits(button_width(label.c_str()));
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    const bool pressed = ImGui::Button(label.c_str()) && !on;
    if (on) ImGui::PopStyleColor();
    return pressed;
  };
  for (size_t i = 0; i < links_.size(); ++i)
    if (choice(links_[i].label + "##preview" + std::to_string(i), !extra_on && int(i) == shown_)) {
      extra_shown_ = false;
      configure(i);
    }
  if (!extra.empty() && extra_body && choice(extra + "##preview-extra", extra_on)) extra_shown_ = true;
  const char* tab = link.panel == "formats" ? "open in the Formats tab" : "open in the Promotion tab";
  same_line_if_fits(button_width(tab));
  if (ImGui::Button(tab) && open) open(link);
  ImGui::BeginChild("link-preview", ImVec2(0, 0), false);
  if (extra_on) {
    extra_body();
    mark_more_below();
  } else if (link.panel == "formats") {
    formats_->draw_content();
  } else {
    promotion_->draw_content();
  }
  ImGui::EndChild();
}

}  // namespace pl::ui
