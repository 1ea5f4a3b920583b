// The Scenarios panel and its guided tour: the scenario library in order, the chosen story in
// large type beside its live evidence -- every check with its expected and observed answer and
// the figures of the experiments behind them -- run on a worker (progress, cancel); a scenario
// with no experiments shows the panel its look-at links to, live, in the figures' place. Left/Right
// or PageUp/PageDown (a presenter's clicker) step through the tour; Ctrl+E exports the
// slide-ready set; Ctrl+R re-runs; Esc cancels.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/ui/panels/link_preview.h"
#include "app/ui/panels/panel.h"
#include "app/ui/shell/run_log.h"
#include "app/ui/tasks/background_task.h"
#include "app/ui/tasks/cancellable_run.h"
#include "app/ui/views/figure_view.h"
#include "app/ui/widgets/split_view.h"
#include "core/scenario/library.h"
#include "core/scenario/scenario_run.h"

namespace pl::ui {

// The bar's status after a run: its checks' summary and how long the run took, the time kept on
// one line where the status wraps ("9 of 9 checks pass (0.12 s)": "s)" never alone).
std::string run_status(std::string_view summary, double seconds);

// Presentation mode's story column beside the figures takes this share of the pane's width
// for a story that fills it, and less, down to the narrowest, for a short one: the figures
// take the width it would leave empty (a short story at 1920x1080 fills half its column).
constexpr float kBesideStoryShare = 0.44f, kNarrowestStoryShare = 0.30f;

// The story column's share of `pane_width` for a story and look-at `content_height` high when
// wrapped to `measured_width`: narrowed until, wrapped to about the same area, they fill three
// quarters of `pane_height`.
float beside_story_share(float content_height, float measured_width, float pane_width, float pane_height);

class ScenarioPanel final : public Panel {
 public:
  // `start`: a scenario to open first (name, short name or number); "" for the first.
  ScenarioPanel(RunLog& log, const std::string& start);
  ~ScenarioPanel() override;
  const char* name() const override { return "Scenarios"; }
  void draw_content() override;
  bool busy() const override {
    return worker_.running() || run_pending_ || exact_worker_.running() || (started_ && exact_pending_);
  }
  void stop_work() override {
    worker_.request_cancel();
    exact_worker_.request_cancel();
  }
  // A look-at link clicked: the shell opens its panel in its state (panel_links.h).
  using LinkOpener = std::function<void(const scenario::Scenario::PanelLink&)>;
  void on_open_link(LinkOpener f) { open_link_ = std::move(f); }
  const scenario::Scenario& scenario() const { return library_.scenarios[current_]; }  // the one shown
  // The rows of the table of checks: the run's, else the exact checks worked out so far.
  const std::vector<scenario::CheckResult>& checks_shown() const { return shown_ ? shown_->checks : exact_.checks; }
  // The exact checks' worker's answers for the scenario shown (empty until they come).
  const std::vector<scenario::CheckResult>& exact_checks() const { return exact_.checks; }
  // The evidence has run and waits for the exact checks' answers to be shown with them.
  bool evidence_waits_for_exact_checks() const { return evidence_.has_value(); }
  // Why `start` did not open ("" when it did), for --scenario's error.
  const std::string& start_error() const { return start_error_; }
  // The figures (or the live panel in their place) on the whole pane, the story hidden (F);
  // until another scenario is chosen.
  void set_figure_only(bool on) { figure_only_ = on; }

 private:
  void select(size_t index);  // shows its exact checks as soon as they are worked out, then runs the evidence
  void show(size_t index);    // the exact checks only (asked of their worker)
  void start_exact_pending();  // works out the exact checks asked for once none are in flight
  void start_run();           // asks for a run of the current scenario: start_pending starts it
  void start_pending();       // starts the run asked for once none is in flight (never waits for one)
  void cancel_run();          // stops the run in flight and waits for it: the destructor only
  void collect();
  void draw_list();
  // " 7  bfloat16 versus float16: range versus precision", or its number alone (" 7  ").
  std::string list_label(size_t i, bool with_title = true) const;
  // `links_live`: the look-at's links are the live preview's buttons, so the story leaves out its own.
  void draw_story(bool links_live);
  void draw_title_and_story();
  void draw_look_at(bool links_live, bool under_its_label = false);
  // Presentation mode over figures: the title and story scroll in a pane of their own, the
  // look-at pinned under them.
  void draw_story_look_at_pinned(bool look_at_under_its_label = false);
  void draw_checks();
  // Something to show beside or instead of the story: the figures, or the live panel in their place.
  bool has_view() const { return !figures_.empty() || preview_.active(); }
  std::string export_set();

  RunLog& log_;
  scenario::Library library_;
  // The list's titles in their lines (views into library_), for the list's room and font.
  struct ListWrap {
    struct Key {
      float width = -1;
      size_t lines = 0;
      float font = 0;
      bool operator==(const Key&) const = default;
    } key;
    std::vector<std::vector<std::string_view>> titles;
  } list_wrap_;
  size_t current_ = 0;
  std::string start_error_;
  // The exact checks' answers, shown while the evidence runs. Worked out off the UI thread, once
  // a scenario is shown: most take microseconds, but a running sum of 1e8 steps takes seconds.
  // The evidence run leaves them out, and each run of it (Run again too) is shown with these.
  scenario::ExactChecks exact_;
  bool exact_ready_ = false;    // exact_ holds the scenario shown's answers
  bool exact_pending_ = false;  // the scenario shown wants its exact checks worked out
  CancellableRun<scenario::ExactChecks> exact_worker_;
  std::string exact_error_;     // their worker's error (Run again asks again)
  // The evidence run done, waiting for the exact checks to be shown with them.
  std::optional<scenario::ScenarioRun> evidence_;
  std::chrono::steady_clock::time_point run_started_;  // the evidence run's start

  bool started_ = false;  // the first run waits until the panel is shown (not at start-up)
  bool run_pending_ = false;
  CancellableRun<scenario::ScenarioRun> worker_;
  std::shared_ptr<const scenario::ScenarioRun> shown_;
  std::vector<figure::Figure> figures_;
  int version_ = 0;
  FigureView figure_view_;
  SplitView split_{0.55f};  // the story and checks above, the figures (or the preview) below
  // A scenario with nothing to plot shows its first link's panel, live, where figures would be.
  LinkPreview preview_{log_};
  SplitView preview_split_{0.8f};  // the story above, the live panel below
  float story_height_ = 1e9f;      // the story's height (without the checks), on the frame before
  float story_text_height_ = 1e9f;  // the title and story alone, on the frame before
  float title_height_ = 0;          // the title alone, this frame
  float look_at_height_ = 0;        // the look-at and its links, on the frame before
  // The story column's share beside the figures (0: none yet, kBesideStoryShare), measured on
  // the first frame for this scenario, pane and font.
  struct {
    float share = 0;
    bool measured = false;
    size_t scenario = 0;
    float width = 0, height = 0, font = 0;
  } beside_;
  std::optional<bool> room_;       // presentation mode: room below the story for the live panel
  // The figures or the live panel on the whole pane, the story hidden (F, or the button): a
  // projector's 800 lines hold a readable story or a readable figure, not both. Each scenario
  // starts with its story.
  bool figure_only_ = false;
  struct {
    float body = 0;
    bool presenting = false;
  } room_for_;  // the pane's height and the mode room_ was decided for
  std::string status_;
  std::string status_tip_;  // the status's whole sentence, where the line says it briefly
  void set_status(std::string status, std::string tip = "") {
    status_ = std::move(status);
    status_tip_ = std::move(tip);
  }
  LinkOpener open_link_;
  BackgroundTask export_;  // declared last: joined first, while the log it writes to lives
};

}  // namespace pl::ui
