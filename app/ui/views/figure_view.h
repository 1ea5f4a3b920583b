// Tabs, one per figure (wrapped onto more rows, and in two rows of runs and their figures where
// figures come from several runs), and the chosen figure drawn into all the space left. The plot answers the
// mouse: hover reads out the point, bin or cell under it; the wheel zooms about the mouse, a drag
// pans, a double-click resets; a row of controls switches either axis between linear and log,
// shows or hides each series and reference line, and exports the plot exactly as it is on the
// screen (PNG, SVG, PDF) with its data (CSV), written off the UI thread; Ctrl+S over a plot
// writes all four. A heat map's cells
// are drawn by the colour-map shader (shaders/heatmap.frag) over the plot area, with a choice of
// colour-blind-safe maps.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "app/gl/heatmap_shader.h"
#include "app/ui/shell/run_log.h"
#include "app/ui/tasks/background_task.h"
#include "app/ui/widgets/figure_texture.h"
#include "core/export/figure_export.h"
#include "core/figure/figure.h"
#include "core/figure/figure_view_state.h"
#include "core/figure/plot_layout.h"

namespace pl::ui {

// Asks the first view that shows a figure of this name to bring its tab forward (--figure).
void request_figure(const std::string& name);
// Whether a request is waiting for its tab (--figure's, until that tab is drawn).
bool figure_requested();
// Whether a view brought this request's tab forward.
bool figure_served(const std::string& name);

// A figure's size in pixels in the space left below its controls (`width` x `height`): all of
// it, in either mode. The panels give figures a pane of their own (SplitView) that keeps a
// readable height; a figure at a fixed aspect would leave a 780 px chart in a 1280 px window,
// and one kept taller than its space would run past the window's edge.
struct FigurePixels {
  int width = 0, height = 0;
};
FigurePixels figure_pixels(float width, float height);

// A tab's text: the figure's `tab`, else its name read as words ("error-vs-k": "error vs K").
std::string figure_tab_text(const figure::Figure& f);

class FigureView {
 public:
  // Exports are recorded in `log` under `source` (the panel's name).
  void set_log(RunLog* log, std::string source);
  // A tab after the figures' that holds something else, drawn by `body` into the space left
  // and scrolling there: a scenario's checks in presentation mode's large type, where above the
  // figure they squeezed both the story and the plot.
  struct ExtraTab {
    std::string name;   // what request_figure() brings it forward by ("checks")
    std::string label;  // its tab's text
    std::function<void()> body;
  };
  // `version` changes whenever the figures' data does (the texture is redrawn then).
  // The figures fill the space left (draw them in a SplitView's bottom pane).
  void draw(const char* id, const std::vector<figure::Figure>& figures, const std::string& version,
            const ExtraTab* extra = nullptr);
  int chosen() const { return chosen_; }  // the figure on screen (its tab)
  // How the figure of that name is shown (zoom, scales, hidden series); panels may set it.
  figure::View& view(const std::string& figure_name) { return views_[figure_name]; }

 private:
  // Draws the control row (which may change `v`); returns the file types whose buttons were
  // pressed, written once the view's figure is made.
  std::vector<figure::FileType> draw_controls(const figure::Figure& f, figure::View& v, int width, int height);
  void handle_mouse(figure::View& v, const figure::PlotLayout& l, float x, float y, int width, int height);
  void export_shown(const figure::View& v, std::vector<figure::FileType> types, int width, int height);

  int chosen_ = 0;
  // The chosen tab by name: the figures change (another run kind, a format hidden) and a
  // position would then show another figure.
  std::string chosen_name_;
  int png_scale_ = 0;  // the PNG export's resolution: 0: 1x (96 dpi), 1: 2x, 2: 3x
  FigureTexture texture_;
  figure::Figure shown_;                       // the chosen figure as its view shows it
  std::string shown_key_;                      // the data, figure and view shown_ was made for
  gl::HeatmapShader heatmap_;                  // a heat map's cells, drawn over the plot area cairo left for them
  std::map<std::string, figure::View> views_;  // by figure name: kept across re-runs
  RunLog* log_ = nullptr;
  std::string source_ = "figure";
  std::string status_;
  std::string heatmap_error_;  // logged once
  BackgroundTask export_;
};

}  // namespace pl::ui
