// The float explorer: one value across formats. For each format shown, what the value rounds
// to, its bits (click one to flip it), the neighbours and ulp, and the rounding interval; the
// number line of representable values around it (core/figure/number_line_figure, so it
// exports as drawn); the formats' limits side by side; custom formats added by spelling.
#pragma once

#include <string>
#include <vector>

#include "app/ui/panels/panel.h"
#include "app/ui/shell/run_log.h"
#include "app/ui/tasks/background_task.h"
#include "app/ui/views/figure_view.h"
#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/split_view.h"
#include "core/dtype/format_lookup.h"
#include "core/dtype/neighbourhood.h"

namespace pl::ui {

class ExplorerPanel final : public Panel {
 public:
  ExplorerPanel(RunLog& log, std::string initial_value);
  const char* name() const override { return "Explorer"; }
  void draw_content() override;
  bool busy() const override { return export_.running(); }

 private:
  struct Row {
    FormatRef format;
    bool shown = false;
    Neighbourhood n;
  };
  void recompute();
  // The explored value becomes v (a bit flip, a step to a neighbour); `why` goes to the log.
  void set_value(double v, std::string why);
  void handle_keys();
  std::string export_all();
  void draw_controls();
  void draw_format_picker();
  void draw_table();
  void draw_bits(Row& row, size_t index);
  std::vector<FormatRef> shown_formats() const;

  char value_text_[128] = {};
  char custom_text_[64] = "e3m2:fn";
  int rounding_ = 0, overflow_ = 0, radius_ = 8;
  double x_ = 0;
  std::string error_;
  std::vector<Row> rows_;
  size_t customs_seen_ = 0;  // custom formats already offered (value_controls.h)
  std::vector<figure::Figure> figures_;
  std::string version_;
  FigureView view_;
  SplitView split_{0.45f};      // the table above, the number lines below
  bool value_pending_ = false;  // set_value() from inside the table: recompute after it
  double pending_value_ = 0;
  std::string pending_why_;
  RunLog& log_;
  BackgroundTask export_;
  std::string status_;
};

}  // namespace pl::ui
