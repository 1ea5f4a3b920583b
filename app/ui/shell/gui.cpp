// The frame loop: one ImGui window filling the viewport, a tab per panel,
// rendered to a GLFW window or, for screenshots, to an offscreen framebuffer.
#include "app/ui/shell/gui.h"
#include "core/io/json_text.h"

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "app/gl/framebuffer.h"
#include "app/ui/panels/checkpoint_panel.h"
#include "app/ui/panels/experiment_panel.h"
#include "app/ui/panels/explorer_panel.h"
#include "app/ui/panels/formats_panel.h"
#include "app/ui/panels/log_panel.h"
#include "app/ui/panels/promotion_panel.h"
#include "app/ui/panels/scenario_panel.h"
#include "app/ui/panels/throughput_panel.h"
#include "app/ui/shell/file_drop.h"
#include "app/ui/shell/frame_meter.h"
#include "app/ui/shell/gl_context.h"
#include "app/ui/shell/layout_audit.h"
#include "app/ui/shell/panel_links.h"
#include "app/ui/shell/remembered_state.h"
#include "app/ui/shell/run_log.h"
#include "app/ui/shell/settings.h"
#include "app/ui/shell/start_screen.h"
#include "app/ui/shell/theme.h"
#include "app/ui/tasks/background_task.h"
#include "app/ui/views/figure_view.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/backend/backend.h"
#include "core/export/experiment_export.h"
#include "core/export/export_dir.h"
#include "core/export/png_writer.h"
#include "core/io/file_read.h"
#include "core/util/interrupt.h"
#include "core/util/printable.h"

namespace pl::ui {
namespace {

constexpr int kScreenshotFrames = 8;         // ImGui sizes tables and columns over the first frames, a
                                             // scenario's live panel a level deeper
// How long a screenshot waits for background work, by the clock: counted in frames, the wait
// would grow with each frame's drawing time. Past it the picture is taken as it is, and stderr
// says the work was still running.
constexpr std::chrono::seconds kScreenshotWait{60};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct App {
  explicit App(bool verbose) : log(verbose) {}
  RunLog log;  // before the panels, which write to it until they are gone
  std::vector<std::unique_ptr<Panel>> panels;
  std::string status;         // the header's line: the backend
  // The backend's line, found off the UI thread: opening CUDA can take a second before the first
  // frame otherwise. Taken into `status` (and the log) by the frame that finds it ready.
  std::future<std::string> backend_found;
  std::string details;        // its tooltip and the Log: the font file and the like
  std::string warning;        // shown under the header until dismissed (a settings file set aside)
  std::string select_panel;   // lower-case name to select on the next frame (then cleared)
  std::string current_panel;  // lower-case name of the panel on screen
  std::string link_panel;     // the panel --look-at's link opened ("" when none)
  bool quit = false;
  bool presentation = false;
  bool theme_changed = false;  // applied between frames
  float theme_scale = 0;       // the display scale the theme was built for
  ExperimentPanel* experiment = nullptr;
  CheckpointPanel* checkpoint = nullptr;
  StartScreen start;
  BackgroundTask capture;  // F12's PNG, encoded and written off the UI thread (joined first)
  std::chrono::steady_clock::time_point next_remember{};  // when keep_remembered next compares
};

// What went wrong where the user cannot see it otherwise (a drop, a link, a save): in the log and
// under the header, until dismissed.
void warn(App& app, const std::string& source, const std::string& message) {
  app.log.add(source, message);
  app.warning = message;
  if (!app.warning.empty())
    app.warning[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(app.warning[0])));
}

constexpr const char* kCaptureFailed = "window capture failed: ";

// Window-wide shortcuts: Ctrl+1..9 pick a panel, F11 or Ctrl+P toggles presentation mode, Ctrl+Q
// quits. (Ctrl+R, Ctrl+E, Esc, Space and the arrow keys belong to the panel on screen; F12 saves
// the window, in the frame loop.)
void handle_shortcuts(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsKeyPressed(GLFW_KEY_F11, false) || (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_P, false))) {
    app.presentation = !app.presentation;
    app.theme_changed = true;
    app.log.add("window", app.presentation ? "presentation mode on" : "presentation mode off");
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) app.start.open();
  if (!io.KeyCtrl || io.WantTextInput) return;
  for (size_t i = 0; i < app.panels.size() && i < 9; ++i)
    if (ImGui::IsKeyPressed(GLFW_KEY_1 + static_cast<int>(i), false)) app.select_panel = lower(app.panels[i]->name());
  if (ImGui::IsKeyPressed(GLFW_KEY_Q, false)) app.quit = true;
}

void draw_frame(App& app, int width, int height) {
  handle_shortcuts(app);
  ImGui::SetNextWindowPos({0, 0});
  ImGui::SetNextWindowSize({float(width), float(height)});
  ImGui::Begin("Precision Lab", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoSavedSettings);
  ImGui::TextUnformatted("Precision Lab");
  ImGui::SameLine();
  if (app.presentation)  // minimal chrome: the title and the panels
    ImGui::TextDisabled("(presentation mode: F11 to leave)");
  else {
    ImGui::TextDisabled("what happens to numbers when deep-learning code mixes and lowers dtypes   |   %s", app.status.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", app.details.c_str());
  }
  {
    const char* start = "Start (F1)";
    ImGui::SameLine(std::max(
        ImGui::GetCursorPosX(),
        ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(start).x - 2 * ImGui::GetStyle().FramePadding.x));
    if (ImGui::SmallButton(start)) app.start.open();
  }
  // The button first: a message of a path and a parser's words can be longer than the window,
  // and wraps below it.
  if (!app.warning.empty()) {
    if (ImGui::SmallButton("dismiss")) app.warning.clear();
    ImGui::SameLine();
    wrapped_text_colored(ImVec4(0.95f, 0.7f, 0.25f, 1), app.warning);
  }
  // Asked once: selecting a tab every frame would pin it and ignore the user's clicks. Taken
  // before the panels draw, so that a panel asking for another (the Throughput panel's probe
  // for the Experiment panel, drawn before it) is heard on the next frame.
  const std::string wanted = std::move(app.select_panel);
  app.select_panel.clear();
  if (ImGui::BeginTabBar("panels")) {
    for (auto& p : app.panels) {
      ImGuiTabItemFlags flags = 0;
      if (!wanted.empty() && lower(p->name()) == wanted) flags |= ImGuiTabItemFlags_SetSelected;
      if (ImGui::BeginTabItem(p->name(), nullptr, flags)) {
        app.current_panel = lower(p->name());
        p->draw_content();
        ImGui::EndTabItem();
      } else {
        p->hidden();
      }
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
  if (const int way = app.start.draw(float(width), float(height)); way >= 0)
    app.log.add("window", "start: " + app.start.title(way));
}

// A file dropped on the window or named by --open, opened in the panel that takes it (an experiment
// file in the Experiment panel, a tensor as one of its operands, a checkpoint's index or folder
// scanned in the Checkpoint panel); why not, when it cannot be.
Status open_file(App& app, const std::string& path) {
  switch (drop_kind(path, app.current_panel == "checkpoint")) {
    case DropKind::Checkpoint:
      app.checkpoint->open(path);
      app.select_panel = "checkpoint";
      return {};
    case DropKind::Setup:
      if (auto loaded = app.experiment->load_setup(path); !loaded) return loaded;
      app.log.add("window", "opened the setup " + path);
      break;
    case DropKind::Tensor:
      if (Status st = tensor_drop_problem(path); !st) return st;
      app.experiment->drop_tensor(path);
      break;
    case DropKind::Unknown:
      return Error{printable(path, 200) +
                   ": not a file the window opens: an experiment .json, a .npy or .safetensors file, or a "
                   "checkpoint's index or folder"};
  }
  app.select_panel = "experiment";
  return {};
}

// A drop that cannot be opened is said under the header as well as in the log: the window shows
// nothing else of it.
void take_drops(App& app) {
  for (const std::string& path : take_dropped_files())
    if (auto opened = open_file(app, path); !opened) warn(app, "window", "not opened: " + opened.error());
}

std::string backend_status() {
  auto b = shared_backend(BackendChoice::Auto);
  if (!b) return "backend: none (" + b.error() + ")";
  DeviceInfo d = b->backend->device_info();
  return "backend: " + d.backend + " (" + d.name + ")";
}

// How to start this binary again: "precision-lab" where that name on the PATH is this binary,
// else its own path (a build tree's build/precision-lab).
std::string self_command() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "precision-lab";
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    for (size_t start = 0; start <= dirs.size();) {
      const size_t end = std::min(dirs.find(':', start), dirs.size());
      const auto candidate = std::filesystem::path(dirs.substr(start, end - start)) / "precision-lab";
      if (std::filesystem::equivalent(candidate, self, ec)) return "precision-lab";
      start = end + 1;
    }
  }
  return self.string();
}

// Exit 1: the environment failed (no display, no OpenGL); bad_input: what the command line
// named is wrong (an unknown panel, a setup file that does not read), exit 2 as every command.
int fail(const std::string& message, bool bad_input = false) {
  std::fprintf(stderr, "error: %s\n", message.c_str());  // (as every command says it)
  return bad_input ? 2 : 1;
}

// The no-display message: how to get a display, or what to run without one.
std::string no_display_message() {
  const std::string self = self_command();
  return "no display: DISPLAY and WAYLAND_DISPLAY are unset, so no window can open.\n"
         "  Run it under a virtual X server:  xvfb-run -a -s '-screen 0 1600x1000x24' " +
         self + "\n  Or take a picture headless:       " + self +
         " --screenshot formats.png\n  Or use the command line:          " + self +
         " formats | cast | decode | bench --help";
}

// The panels in their tab order, each started in the state the options ask for, and wired to
// each other (a Promotion pair or a Throughput model opens in the Experiment panel). The reason
// the window cannot start ("" when it can).
Status add_panels(App& app, const GuiOptions& o, bool remembered) {
  auto formats = std::make_unique<FormatsPanel>(o.value);
  FormatsPanel* formats_panel = formats.get();
  app.panels.push_back(std::move(formats));
  auto promotion = std::make_unique<PromotionPanel>(app.log);
  if (auto st = promotion->configure({o.framework, o.promote_op, o.compare, o.compare_with, o.b_kind, o.b_value,
                                      o.select, o.a_shape, o.b_shape, o.a_device, o.b_device});
      !st)
    return st;
  PromotionPanel* promotion_panel = promotion.get();
  app.panels.push_back(std::move(promotion));
  auto experiment = std::make_unique<ExperimentPanel>(app.log);
  if (!o.setup.empty()) {
    if (auto loaded = experiment->load_setup(o.setup); !loaded) return loaded;
  } else if (const std::string last = config_dir() + "/last-setup.json"; remembered && [&] {
               std::error_code ec;
               return std::filesystem::exists(last, ec);
             }()) {
    // (Set aside, as a bad settings.json is: the next save would write over it.)
    if (auto loaded = experiment->load_setup(last); !loaded)
      warn(app, "window", "last setup not restored: " + loaded.error() + set_aside(last));
  }
  app.experiment = experiment.get();
  promotion_panel->on_run_pair([&app](const PromotionPanel::PairRun& p) {
    app.experiment->use_pair(p.input, p.weight, p.engine, p.op);
    app.select_panel = "experiment";
  });
  app.panels.push_back(std::move(experiment));
  auto throughput = std::make_unique<ThroughputPanel>(app.log);
  throughput->on_use_model([&app](const std::string& spec, DType input) {
    app.experiment->use_model(spec, input);
    app.select_panel = "experiment";
  });
  app.panels.push_back(std::move(throughput));
  app.panels.push_back(std::make_unique<LogPanel>(app.log));
  // (Made before the scenarios, whose links open it; it joins the tabs last.)
  auto checkpoint = std::make_unique<CheckpointPanel>(app.log);
  checkpoint->on_open_cast([&app](const nlohmann::json& setup) {
    if (auto used = app.experiment->use_setup(setup); !used)
      warn(app, "checkpoint", "cast not opened: " + used.error());
    else app.select_panel = "experiment";
  });
  app.checkpoint = checkpoint.get();
  if (!o.checkpoint.empty()) app.checkpoint->open(o.checkpoint, o.activations);
  const LinkedPanels linked{*promotion_panel, *formats_panel, *checkpoint, *app.experiment};
  auto scenarios = std::make_unique<ScenarioPanel>(app.log, o.scenario);
  scenarios->on_open_link([&app, linked](const scenario::Scenario::PanelLink& link) {
    if (auto opened = open_panel_link(link, linked); !opened)
      warn(app, "scenarios", "link not opened: " + opened.error());
    else app.select_panel = link.panel;
  });
  if (!scenarios->start_error().empty()) return Error{scenarios->start_error() + " (precision-lab scenario list)"};
  scenarios->set_figure_only(o.figure_only);
  if (o.look_at > 0) {
    const scenario::Scenario& s = scenarios->scenario();
    if (o.look_at > s.look_at_panels.size())
      return Error{"--look-at " + std::to_string(o.look_at) + ": scenario " + s.name + " has " +
                   std::to_string(s.look_at_panels.size()) + " look-at link(s)"};
    const scenario::Scenario::PanelLink& link = s.look_at_panels[o.look_at - 1];
    if (auto opened = open_panel_link(link, linked); !opened) return opened;
    app.link_panel = link.panel;
  }
  app.panels.push_back(std::move(scenarios));
  app.panels.push_back(std::make_unique<ExplorerPanel>(app.log, o.value));
  app.panels.push_back(std::move(checkpoint));
  app.start.add({"PyTorch: float16 input into a float32 layer",
                 "nn.Linear(x: float16) with float32 weights raises; see the exact error, its fixes run side by side, "
                 "and where each one's error comes from.",
                 [&app] {
                   app.experiment->use_pair(DType::float16, DType::float32, "torch", "linear");
                   app.select_panel = "experiment";
                 }});
  app.start.add({"The guided tour", "The teaching scenarios one after another, each with its evidence and checks.",
                 [&app] { app.select_panel = "scenarios"; }});
  app.start.add({"The float explorer",
                 "One value in each format you pick (six to start): what it rounds to, its bits (click one to flip "
                 "it), its neighbours.",
                 [&app] { app.select_panel = "explorer"; }});
  return {};
}

// The panel the window opens on: --panel, else the one a file or scenario implies, else the
// remembered one. An unknown name is an error when the command line gave it.
Status select_first_panel(App& app, const GuiOptions& o, const std::string& remembered_panel, bool remembered,
                          bool first_run) {
  const bool screenshot = !o.screenshot_path.empty();
  const std::string& wanted = o.panel_given              ? o.panel
                              : !app.link_panel.empty()  ? app.link_panel
                              : !o.implied_panel.empty() ? o.implied_panel
                              : remembered               ? remembered_panel
                                                         : o.panel;
  app.select_panel = lower(wanted);
  if (app.select_panel == "start") {  // the start screen, over the first panel
    app.start.open();
    app.select_panel = "formats";
    return {};
  }
  // The first start, with nothing asked for on the command line, opens on the start screen.
  if (remembered && first_run && !o.panel_given && o.implied_panel.empty() && !screenshot) app.start.open();
  const bool known =
      std::any_of(app.panels.begin(), app.panels.end(), [&](auto& p) { return lower(p->name()) == app.select_panel; });
  if (!known && (o.panel_given || screenshot)) {
    std::string names;  // the panels this window has, in tab order
    for (const auto& p : app.panels) names.append(names.empty() ? "" : ", ").append(lower(p->name()));
    names.append(", start");
    return Error{"unknown panel '" + wanted + "' (panels: " + names + ")"};
  }
  if (!known) app.select_panel = "formats";  // a remembered panel this version does not have
  return {};
}

// F12: the whole window as it is now, to a PNG. The pixels are read here (the GL context is this
// thread's); the PNG is encoded and written off it, so a large window does not stall a frame.
void capture_window(App& app, int w, int h) {
  if (app.capture.running()) {
    app.log.add("window", "a window capture is still being written");
  } else if (auto path = exporting::new_export_file("window", "png"); !path) {
    warn(app, "window", std::string(kCaptureFailed) + path.error());
  } else {
    app.capture.start([pixels = gl::read_rgba(0, w, h), file = *path, w, h] {
      Status ok = exporting::fill_export_file(file, [&] { return write_png_rgba(file, pixels, w, h); });
      return ok ? "saved the window to " + file + " (" + std::to_string(w) + "x" + std::to_string(h) + ")"
                : kCaptureFailed + ok.error();
    });
  }
}

// Table column widths and the like persist in the config folder's imgui.ini (not for
// screenshots, nor with --no-settings): read here, and written with the other remembered files
// (RememberedState) rather than by ImGui, which writes in place and checks nothing. The text as
// read ("" when there is none).
std::string load_ini_file(ImGuiIO& io, bool persist) {
  io.IniFilename = nullptr;
  if (!persist || config_dir().empty()) return "";
  const std::string path = config_dir() + "/imgui.ini";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "";
  auto read = io::read_file(path, 1 << 20);
  if (!read) return "";  // (widths only: the defaults serve)
  ImGui::LoadIniSettingsFromMemory(reinterpret_cast<const char*>(read->data()), read->size());
  return ImGui::SaveIniSettingsToMemory();
}

// Presentation mode toggled, or the window moved to a monitor of another scale (HiDPI): fonts
// and sizes are rebuilt for it between frames.
void follow_theme(App& app, float scale) {
  if (!app.theme_changed && scale == app.theme_scale) return;
  if (scale != app.theme_scale)
    app.log.add("window", "display scale " + std::to_string(scale).substr(0, 4) + ": fonts rebuilt");
  apply_theme(app.presentation, scale);
  app.theme_changed = false;
  app.theme_scale = scale;
}

// What the next start reopens: the panel, presentation mode, size and the Experiment setup, and
// the ini text `ini` (the last ImGui gave).
RememberedState::Texts remembered_texts(const App& app, const std::string& remembered_panel, int w, int h,
                                        const std::string& ini) {
  Settings settings;
  settings.panel = app.current_panel.empty() ? remembered_panel : app.current_panel;
  settings.presentation = app.presentation;
  settings.width = w, settings.height = h;
  return {settings_text(settings), app.experiment->setup_json().dump(1, ' ', false, io::kReplaceInvalidUtf8) + "\n",
          ini};
}

// The remembered files written as they change (ImGui asks for its ini a few seconds after a column
// moves; the rest is looked at once a second), and a failed write said under the header.
void keep_remembered(App& app, RememberedState& saver, const std::string& remembered_panel, int w, int h,
                     std::string& ini) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantSaveIniSettings) {
    ini = ImGui::SaveIniSettingsToMemory();
    io.WantSaveIniSettings = false;
  }
  if (const auto now = std::chrono::steady_clock::now(); now >= app.next_remember) {
    app.next_remember = now + std::chrono::seconds(1);
    saver.save_changed(remembered_texts(app, remembered_panel, w, h, ini));
  }
  if (auto failed = saver.take_failure()) warn(app, "window", "settings not saved: " + *failed);
}

// The panels made, put in the state the options ask for, and the first one chosen; the files
// --open names opened; a settings file that could not be used said in the log and the header.
Status start_panels(App& app, const GuiOptions& o, const Settings& settings, bool remembered, const char* font) {
  if (!o.figure.empty()) request_figure(o.figure);
  if (auto added = add_panels(app, o, remembered); !added) return added;
  app.details = std::string("font: ") + font;
  if (auto chosen = select_first_panel(app, o, settings.panel, remembered, settings.first_run); !chosen) return chosen;
  app.status = "backend: looking for devices...";
  app.backend_found = std::async(std::launch::async, backend_status);
  if (app.start.is_open()) app.log.add("window", "start screen shown");
  if (!settings.problem.empty()) {
    app.log.add("window", settings.problem);
    app.warning = "Settings: " + settings.problem;
  }
  for (const std::string& path : o.open)
    if (auto opened = open_file(app, path); !opened) return Error{"--open: " + opened.error()};
  return {};
}

// A screenshot's frame written as a PNG, and with --check-layout, every control off the window
// and every figure too small or past its pane listed (an error when there is one).
Status save_screenshot(const GuiOptions& o, gl::Framebuffer& fbo, int w, int h) {
  if (!fbo.complete()) return Error{"offscreen framebuffer is incomplete"};
  if (auto ok = write_png_rgba(o.screenshot_path, fbo.read_rgba(), w, h); !ok) return ok;
  std::printf("wrote %s (%dx%d)\n", o.screenshot_path.c_str(), w, h);
  if (!o.check_layout) return {};
  const auto problems = layout_audit::problems();
  for (const std::string& p : problems) std::fprintf(stderr, "layout: %s\n", p.c_str());
  if (!problems.empty()) return Error{"the layout check found " + std::to_string(problems.size()) + " problem(s)"};
  std::printf("layout: nothing cut off, every figure at least %.0fx%.0f inside its pane\n",
              layout_audit::kMinFigureWidth, layout_audit::kMinFigureHeight);
  return {};
}

}  // namespace

int run_gui(const GuiOptions& o) {
  const bool screenshot = !o.screenshot_path.empty();
  if (!screenshot && !have_display()) return fail(no_display_message());
  // Remembered settings apply to a screenshot as to the window (so tests can exercise them with
  // XDG_CONFIG_HOME pointed at a folder of their own), unless --no-settings; only the window
  // a person uses writes them back.
  const bool remembered = !o.no_settings;
  Settings settings;
  if (remembered) settings = load_settings();
  const int width = !o.size_given && settings.width ? settings.width : o.width;
  const int height = !o.size_given && settings.height ? settings.height : o.height;
  auto opened = have_display() ? open_window(width, height, !screenshot) : open_headless(width, height);
  if (!opened) return fail(opened.error());
  std::unique_ptr<GlContext> ctx = std::move(opened).value();

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  // Only the window a person uses writes the remembered files back.
  std::string ini = load_ini_file(io, !screenshot && remembered);
  std::unique_ptr<RememberedState> saver;
  if (!screenshot && remembered && !config_dir().empty()) saver = std::make_unique<RememberedState>(config_dir());
  App app(o.verbose);
  app.presentation = o.presentation.value_or(settings.presentation);
  int w = 0, h = 0;
  float scale = 1;
  ctx->begin_frame(&w, &h, &scale);
  const char* font = apply_theme(app.presentation, scale);
  app.theme_scale = scale;
  if (ctx->glfw_window()) {
    ImGui_ImplGlfw_InitForOpenGL(ctx->glfw_window(), true);
    install_file_drop(ctx->glfw_window());
  }
  if (!ImGui_ImplOpenGL3_Init("#version 330 core")) return fail("OpenGL 3.3 renderer failed to start");

  if (auto started = start_panels(app, o, settings, remembered, font); !started)
    return fail(started.error(), /*bad_input=*/true);
  app.log.add("window", "opened " + std::to_string(w) + "x" + std::to_string(h) + ", " + app.details);

  std::unique_ptr<gl::Framebuffer> fbo;  // a screenshot's offscreen target
  int settled = 0;                       // frames drawn since the panels' background work finished
  const auto started = std::chrono::steady_clock::now();
  FrameMeter meter;
  // An interrupt (Ctrl-C in the terminal, SIGTERM, SIGHUP) ends the loop as closing the window does.
  while (!ctx->should_close() && !app.quit && interrupt_signal() == 0) {
    ctx->begin_frame(&w, &h, &scale);
    follow_theme(app, scale);
    if (ctx->glfw_window()) {
      ImGui_ImplGlfw_NewFrame();
    } else {
      io.DisplaySize = ImVec2(float(w), float(h));
      io.DeltaTime = 1.0f / 60.0f;
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    if (app.backend_found.valid() && app.backend_found.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      app.status = app.backend_found.get();
      app.log.add("window", app.status);
    }
    take_drops(app);
    layout_audit::begin_frame();
    draw_frame(app, int(io.DisplaySize.x), int(io.DisplaySize.y));
    ImGui::Render();
    if (screenshot && (!fbo || fbo->width() != w || fbo->height() != h)) fbo = std::make_unique<gl::Framebuffer>(w, h);
    if (fbo) fbo->bind();
    else glViewport(0, 0, w, h);
    glClearColor(0.06f, 0.06f, 0.07f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    // A screenshot waits (up to a minute) for work the panels run off the UI thread.
    const bool waiting = app.backend_found.valid() ||
                         std::any_of(app.panels.begin(), app.panels.end(), [](auto& p) { return p->busy(); });
    if (screenshot && waiting && std::chrono::steady_clock::now() - started < kScreenshotWait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      settled = 0;
      ctx->end_frame();
      continue;
    }
    // F12: the whole window as it is now, to a PNG (the window, not the offscreen path).
    // The pixels are read here (the GL context is this thread's); the PNG is encoded and
    // written off it, so a large window does not stall a frame.
    if (!screenshot && ctx->glfw_window() && ImGui::IsKeyPressed(GLFW_KEY_F12, false)) capture_window(app, w, h);
    if (auto done = app.capture.take()) {
      if (done->rfind(kCaptureFailed, 0) == 0) warn(app, "window", *done);
      else app.log.add("window", *done);
    }
    if (saver) keep_remembered(app, *saver, settings.panel, w, h, ini);
    if (screenshot && ++settled >= kScreenshotFrames) {
      // A checkpoint that did not scan is drawn as its error, but the command named it: bad input
      // (or a failed read) as `scan` would say, not a picture of an empty panel -- and said before
      // a --figure the failed scan could not draw.
      if (auto failed = app.checkpoint->failure())
        return fail("checkpoint: " + failed->message, /*bad_input=*/!failed->environment);
      if (!o.figure.empty() && !figure_served(o.figure)) {
        if (waiting)  // the panels' work did not finish within the wait: nothing was drawn to choose from
          return fail("--figure " + o.figure + ": the view's work was still running when the screenshot was taken");
        return fail("--figure " + o.figure + ": no figure of that name in this view", /*bad_input=*/true);
      }
      if (waiting)  // (the picture is still written: what the view shows at the end of the wait)
        std::fprintf(stderr,
                     "warning: the view's background work was still running after %lld s: the screenshot "
                     "shows it unfinished\n",
                     static_cast<long long>(kScreenshotWait.count()));
      if (auto saved = save_screenshot(o, *fbo, w, h); !saved) return fail(saved.error());
      break;
    }
    ctx->end_frame();
    if (const std::string report = meter.frame_done(!screenshot); !report.empty() && o.verbose) {
      std::printf("[frames] %s%s\n", report.c_str(), waiting ? ", background work running" : "");
      std::fflush(stdout);
    }
  }
  // Settings that could not be written are an environment failure: exit 1, said as every
  // command says an error, after the window has closed.
  int status = 0;
  if (saver) {
    if (auto saved =
            saver->save_changed_now(remembered_texts(app, settings.panel, w, h, ImGui::SaveIniSettingsToMemory()));
        !saved)
      status = fail("settings not saved: " + saved.error());
  }
  // The panels' runs are asked to stop together, and the window goes at once: their destructors
  // (at the end of this scope, before the window's) join each run, which stops at its next check,
  // and wait for an export to be written whole.
  for (auto& p : app.panels) p->stop_work();
  if (ctx->glfw_window()) glfwHideWindow(ctx->glfw_window());
  ImGui_ImplOpenGL3_Shutdown();
  if (ctx->glfw_window()) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  return status;
}

}  // namespace pl::ui
