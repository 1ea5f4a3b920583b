// A scenario's look-at links (core/scenario/scenario.h, Scenario::PanelLink): the panel a link
// names put in the state it names -- the Promotion grid on an engine and op, the Formats panel
// showing a value with one format's row marked. The shell then brings that panel forward.
#pragma once

#include "app/ui/panels/formats_panel.h"
#include "app/ui/panels/promotion_panel.h"
#include "core/scenario/scenario.h"
#include "core/util/expected.h"

namespace pl::ui {

Status open_panel_link(const scenario::Scenario::PanelLink& link, PromotionPanel& promotion, FormatsPanel& formats);

}  // namespace pl::ui
