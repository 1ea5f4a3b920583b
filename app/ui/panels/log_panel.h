// The Log panel: what ran in this window, with timings, newest at the bottom, copyable.
#pragma once

#include "app/ui/panels/panel.h"
#include "app/ui/shell/run_log.h"

namespace pl::ui {

class LogPanel final : public Panel {
 public:
  explicit LogPanel(const RunLog& log) : log_(log) {}
  const char* name() const override { return "Log"; }
  void draw_content() override;

 private:
  const RunLog& log_;
  size_t seen_ = 0;  // entries when last drawn: scroll to the bottom when new ones arrive
  bool follow_ = true;
};

}  // namespace pl::ui
