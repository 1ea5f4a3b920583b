// A scenario's look-at link drawn live under its text. A scenario with no evidence to plot (a
// promotion rule, an integer cast, a format's limits) would otherwise leave half its pane empty;
// there the panel its first link opens -- the Promotion grid or the Formats table, in the state
// the link names -- is drawn in that space, its own copy, so trying another pair there leaves the
// panel's tab as it was. A row of buttons picks among the scenario's links; "open in its tab"
// takes the link to the full panel.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/ui/panels/formats_panel.h"
#include "app/ui/panels/promotion_panel.h"
#include "app/ui/shell/run_log.h"
#include "core/scenario/scenario.h"

namespace pl::ui {

class LinkPreview {
 public:
  explicit LinkPreview(RunLog& log) : log_(log) {}
  // The links a preview can draw: the Promotion and Formats panels'.
  static bool previews(const scenario::Scenario::PanelLink& link);
  // Takes a scenario's links and shows the first one it previews; false when there is none.
  bool show(const std::vector<scenario::Scenario::PanelLink>& links);
  bool active() const { return shown_ >= 0; }
  // The lines of presentation mode's large type the panel shown needs to be read: a Promotion
  // grid's caption, legend, header, rows and the rule below take 10 (in 6, scenarios 23, 25 and
  // 30 would show one row of grid at 1280x800); the Formats table 6.
  float presentation_lines() const;
  // The link buttons, then the panel in the space left. `open` takes a link to its own tab.
  // `extra`, when given, is one more button after the links' (a scenario's checks in
  // presentation mode): pressed, `extra_body` is drawn in the panel's place.
  void draw(const std::function<void(const scenario::Scenario::PanelLink&)>& open, const std::string& extra = "",
            const std::function<void()>& extra_body = {});

 private:
  void configure(size_t index);

  RunLog& log_;
  std::vector<scenario::Scenario::PanelLink> links_;
  int shown_ = -1;  // the index in links_ drawn; -1: none
  bool extra_shown_ = false;  // the extra button's content drawn instead of the link's panel
  std::unique_ptr<PromotionPanel> promotion_;
  std::unique_ptr<FormatsPanel> formats_;
};

}  // namespace pl::ui
