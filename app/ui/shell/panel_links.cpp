#include "app/ui/shell/panel_links.h"

#include "app/ui/views/figure_view.h"

namespace pl::ui {

Status open_panel_link(const scenario::Scenario::PanelLink& link, const LinkedPanels& panels) {
  if (link.panel == "formats") {
    panels.formats.show(link.value, link.row, link.path);
    return {};
  }
  if (link.panel == "experiment") {
    if (auto used = panels.experiment.use_setup(link.setup); !used)
      return Error{"'" + link.label + "': " + used.error()};
    request_figure(link.evidence.figure);
    return {};
  }
  if (link.panel == "checkpoint") {
    panels.checkpoint.open(link.checkpoint, {}, link.candidates);
    return {};
  }
  if (link.panel != "promotion") return Error{"no panel '" + link.panel + "' takes a link"};
  if (auto done = panels.promotion.configure(promotion_state(link)); !done)
    return Error{"'" + link.label + "': " + done.error()};
  return {};
}

PromotionPanel::StartState promotion_state(const scenario::Scenario::PanelLink& link) {
  PromotionPanel::StartState st;
  st.framework = link.framework;
  st.op = link.op;
  st.compare_with = link.compare_with;
  st.b_kind = link.b_kind.empty() ? "tensor" : link.b_kind;
  st.b_value = link.b_value;
  st.select = link.select;
  st.a_device = link.a_device;
  st.b_device = link.b_device;
  st.bias = link.bias;
  return st;
}

}  // namespace pl::ui
