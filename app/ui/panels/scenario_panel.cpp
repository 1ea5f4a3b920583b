#include "app/ui/panels/scenario_panel.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <map>

#include "app/ui/panels/check_columns.h"
#include "app/ui/shell/layout_audit.h"
#include "app/ui/shell/theme.h"
#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/export/export_dir.h"
#include "core/export/result_folder.h"
#include "core/figure/experiment_figures.h"
#include "core/scenario/scenario_export.h"
#include "core/util/paths.h"

namespace pl::ui {

// Presentation mode puts the story beside the figures in a window at least this much wider than
// high (1280x800 is 1.6, 1920x1080 1.78; a 4:3 projector's 1.33 keeps them stacked, where beside
// them the story would have two lines under its title).
constexpr float kBesideAspect = 1.5f;

float beside_story_share(float content_height, float measured_width, float pane_width, float pane_height) {
  if (!(content_height > 0 && measured_width > 0 && pane_width > 0 && pane_height > 0)) return kBesideStoryShare;
  // Narrower lines waste more of their ends and add lines of their own (the title, the look-at's
  // label): filling three quarters leaves them room.
  const float width = content_height * measured_width / (0.75f * pane_height);
  return std::clamp(width / pane_width, kNarrowestStoryShare, kBesideStoryShare);
}

namespace {

// Where a look-at link leads, for its tooltip.
std::string link_destination(const scenario::Scenario::PanelLink& link) {
  if (link.panel == "formats")
    return "the Formats panel with " + link.value +
           (link.row ? ", " + std::string(pl::name(*link.row)) + " marked" : "");
  if (link.panel == "experiment")
    return "the Experiment panel on evidence " + std::to_string(link.evidence.evidence) + "'s setup, figure " +
           link.evidence.figure;
  if (link.panel == "checkpoint") return "the Checkpoint panel scanning " + link.checkpoint;
  std::string where = "the Promotion grid: " + link.framework + ", " + link.op;
  if (!link.bias.empty()) where.append(" with a ").append(link.bias).append(" bias");
  if (!link.compare_with.empty()) where.append(" against ").append(link.compare_with);
  if (!link.a_device.empty()) where.append(", a on ").append(link.a_device);
  if (!link.b_device.empty()) where.append(", b on ").append(link.b_device);
  return where;
}

// The figure tab a look-at points to: collect() names each evidence run's figures "N: name".
std::string look_at_tab(const scenario::Scenario::FigureRef& ref) {
  return std::to_string(ref.evidence + 1) + ": " + ref.figure;
}

// The evidence labels of runs that share a figure, less what they all begin with up to a comma:
// else scenario 29's "the checkpoint scanned, plan within 4.5 bits" and "... within 6 bits" would
// make two pairs of tabs cut to the same "SQNR by layer: the checkpoint scanned, pl...".
std::map<size_t, std::string> distinct_labels(const std::vector<std::pair<size_t, std::string>>& runs) {
  std::map<size_t, std::string> out;
  if (runs.empty()) return out;
  size_t common = runs.front().second.size();
  for (const auto& [i, label] : runs) {
    size_t k = 0;
    while (k < common && k < label.size() && label[k] == runs.front().second[k]) ++k;
    common = k;
  }
  const size_t comma = runs.front().second.rfind(", ", common == 0 ? 0 : common - 1);
  const size_t cut = runs.size() > 1 && comma != std::string::npos && comma + 2 <= common ? comma + 2 : 0;
  for (const auto& [i, label] : runs) out[i] = label.substr(cut);
  return out;
}

const ImVec4 kPass{0.35f, 0.80f, 0.45f, 1.0f};
const ImVec4 kFail{0.95f, 0.35f, 0.30f, 1.0f};

bool pressed(int key) { return ImGui::IsKeyPressed(key, false); }

}  // namespace

ScenarioPanel::ScenarioPanel(RunLog& log, const std::string& start)
    : log_(log), library_(scenario::load_library(scenario_dirs(), shipped_scenario_dirs())) {
  figure_view_.set_log(&log_, "scenario");
  for (const auto& e : library_.errors) log_.add("scenario", "skipped " + e);
  if (library_.scenarios.empty()) return;
  size_t first = 0;
  if (!start.empty()) {
    if (const scenario::Scenario* s = scenario::find_scenario(library_, start))
      first = static_cast<size_t>(s - library_.scenarios.data());
    else start_error_ = "no scenario '" + start + "'";
  }
  show(first);
}

ScenarioPanel::~ScenarioPanel() { cancel_run(); }

void ScenarioPanel::cancel_run() {
  worker_.request_cancel();
  exact_worker_.request_cancel();
  worker_.cancel();
  exact_worker_.cancel();
}

void ScenarioPanel::show(size_t index) {
  current_ = index;
  exact_ = {};
  exact_ready_ = false;
  exact_error_.clear();
  exact_pending_ = true;
  evidence_.reset();
  shown_.reset();
  figures_.clear();
  story_height_ = 1e9f;  // measured on the first frame that draws it
  story_text_height_ = 1e9f;
  look_at_height_ = 0;
  room_.reset();
  figure_only_ = false;
  const scenario::Scenario& s = library_.scenarios[index];
  // No experiments to plot: the panel the first link opens takes the figures' place.
  preview_.show(s.evidence.empty() ? s.look_at_panels : std::vector<scenario::Scenario::PanelLink>{});
  ++version_;
}

void ScenarioPanel::select(size_t index) {
  show(index);
  start_run();
}

void ScenarioPanel::start_run() {
  started_ = true;
  run_pending_ = true;
  // Exact checks that failed (or were stopped) are asked for again: the run is shown only with
  // them, and Run again would otherwise stay at "running the evidence..." for good.
  if (!exact_ready_ && !exact_worker_.running()) exact_pending_ = true, exact_error_.clear();
}

void ScenarioPanel::start_pending() {
  if (!run_pending_) return;
  const bool started = worker_.start_when_idle(
      [s = library_.scenarios[current_]](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
        return scenario::run_evidence(s, progress, cancel);
      });
  if (!started) return;  // the run in flight was asked to stop: a later frame starts this one
  run_pending_ = false;
  run_started_ = std::chrono::steady_clock::now();
  set_status("running the evidence...");
}

void ScenarioPanel::start_exact_pending() {
  if (!exact_pending_) return;
  const bool started = exact_worker_.start_when_idle(
      [s = library_.scenarios[current_]](const std::function<void(double)>&, const std::atomic<bool>* cancel) {
        return scenario::evaluate_exact_checks(s, cancel);
      });
  if (started) exact_pending_ = false;  // else the checks in flight were asked to stop: a later frame
}

void ScenarioPanel::collect() {
  const auto say_if_exact_failed = [this] {
    if (!exact_error_.empty()) set_status("the exact checks failed: " + exact_error_ + " (Run again asks again)");
  };
  // The exact checks of a scenario no longer shown (another was chosen since) are dropped.
  if (auto exact = exact_worker_.take(); exact && !exact_pending_) {
    if (*exact) exact_ = std::move(*exact).value(), exact_ready_ = true;
    else if (exact->error() != "cancelled") exact_error_ = exact->error();
    say_if_exact_failed();
  }
  // A run asked to stop for another (a new scenario chosen) may still finish its work: its
  // evidence belongs to the scenario before, not to the one now shown.
  if (auto done = worker_.take(); done && !run_pending_) {
    if (!*done) {
      set_status(done->error());
      return;
    }
    evidence_ = std::move(*done).value();
    say_if_exact_failed();  // (else its status would say "running the evidence..." while none are coming)
  }
  if (!evidence_ || !exact_ready_) return;
  scenario::ScenarioRun run = scenario::with_exact_checks(std::move(*evidence_), exact_);
  evidence_.reset();
  // The time the user waited, from the run's start until both its parts came: the two parts run
  // side by side, and Run again reuses the exact checks (their seconds, added each time, would
  // read seconds for a run of milliseconds beside a long running sum).
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started_).count();
  shown_ = std::make_shared<const scenario::ScenarioRun>(std::move(run));
  figures_.clear();
  // Each run's figures, made once.
  std::vector<std::vector<figure::Figure>> made(shown_->evidence.size());
  for (size_t i = 0; i < shown_->evidence.size(); ++i)
    if (const auto& e = shown_->evidence[i]; e.run) made[i] = figure::experiment_figures(*e.run);
  // The runs that make each figure name (two evidence runs make the same ones), by index and label.
  std::map<std::string, std::vector<std::pair<size_t, std::string>>> makers;
  for (size_t i = 0; i < made.size(); ++i)
    for (const auto& f : made[i]) makers[f.name].emplace_back(i, shown_->evidence[i].label);
  // Each run by the name the scenario gives its tabs, whole (cut where the names share a ", "
  // scenario 07's "N(0, 1), bfloat16" would read "1), bfloat16"); else by its label, less what the
  // runs' labels share.
  auto named = [&](std::map<size_t, std::string> labels) {
    for (auto& [i, label] : labels)
      if (i < shown_->scenario.evidence.size() && !shown_->scenario.evidence[i].tab.empty())
        label = shown_->scenario.evidence[i].tab;
    return labels;
  };
  std::map<std::string, std::map<size_t, std::string>> tab_labels;
  for (const auto& [name, runs] : makers) tab_labels[name] = named(distinct_labels(runs));
  // Several runs that make figures of the same name, one of them with several figures: the tabs
  // name the runs, then the chosen run's figures by what they show (FigureView's two rows), each
  // run by its tab name or label. (Runs whose figures differ keep one row: scenario 10's.)
  std::vector<std::pair<size_t, std::string>> runs_with_figures;
  bool several_in_a_run = false;
  for (size_t i = 0; i < made.size(); ++i) {
    if (!made[i].empty()) runs_with_figures.emplace_back(i, shown_->evidence[i].label);
    several_in_a_run = several_in_a_run || made[i].size() > 1;
  }
  const bool shared_name = std::any_of(makers.begin(), makers.end(), [](const auto& m) { return m.second.size() > 1; });
  const bool grouped = runs_with_figures.size() > 1 && several_in_a_run && shared_name;
  // A group is known by its label: two runs with the same one, or none, get "run N" (else their
  // figures would share one button, or have none).
  std::map<size_t, std::string> run_labels = named(distinct_labels(runs_with_figures));
  for (auto& [i, label] : run_labels) {
    const std::string& name = label;  // (clang before 16 captures no structured binding in a lambda)
    if (name.empty() || std::count_if(run_labels.begin(), run_labels.end(),
                                      [&](const auto& other) { return other.second == name; }) > 1)
      label = "run " + std::to_string(i + 1);
  }
  for (size_t i = 0; i < made.size(); ++i) {
    const auto& e = shown_->evidence[i];
    for (auto f : made[i]) {
      // One tab per figure, named by what it shows; where two runs make a figure of the same
      // name, by the run ("1.001 in bfloat16").
      const std::string& label = tab_labels[f.name][i];
      if (grouped) f.group = run_labels[i];
      if (makers[f.name].size() > 1 && !grouped) f.tab = label;
      else f.tab = figure_tab_text(f);
      f.name = std::to_string(i + 1) + ": " + f.name;
      // The run's own description says what ran ("64 x 256 values of normal(scale 1) into
      // bfloat16, ..."); the evidence label before it would repeat it ("N(0,1) in bfloat16 -- ..."),
      // and where runs share a figure the tab already names the run. As in the slide deck.
      if (f.subtitle.empty()) f.subtitle = e.label;
      figures_.push_back(std::move(f));
    }
  }
  // The figure the look-at points to comes first (in two rows of tabs, first of its run's), and
  // its tab is brought forward.
  if (const auto& ref = shown_->scenario.look_at_figure) {
    const std::string wanted = look_at_tab(*ref);
    auto it = std::find_if(figures_.begin(), figures_.end(), [&](const figure::Figure& f) { return f.name == wanted; });
    if (it != figures_.end()) {
      auto first = grouped ? std::find_if(figures_.begin(), it, [&](const figure::Figure& f) { return f.group == it->group; })
                           : figures_.begin();
      std::rotate(first, it, it + 1);
    }
    if (!figure_requested()) request_figure(wanted);  // --figure's tab, if given, wins
  }
  ++version_;
  const std::string summary = scenario::checks_summary(*shown_);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, " (%.2f s)", shown_->seconds);
  log_.add("scenario", shown_->scenario.name + ": " + summary + seconds);
  // Briefly beside the buttons, the whole sentence on hover: it would wrap the toolbar to two lines
  // at 1280x800 in presentation mode (scenarios 17, 18, 21, 24 and 30).
  const std::string brief = scenario::checks_summary(*shown_, /*brief=*/true);
  set_status(run_status(brief, shown_->seconds),
             brief == summary ? "" : summary + ": such a match explains, it does not prove");
}

std::string run_status(std::string_view summary, double seconds) {
  char time[32];
  std::snprintf(time, sizeof time, " (%.2f\u00a0s)", seconds);  // a no-break space: wrap_lines keeps it
  return std::string(summary) + time;
}

std::string ScenarioPanel::export_set() {
  if (!shown_) return "nothing to export yet";
  if (export_.running()) return "an export is still being written";
  auto dir = exporting::new_export_dir("scenario-" + shown_->scenario.name);
  if (!dir) return "export failed: " + dir.error();
  export_.start([run = shown_, d = *dir, this] {
    auto saved =
        exporting::fill_export_dir(d, [&](const std::string& tmp) { return exporting::save_scenario_run(*run, tmp); });
    const std::string what = saved ? "exported to " + d : "export failed: " + saved.error();
    log_.add("scenario", what);
    return what;
  });
  return "exporting...";
}

std::string ScenarioPanel::list_label(size_t i, bool with_title) const {
  char number[32];
  std::snprintf(number, sizeof number, "%2zu  ", i + 1);
  return with_title ? number + library_.scenarios[i].title : number;
}

void ScenarioPanel::draw_list() {
  ImGui::TextDisabled("Tour: Left/Right or PageUp/PageDown");
  // Each by its number and title (the file names read as code); the tooltip has the whole title
  // and the name `scenario run` takes. A title wider than the list goes on under its first word
  // where the list has the height for every title's lines (cut, at 1920x1080 half of them would
  // end in "..." above 300 px of empty list), else it is cut to the list's width.
  const size_t count = library_.scenarios.size();
  const float width = ImGui::GetContentRegionAvail().x,
              indent = ImGui::CalcTextSize(list_label(count - 1, false).c_str()).x;  // the widest number
  const auto width_of = [](std::string_view t) { return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x; };
  const float line = ImGui::GetTextLineHeight();
  const size_t most = size_t(ImGui::GetContentRegionAvail().y / ImGui::GetTextLineHeightWithSpacing());
  // Worked out again only when the list's width, height or font changes: balancing a title's
  // lines wraps it a dozen times.
  if (const ListWrap::Key key{width - indent, most, ImGui::GetFontSize()}; key != list_wrap_.key) {
    std::vector<std::string_view> names;
    for (const scenario::Scenario& s : library_.scenarios) names.push_back(s.title);
    list_wrap_ = {key, wrap_all_within(names, key.width, most, width_of)};
  }
  const auto& titles = list_wrap_.titles;
  const bool wrap = !titles.empty();
  for (size_t i = 0; i < count; ++i) {
    const auto& s = library_.scenarios[i];
    const size_t n = wrap ? titles[i].size() : 1;
    const std::string label = (wrap ? std::string() : fitted_text(list_label(i), width)) + "##" + s.name;
    const ImVec2 at = ImGui::GetCursorScreenPos();  // (where a label starts: the item's box is wider)
    if (ImGui::Selectable(label.c_str(), i == current_, 0, ImVec2(0, float(n) * line)) && i != current_) select(i);
    if (wrap) {  // the number, then the title's lines, each from the same indent
      ImDrawList* draw = ImGui::GetWindowDrawList();
      const ImU32 colour = ImGui::GetColorU32(ImGuiCol_Text);
      const std::string number = list_label(i, false);
      draw->AddText(at, colour, number.c_str());
      for (size_t k = 0; k < n; ++k) {
        const std::string_view t = titles[i][k];
        draw->AddText(ImVec2(at.x + indent, at.y + float(k) * line), colour, t.data(), t.data() + t.size());
      }
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s\n(precision-lab scenario run %s)", s.title.c_str(), s.name.c_str());
  }
}

void ScenarioPanel::draw_story(bool links_live) {
  draw_title_and_story();
  draw_look_at(links_live);
}

void ScenarioPanel::draw_title_and_story() {
  const scenario::Scenario& s = library_.scenarios[current_];
  ImGui::SetWindowFontScale(1.35f);
  wrapped_text(printf_text("%zu/%zu  %s", current_ + 1, library_.scenarios.size(), s.title.c_str()));
  ImGui::SetWindowFontScale(1.0f);
  ImGui::Spacing();
  title_height_ = ImGui::GetCursorPosY();
  wrapped_text(s.story);
}

// A long story in presentation mode's large type would scroll its look-at, what the class is to
// look at, below its pane (ten scenarios at 1280x800): the look-at stays in view under the story,
// which scrolls on its own.
void ScenarioPanel::draw_story_look_at_pinned(bool look_at_under_its_label) {
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float room = ImGui::GetContentRegionAvail().y - look_at_height_;
  const float text = std::max(std::min(story_text_height_, room), 2 * line);
  ImGui::BeginChild("story-text", ImVec2(0, text), false);
  draw_title_and_story();
  story_text_height_ = ImGui::GetCursorPosY();
  // A class reads the story from its pane: its title and the first four lines of its text at
  // least, or all of a shorter one.
  layout_audit::note_room("the scenario's story", text, std::min(story_text_height_, title_height_ + 4 * line));
  mark_more_below();
  ImGui::EndChild();
  const float top = ImGui::GetCursorPosY();
  draw_look_at(false, look_at_under_its_label);
  layout_audit::note_in_view("the scenario's look-at");  // its last line
  look_at_height_ = ImGui::GetCursorPosY() - top;
}

void ScenarioPanel::draw_look_at(bool links_live, bool under_its_label) {
  const scenario::Scenario& s = library_.scenarios[current_];
  if (!s.look_at.empty()) {
    ImGui::Spacing();
    if (s.look_at_figure && !figures_.empty()) {  // a link: the figure it points to comes forward
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.80f, 0.35f, 1));
      if (ImGui::SmallButton("Look at:")) request_figure(look_at_tab(*s.look_at_figure));
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("show the figure this points to: %s", s.look_at_figure->figure.c_str());
    } else {
      ImGui::TextColored(ImVec4(0.95f, 0.80f, 0.35f, 1), "Look at:");
    }
    // Beside it in a wide pane; under it in a narrow column, where the label's indent would take a
    // fifth of every line and the look-at run to twelve lines.
    if (!under_its_label) ImGui::SameLine();
    wrapped_text(s.look_at);
  }
  // The panels the look-at names, each a link that opens it in the state the text means (unless
  // the live preview below has them: the same buttons twice would take a line of a projector's grid).
  for (size_t i = 0; i < s.look_at_panels.size() && open_link_ && !links_live; ++i) {
    const scenario::Scenario::PanelLink& link = s.look_at_panels[i];
    const std::string label = "open: " + link.label + "##link" + std::to_string(i);
    if (i > 0) same_line_if_fits(button_width(label.c_str()));
    if (wrapping_small_button(label.c_str())) open_link_(link);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", link_destination(link).c_str());
  }
}

void ScenarioPanel::draw_checks() {
  const std::vector<scenario::CheckResult>& rows = checks_shown();
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
  const float table_width = ImGui::GetContentRegionAvail().x;
  if (!ImGui::BeginTable("checks", 4, flags)) return;
  const CheckColumns cols =
      check_columns(rows, table_width, [](const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; });
  ImGui::TableSetupColumn("check", ImGuiTableColumnFlags_WidthStretch, cols.check_weight);
  ImGui::TableSetupColumn("expected", ImGuiTableColumnFlags_WidthStretch, cols.expected_weight);
  if (cols.observed_width > 0)
    ImGui::TableSetupColumn("observed", ImGuiTableColumnFlags_WidthFixed, cols.observed_width);
  else ImGui::TableSetupColumn("observed", ImGuiTableColumnFlags_WidthStretch, cols.observed_weight);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("FAIL").x + 8);
  ImGui::TableHeadersRow();
  for (const auto& c : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    wrapped_text(c.label);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n\nBacked by: %s", c.id.c_str(), c.backing.c_str());
    ImGui::TableNextColumn();
    // A derived expectation says so after its value, in its wrapped text, the whole note on hover:
    // a line of its own under every one of scenario 18's nine checks would double the table's
    // height above a plot of 240 px (and a word placed beside the text would run into the next
    // column).
    const std::string expected = scenario::shown_answer(c, c.expected);
    wrapped_text(c.expectation_derived ? expected + " (derived)" : expected);
    if (c.expectation_derived && ImGui::IsItemHovered())
      ImGui::SetTooltip("%s: %s", std::string(scenario::kDerivedNote).c_str(), c.backing.c_str());
    if (!c.sources.empty() && ImGui::IsItemHovered()) {
      std::string from = "read from the evidence's result.json:";
      for (const std::string& s : c.sources) from.append("\n  ").append(s);
      ImGui::SetTooltip("%s", from.c_str());
    }
    ImGui::TableNextColumn();
    if (observed_same_text(c)) {
      ImGui::TextDisabled("%s", observed_shown(c).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("observed, character for character:\n%s", c.observed.c_str());
    } else {
      wrapped_text(observed_shown(c));
    }
    ImGui::TableNextColumn();
    ImGui::TextColored(c.passed ? kPass : kFail, "%s", c.passed ? "pass" : "FAIL");
  }
  if (!shown_ && (exact_pending_ || exact_worker_.running())) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("working the exact checks out...");
  }
  if (!shown_ && worker_.running()) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("the evidence's checks follow when it has run");
  }
  ImGui::EndTable();
}

void ScenarioPanel::draw_content() {
  collect();
  if (auto r = export_.take()) set_status(*r);
  if (library_.scenarios.empty()) {
    wrapped_text(printf_text("No scenarios found: looked in %s/scenarios and %s/scenarios.",
                             assets_dir().empty() ? "(no assets folder)" : assets_dir().c_str(), config_dir().c_str()));
    return;
  }
  if (!started_) start_run();
  start_exact_pending();
  start_pending();
  const size_t n = library_.scenarios.size();
  if (!ImGui::GetIO().WantTextInput) {
    if ((pressed(GLFW_KEY_RIGHT) || pressed(GLFW_KEY_PAGE_DOWN)) && current_ + 1 < n) select(current_ + 1);
    if ((pressed(GLFW_KEY_LEFT) || pressed(GLFW_KEY_PAGE_UP)) && current_ > 0) select(current_ - 1);
    const bool ctrl = ImGui::GetIO().KeyCtrl;
    if (ctrl && pressed(GLFW_KEY_E)) set_status(export_set());
    if (ctrl && pressed(GLFW_KEY_R)) start_run();
    if (!ctrl && pressed(GLFW_KEY_F) && has_view()) figure_only_ = !figure_only_;
    if (pressed(GLFW_KEY_ESCAPE) && worker_.running()) {
      worker_.request_cancel();  // its outcome, "cancelled", arrives on a later frame
      set_status("cancelling...");
    }
  }
  const bool presenting = presentation_mode();
  if (!presenting) {
    // As wide as the longest title, up to 28% of the window: a longer one wraps or ends in "..."
    // (draw_list; at a fixed width "19-framework-cast-vs-correct-rounding" would lose its last
    // letters, unmarked).
    float names = ImGui::CalcTextSize("Tour: Left/Right or PageUp/PageDown").x;
    for (size_t i = 0; i < n; ++i) names = std::max(names, ImGui::CalcTextSize(list_label(i).c_str()).x);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float width =
        std::min(names + 2 * style.WindowPadding.x + style.ScrollbarSize + 2, ImGui::GetContentRegionAvail().x * 0.28f);
    ImGui::BeginChild("scenario-list", ImVec2(width, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    draw_list();
    ImGui::EndChild();
    ImGui::SameLine();
  }
  // The buttons on a bar of their own that never scrolls away (in presentation mode's large type
  // a long story would push them below the pane's edge); the story and the checks below it
  // (scrolling when long); the figures, if any, below them.
  ImGui::BeginChild("scenario-body", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollbar);
  if (ImGui::Button("< Previous") && current_ > 0) select(current_ - 1);
  ImGui::SameLine();
  if (ImGui::Button("Next >") && current_ + 1 < n) select(current_ + 1);
  ImGui::SameLine();
  if (worker_.running()) {
    if (ImGui::Button("Cancel")) {
      worker_.request_cancel();
      set_status("cancelling...");
    }
    ImGui::SameLine();
    ImGui::ProgressBar(static_cast<float>(worker_.progress()), ImVec2(ImGui::GetFontSize() * 10, 0));
  } else {
    if (ImGui::Button("Run again")) start_run();
    ImGui::SameLine();
    if (ImGui::Button("Export slides")) set_status(export_set());
  }
  if (has_view()) {
    const bool panel = figures_.empty();
    ImGui::SameLine();
    if (ImGui::Button(figure_only_ ? "Story (F)" : panel ? "Panel only (F)" : "Figure only (F)"))
      figure_only_ = !figure_only_;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", figure_only_ ? "show the story above them again"
                              : panel      ? "the live panel on the whole pane, the checks a button beside its links"
                                           : "the figures on the whole pane, the checks in a tab beside them");
  }
  ImGui::SameLine();
  wrapped_text(status_);
  if (!status_tip_.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", status_tip_.c_str());
  // In presentation mode's large type, only where the story leaves it the lines the panel needs
  // (forced in, the Formats panel would keep one row of its table at 1280x800, and cut the story);
  // elsewhere "Panel only (F)" or a link shows it whole. The checks are then a button beside the
  // links, as they are a tab beside the figures.
  // Decided once for the scenario, mode and height, from the story's height without the panel
  // (with it, the story's pane scrolls, wraps otherwise, and the answer would flip frame by frame).
  const float preview_lines = presenting ? preview_.presentation_lines() : 14, body = ImGui::GetContentRegionAvail().y;
  if (body != room_for_.body || presenting != room_for_.presenting) room_.reset();
  if (!room_ && story_height_ < 1e8f) {
    room_ = !presenting || body - story_height_ >= (preview_lines + 1) * ImGui::GetTextLineHeightWithSpacing();
    room_for_ = {body, presenting};
  }
  // In presentation mode the checks are a tab beside the figures' (or a button beside a live
  // panel's links): above them, with the story, they would leave the plot 150-250 px of a 1280x800
  // or 1920x1080 projector and scroll the story away. The bar above says how many pass.
  const bool room = room_.value_or(!presenting);
  const bool preview = figures_.empty() && preview_.active() && room;
  const bool checks_tabbed = presenting && (!figures_.empty() || preview);
  const bool split_panes = !figures_.empty() || preview;
  auto draw_figures = [&](bool with_checks_tab) {
    const std::string version = library_.scenarios[current_].name + "#" + std::to_string(version_);
    const FigureView::ExtraTab checks{"checks", "checks", [this] { draw_checks(); }};
    figure_view_.draw("scenario-figures", figures_, version, with_checks_tab ? &checks : nullptr);
  };
  if (figure_only_ && has_view()) {
    if (!figures_.empty()) draw_figures(true);
    else preview_.draw(open_link_, "checks", [this] { draw_checks(); });
    ImGui::EndChild();
    return;
  }
  // In presentation mode on a landscape pane the story stands beside the figures, as on a slide:
  // stacked above them in the large type, a long story would keep one or two lines above a 1280x800
  // projector's figure and scroll, and the figure would keep a third of the height. Beside them the
  // story scrolls in its own column, its look-at pinned under it, and the figures take the
  // whole height of theirs.
  if (presenting && !figures_.empty()) {
    const ImVec2 window = ImGui::GetIO().DisplaySize, avail = ImGui::GetContentRegionAvail();
    if (window.x >= kBesideAspect * window.y) {
      // The first frame for this scenario, pane and font measures the story at the share it has
      // (the widest before any); the frames after it draw it at the share that measure gives
      // (the wrapped area is about the same at any width, so no frame at the widest is needed:
      // a window being resized keeps its column).
      const float font = ImGui::GetFontSize();
      if (beside_.scenario != current_ || beside_.width != avail.x || beside_.height != avail.y || beside_.font != font)
        beside_ = {beside_.share, false, current_, avail.x, avail.y, font};
      const float column = std::floor(avail.x * (beside_.share > 0 ? beside_.share : kBesideStoryShare));
      ImGui::BeginChild("scenario-text", ImVec2(column, 0), false);
      // (story_height_ is left as it is: only the stacked layout's room test for a live panel
      // reads it, and the narrow column's height would mislead it.)
      draw_story_look_at_pinned(/*look_at_under_its_label=*/true);
      ImGui::EndChild();
      if (!beside_.measured)
        beside_.share = beside_story_share(story_text_height_ + look_at_height_, column, avail.x, avail.y),
        beside_.measured = true;
      ImGui::SameLine();
      ImGui::BeginChild("scenario-figures-pane", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollbar);
      draw_figures(true);
      ImGui::EndChild();
      ImGui::EndChild();
      return;
    }
  }
  // In presentation mode the story is what the class reads: the figure keeps fewer lines of the
  // large type, 13, which at 1280x800 keeps the look-at's first line and a plot of about 150 px
  // (18, 72% of the height, would leave the story four lines; 14 would hide most look-ats there,
  // 11 leave a plot under 140 px high; F gives the figures the whole pane). A live
  // panel keeps fewer still, and its split lets the story take up to 80% of the height where the
  // figures' keeps 55%: the story fits whole, by the room test, and the panel takes what is left.
  // Figures of several runs take a second row of tabs (FigureView), and a line more for it.
  SplitView& split = preview ? preview_split_ : split_;
  const bool two_tab_rows =
      std::any_of(figures_.begin(), figures_.end(), [](const figure::Figure& f) { return !f.group.empty(); });
  const float figure_lines = (presenting ? 13.0f : 18.0f) + (two_tab_rows ? 1.0f : 0.0f);
  if (split_panes) split.begin_top("scenario", 3, preview ? preview_lines : figure_lines);
  else ImGui::BeginChild("scenario-text");
  if (presenting && !figures_.empty()) draw_story_look_at_pinned();
  else draw_story(preview);
  story_height_ = ImGui::GetCursorPosY();
  if (!checks_tabbed) {
    ImGui::Separator();
    draw_checks();
  }
  if (split_panes) {
    split.begin_bottom();
    if (preview) {
      if (checks_tabbed) preview_.draw(open_link_, "checks", [this] { draw_checks(); });
      else preview_.draw(open_link_);
    } else {
      draw_figures(checks_tabbed);
    }
    split.end();
  } else {
    mark_more_below();
    ImGui::EndChild();
  }
  ImGui::EndChild();
}

}  // namespace pl::ui
