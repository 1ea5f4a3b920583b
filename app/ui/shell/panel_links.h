// A scenario's look-at links (core/scenario/scenario.h, Scenario::PanelLink): the panel a link
// names put in the state it names -- the Promotion grid on an engine and op, the Formats panel
// showing a value with one format's row marked, the Checkpoint panel scanning a checkpoint, the
// Experiment panel running an evidence's setup with a figure forward. The shell then brings
// that panel forward.
#pragma once

#include "app/ui/panels/checkpoint_panel.h"
#include "app/ui/panels/experiment_panel.h"
#include "app/ui/panels/formats_panel.h"
#include "app/ui/panels/promotion_panel.h"
#include "core/scenario/scenario.h"
#include "core/util/expected.h"

namespace pl::ui {

// The panels a link can open, as the window makes them.
struct LinkedPanels {
  PromotionPanel& promotion;
  FormatsPanel& formats;
  CheckpointPanel& checkpoint;
  ExperimentPanel& experiment;
};

Status open_panel_link(const scenario::Scenario::PanelLink& link, const LinkedPanels& panels);

// A Promotion link's state, as the Promotion panel takes it (its tab, or a scenario's preview).
PromotionPanel::StartState promotion_state(const scenario::Scenario::PanelLink& link);

}  // namespace pl::ui
