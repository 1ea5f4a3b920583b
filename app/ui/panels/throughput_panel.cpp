#include "app/ui/panels/throughput_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/ui/shell/layout_audit.h"
#include "app/ui/shell/theme.h"
#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/accumulate/blas.h"
#include "core/backend/backend.h"
#include "core/backend/peak_rates.h"
#include "core/export/experiment_export.h"
#include "core/export/export_dir.h"
#include "core/export/result_folder.h"
#include "core/figure/throughput_figures.h"
#include "core/util/exception_text.h"

namespace pl::ui {
namespace {

constexpr size_t kSizes[] = {128, 256, 512, 1024, 2048, 4096, 8192};  // 8192: a GPU's
constexpr const char* kSizeNames[] = {"128", "256", "512", "1024", "2048", "4096", "8192"};
constexpr size_t kMedianWindow = 9;
constexpr size_t kSettledSamples = 20;   // per dtype, before a screenshot is taken
constexpr double kRedrawSeconds = 0.25;  // the chart redraws at most this often

}  // namespace

ThroughputPanel::ThroughputPanel(RunLog& log) : log_(log), probe_(log) {
  figure_view_.set_log(&log_, "throughput");
  for (DType t : {DType::float64, DType::float32, DType::tf32, DType::bfloat16, DType::float16, DType::float8_e4m3fn,
                  DType::float8_e5m2, DType::float4_e2m1fn, DType::int8})
    choices_.push_back({t, t == DType::float64 || t == DType::float32 || t == DType::bfloat16 || t == DType::float16 ||
                               t == DType::float8_e4m3fn || t == DType::int8});
}

ThroughputPanel::~ThroughputPanel() {
  pending_start_.reset();
  sampler_.cancel();
  take_outcome();  // the medians so far, in the log, as on any stop
}

bool ThroughputPanel::busy() const {
  if (!sampler_.running()) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!error_.empty()) return false;
  for (const auto& c : choices_)
    if (c.on && history_.count(c.dtype) < kSettledSamples) return true;
  return false;
}

void ThroughputPanel::start(bool fresh) {
  take_outcome();  // (one not taken yet would be dropped by the start)
  if (sampler_.running()) {  // stopped first, never waited for: started when it has (collect)
    request_stop();
    pending_start_ = pending_start_.value_or(false) || fresh;
    return;
  }
  std::vector<DType> dtypes;
  for (const auto& c : choices_)
    if (c.on) dtypes.push_back(c.dtype);
  if (dtypes.empty()) return;
  resume_fresh_ = false;
  const size_t n = kSizes[size_index_];
  const BackendChoice backend = backend_.chosen();
  if (backend != sampled_backend_) {  // another device: not the last one's name until it is found
    device_ = kLookingForDevice;
    gpu_ = false;
    peak_part_.clear();
    sampled_backend_ = backend;
  }
  double offset = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fresh) history_.clear(), methods_.clear(), cpu_timed_.clear();
    if (!history_.samples().empty()) offset = history_.samples().back().at;
    error_.clear();
  }
  ++version_;
  stopping_ = false;
  sampler_.start_when_idle([this, dtypes, n, offset, backend](const std::function<void(double)>&,
                                                              const std::atomic<bool>* stop) -> Expected<bool> {
    // The device found here, off the UI thread, so that a backend still being opened elsewhere
    // (shared_backend's lock) never holds up a frame.
    const experiment::ThroughputDevice where = experiment::throughput_device(backend);
    if (stop->load()) return true;  // stopped while it was found: the next sampler says its own
    {
      std::lock_guard<std::mutex> lock(mutex_);
      found_ = FoundDevice{where.name, where.gpu, where.info.peak_part};
    }
    ++version_;
    log_.add("throughput", "sampling " + std::to_string(dtypes.size()) + " dtypes, " + std::to_string(n) +
                               "^3 products on " + where.name);
    const Status ok = experiment::sample_throughput(
        dtypes, n, *stop,
        [this, offset](experiment::ThroughputSample s) {
          s.at += offset;
          std::lock_guard<std::mutex> lock(mutex_);
          history_.add(s);
          ++version_;
        },
        [this](const std::string& s) {
          std::lock_guard<std::mutex> lock(mutex_);
          status_ = s;
        },
        backend,
        [this](const experiment::ProductBench& b) {
          std::lock_guard<std::mutex> lock(mutex_);
          methods_[b.dtype] = {b.method, b.emulated};
          if (b.backend == BackendChoice::Cpu) cpu_timed_.insert(b.dtype);  // (named until a fresh chart)
        });
    if (!ok) return Error{ok.error()};
    return true;
  });
}

void ThroughputPanel::request_stop() {
  if (!sampler_.running()) return;
  sampler_.request_cancel();
  stopping_ = true;
}

void ThroughputPanel::adopt_found_device() {
  std::lock_guard<std::mutex> lock(mutex_);
  adopt_found_device_locked();
}

void ThroughputPanel::adopt_found_device_locked() {
  if (!found_) return;
  device_ = std::move(found_->name);
  gpu_ = found_->gpu;
  peak_part_ = std::move(found_->peak_part);
  found_.reset();
}

void ThroughputPanel::take_outcome() {
  adopt_found_device();  // (the medians logged below are in its unit)
  auto done = sampler_.take();
  if (!done) return;
  stopping_ = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = *done ? "stopped" : "error";
    if (!*done) error_ = done->error();
  }
  log_summary();
}

void ThroughputPanel::collect() {
  take_outcome();
  if (pending_start_ && !sampler_.running()) {
    const bool fresh = *pending_start_;
    pending_start_.reset();
    if (live_) start(fresh);
    else resume_fresh_ = resume_fresh_ || fresh;
  }
}

void ThroughputPanel::log_summary() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!history_.samples().empty()) {
    const experiment::RateUnit unit = experiment::rate_unit(gpu_);
    std::string summary = "medians:";
    for (DType t : history_.dtypes()) {
      char buf[80];
      std::snprintf(buf, sizeof buf, " %s %.1f %s (%zu)", std::string(pl::name(t)).c_str(),
                    history_.median_gflops(t) * unit.scale, experiment::rate_unit_name(unit, t).c_str(),
                    history_.count(t));
      summary += buf;
    }
    log_.add("throughput", summary);
  }
  if (!error_.empty()) log_.add("throughput", "error: " + error_);
}

void ThroughputPanel::hidden() {
  // A chart nobody sees does not take the CPU; it resumes when shown, as a fresh chart where a
  // restart (Clear, another n or device) was asked for and is still to come.
  if (pending_start_) resume_fresh_ = resume_fresh_ || *pending_start_;
  pending_start_.reset();
  request_stop();
  collect();
}

std::string ThroughputPanel::export_figures() {
  if (figures_.empty()) return "nothing sampled yet";
  if (export_.running()) return "an export is still being written";
  auto folder = exporting::new_export_dir("throughput");
  if (!folder) return "export failed: " + folder.error();
  export_.start([figures = figures_, dir = *folder, this] {
    auto saved =
        exporting::fill_export_dir(dir, [&](const std::string& tmp) { return exporting::save_figures(figures, tmp); });
    const std::string what = saved ? "exported to " + dir : "export failed: " + saved.error();
    log_.add("throughput", what);
    return what;
  });
  return "exporting...";
}

void ThroughputPanel::draw_controls() {
  if (auto done = export_.take()) export_status_ = *done;
  collect();
  bool restart = false;
  const float size_width = ImGui::GetFontSize() * 4.5f;
  if (presentation_mode()) {
    // In presentation mode's large type a row of checkboxes would take two lines of the table's
    // room: the dtypes are a list that drops down, its preview naming those timed.
    std::string shown;
    size_t on = 0;
    for (const auto& c : choices_)
      if (c.on) shown += (on++ ? ", " : "") + std::string(pl::name(c.dtype));
    // The names when they fit the box, else how many (the box would cut "float64, float32, bfloat1").
    const float width = ImGui::GetFontSize() * 12;
    const std::string preview = on == 0 ? "none"
                                : ImGui::CalcTextSize(shown.c_str()).x <= combo_preview_room(width)
                                    ? shown
                                    : std::to_string(on) + " of " + std::to_string(choices_.size()) + " timed";
    label_before("dtypes");
    ImGui::SetNextItemWidth(width);
    if (ImGui::BeginCombo("##dtypes", preview.c_str())) {
      for (auto& c : choices_) restart |= ImGui::Checkbox(std::string(pl::name(c.dtype)).c_str(), &c.on);
      ImGui::EndCombo();
    }
    if (preview != shown && on > 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", shown.c_str());
    same_line_if_fits(labelled_width(size_width, "n (n x n x n)"));
  } else {
    ImGui::TextUnformatted("dtypes:");
    for (auto& c : choices_) {
      const std::string label(pl::name(c.dtype));
      same_line_if_fits(checkbox_width(label.c_str()));
      restart |= ImGui::Checkbox(label.c_str(), &c.on);
    }
  }
  label_before("n (n x n x n)");
  ImGui::SetNextItemWidth(size_width);
  restart |= ImGui::Combo("##n", &size_index_, kSizeNames, IM_ARRAYSIZE(kSizeNames));
  const float device_width = ImGui::GetFontSize() * 14;
  same_line_if_fits(labelled_width(device_width, "device"));
  label_before("device");
  ImGui::SetNextItemWidth(device_width);
  restart |= backend_.draw("##device");
  same_line_if_fits(checkbox_width("live (Space)"));
  if (ImGui::Checkbox("live (Space)", &live_)) restart = true;
  const float sheet_width = ImGui::GetFontSize() * 8;
  same_line_if_fits(labelled_width(sheet_width, "datasheet"));
  label_before("datasheet");
  ImGui::SetNextItemWidth(sheet_width);
  if (ImGui::BeginCombo("##datasheet",
                        datasheet_index_ == 0 ? "none" : peak::parts()[datasheet_index_ - 1].name.data())) {
    if (ImGui::Selectable("none", datasheet_index_ == 0)) datasheet_index_ = 0, drawn_version_ = -1;
    for (size_t i = 0; i < peak::parts().size(); ++i) {
      const auto& part = peak::parts()[i];
      if (ImGui::Selectable(std::string(part.name).c_str(), datasheet_index_ == int(i) + 1))
        datasheet_index_ = int(i) + 1, drawn_version_ = -1;
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s, %d SMs\n%s", part.architecture.data(), part.sms, part.source.data());
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The GPU whose published dense peaks the table and the speed-up chart compare with\n"
        "(precision-lab devices --peaks lists them with their sources).");
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false) && !ImGui::GetIO().WantTextInput)
    live_ = !live_, restart = true;
  same_line_if_fits(button_width("Clear"));
  if (ImGui::Button("Clear")) restart = true;
  same_line_if_fits(button_width("Export (Ctrl+E)"));
  if (ImGui::Button("Export (Ctrl+E)") || (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed('E', false)))
    export_status_ = export_figures();
  std::string status, error;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status = status_;
    error = error_;
  }
  if (restart) {
    if (live_) start(true);
    else pending_start_.reset(), request_stop();
  } else if (live_ && !sampler_.running() && !pending_start_ && error.empty()) {
    start(resume_fresh_);  // first shown, or shown again after a pause: the chart goes on
  }
  const char* state = !sampler_.running() ? "paused"
                      : stopping_         ? "stopping: the product under way finishes first"
                                          : status.c_str();
  ImGui::TextDisabled("%s; %s%s%s", device_.c_str(), state, export_status_.empty() ? "" : "; ",
                      export_status_.c_str());
  if (!error.empty()) ImGui::TextColored({1.0f, 0.45f, 0.4f, 1}, "error: %s", error.c_str());
  if (!presentation_mode()) draw_method_note();
}

// What the rates measure on this device. In presentation mode it goes below the table, in the
// pane that scrolls: above it, its three lines of large type would leave the figure a strip.
void ThroughputPanel::draw_method_note() const {
  if (device_.find("(cuda") == std::string::npos)
    wrapped_text_colored(
        {0.95f, 0.8f, 0.35f, 1},
        "On the CPU only float64 and float32 run in the library's own arithmetic: every narrower "
        "dtype is emulated (rounded values in float32 sgemm, int8 as exact sums in dgemm), so its rate "
        "measures emulation on this CPU, not what hardware with native support reaches.");
  else
    wrapped_text_colored({0.95f, 0.8f, 0.35f, 1},
                         "On the GPU each dtype runs cuBLASLt's own kernel for it (float32 on the CUDA cores, as "
                         "CUBLAS_COMPUTE_32F_PEDANTIC asks; the others on tensor cores where the GPU has them), "
                         "timed by CUDA events; a row whose method says \"values as float32\" or \"on the "
                         "CPU\" is emulated or was not run on the GPU.");
}

std::string ThroughputPanel::datasheet() const {
  return datasheet_index_ == 0 ? "" : std::string(peak::parts()[datasheet_index_ - 1].name);
}

void ThroughputPanel::draw_table(const experiment::ThroughputHistory& h) {
  const Quartiles f32_quartiles = h.quartiles_gflops(DType::float32);  // (each call sorts the samples)
  const double f32 = f32_quartiles.median;
  const bool sheet = !shown_summary_.datasheet.empty();
  const peak::Part* peak = peak_part_.empty() ? nullptr : peak::find_part(peak_part_);
  // Its rows' height; the method column at its text's width, scrolling sideways (cut at the
  // window's edge, "...; emu" would be all a class could read). A row for every chosen dtype from
  // the start: what sits under the table stays put while the first samples come in.
  std::vector<DType> chosen;
  for (const auto& c : choices_)
    if (c.on) chosen.push_back(c.dtype);
  const auto dtypes = h.rows(chosen);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float row = ImGui::GetTextLineHeight() + 2 * style.CellPadding.y;
  // (The headers take two lines: on one, the method column would start past 1280 px in
  // presentation mode. The sideways bar's room only where the table needs it: kept, it would read
  // as a blank row.)
  const SidewaysBar bar("rates");
  const float height = row * float(dtypes.size() + 1) + ImGui::GetTextLineHeight() + bar.height() + 2;
  if (!ImGui::BeginTable("rates", 5 + (sheet ? 1 : 0) + (peak ? 1 : 0),
                         ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                             ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY,
                         // Its rows' height, not the space left: the pane above the figure fits its content,
                         // and a table that fitted the pane would shrink with it, frame after frame. (The pane
                         // scrolls instead.)
                         ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("dtype");
  ImGui::TableSetupColumn("samples");
  const experiment::RateUnit unit = experiment::rate_unit(gpu_);
  // The unit on the second line, with "(int8: GOP/s)" where an integer dtype is sampled (its
  // operations are not floating-point ones). The header says what the parentheses in the cells
  // hold: on a projector no one hovers for the tooltip.
  const std::string rate_header = "median (quartiles)\n" + experiment::rate_axis_name(unit, dtypes);
  ImGui::TableSetupColumn(rate_header.c_str());
  ImGui::TableSetupColumn(peak ? "vs\nfloat32" : "vs float32\nsgemm");
  const std::string sheet_header = shown_summary_.config.datasheet + "\ndatasheet";
  if (sheet) ImGui::TableSetupColumn(sheet_header.c_str());
  if (peak) ImGui::TableSetupColumn("% of\npeak");
  ImGui::TableSetupColumn("how it is\ncomputed");
  ImGui::TableHeadersRow();
  for (const DType t : dtypes) {
    ImGui::TableNextRow();
    if (t == dtypes.front())
      layout_audit::note_rows_in_view("the Throughput panel's table", float(std::min<size_t>(2, dtypes.size())), row);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(std::string(pl::name(t)).c_str());
    ImGui::TableNextColumn();
    const size_t samples = h.count(t);
    const bool sampled = samples > 0;
    ImGui::Text("%zu%s", samples, h.trimmed() && samples == h.kept() ? " (the last)" : "");
    ImGui::TableNextColumn();
    const Quartiles quartiles = h.quartiles_gflops(t);
    if (sampled) ImGui::TextUnformatted(experiment::spread_text(quartiles, unit.scale).c_str());
    else ImGui::TextDisabled("%s", sampler_.running() ? "waiting" : "-");
    if (sampled && ImGui::IsItemHovered()) {
      const std::string in = experiment::rate_unit_name(unit, t);
      ImGui::SetTooltip("the median of every sample, and the quartiles: half the samples lie between them%s",
                        in == unit.name ? "" : ("\nin " + in + ": an integer product's 2 n^3 operations are not "
                                                "floating-point ones").c_str());
    }
    ImGui::TableNextColumn();
    if (!sampled) {
      ImGui::TextDisabled("-");
    } else if (f32 > 0) {
      const std::string ratio = t == DType::float32 ? std::string("100%")  // the reference itself
                                                    : experiment::ratio_text(quartiles, f32_quartiles);
      if (ratio.back() == '%') ImGui::TextUnformatted(ratio.c_str());
      else ImGui::TextDisabled("%s", ratio.c_str());  // "spreads overlap"
    } else {
      ImGui::TextDisabled("(float32 not sampled)");
    }
    if (sampled && ImGui::IsItemHovered())
      ImGui::SetTooltip("%s\nWhere the quartile ranges overlap the samples do not tell the two apart: no ratio.",
                        gpu_ ? "The median against float32's, sampled on the same GPU in the same run."
                             : "The CPU backend has no tabulated peak: rates are compared with this CPU's "
                               "float32\nsgemm, measured in the same run.");
    if (sheet) {
      ImGui::TableNextColumn();
      // The summary has rows only for the dtypes sampled.
      const auto row = std::find_if(shown_summary_.datasheet.begin(), shown_summary_.datasheet.end(),
                                    [t](const experiment::DatasheetRow& d) { return d.dtype == t; });
      if (row == shown_summary_.datasheet.end()) {
        ImGui::TextDisabled("-");
      } else if (const auto& d = *row; d.supported)
        // The unit in the cell: a bare "T" beside the GFLOP/s column would read as a thousand of them.
        ImGui::Text("%.1f %s, %gx %s", d.tflops, is_integer(t) ? "TOPS" : "TFLOP/s", d.speedup,
                    std::string(pl::name(shown_summary_.config.baseline)).c_str());
      else ImGui::TextDisabled("no such arithmetic");
      if (row != shown_summary_.datasheet.end() && ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "%s\n%s",
            row->supported ? ("dense peak on " + row->unit + ", TFLOP/s (TOPS for int8)").c_str() : row->why_not.c_str(),
            shown_summary_.datasheet_source.c_str());
    }
    if (peak) {
      ImGui::TableNextColumn();
      auto rate = peak::fastest_rate(*peak, t);
      if (rate && sampled) ImGui::Text("%.0f%%", 100 * quartiles.median / 1e3 / peak::published_value(*rate));
      else ImGui::TextDisabled("-");
      if ((sampled || !rate) && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", rate ? ("the median against " + std::string(peak->name) + "'s published dense peak, " +
                                        std::string(rate->published) + (is_integer(t) ? " TOPS" : " TFLOP/s"))
                                           .c_str()
                                     : rate.error().c_str());
    }
    ImGui::TableNextColumn();
    std::string how;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = methods_.find(t);
      how = it != methods_.end() ? it->second.first : experiment::product_method(t);
    }
    // On the CPU without the library's core, which the line above the table names; the whole
    // text on hover (at 1280 px the column starts near the pane's right edge).
    ImGui::TextUnformatted(gpu_ ? how.c_str() : experiment::method_without_library(how).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", how.c_str());
  }
  bar.note();
  mark_more_right();  // (its last column, "how it is computed", can run off the edge in presentation mode)
  ImGui::EndTable();
}

void ThroughputPanel::draw_content() {
  // In presentation mode the controls scroll with the table, above the figure: at 1280x800 their
  // four rows of large type would otherwise leave the chart 130 px.
  const bool presenting = presentation_mode();
  if (!presenting) draw_controls();
  // The worker's history is copied (and the figures rebuilt) only when it has new samples, at
  // most every kRedrawSeconds; other frames draw the last copy.
  const auto now = std::chrono::steady_clock::now();
  const int v = version_;
  if (v != drawn_version_ && std::chrono::duration<double>(now - drawn_at_).count() > kRedrawSeconds) {
    {
      // The device with the samples it found, whichever of the controls (which adopt it too)
      // comes first: in presentation mode they follow this.
      std::lock_guard<std::mutex> lock(mutex_);
      adopt_found_device_locked();
      shown_history_ = history_;
    }
    figure::ThroughputContext c{kSizes[size_index_], device_, kMedianWindow, gpu_, {}, {}};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& [t, method] : methods_)
        if (cpu_timed_.count(t) != 0) c.on_cpu.push_back(t);
        else if (method.second) c.emulated.push_back(t);
    }
    figures_ = {figure::throughput_over_time(shown_history_, c), figure::throughput_bars(shown_history_, c)};
    shown_summary_ = experiment::summarise_history(shown_history_, c.n, datasheet(), device_);
    if (!shown_history_.samples().empty()) figures_.push_back(figure::speedup_vs_datasheet(shown_summary_));
    drawn_version_ = v;
    drawn_at_ = now;
  }
  // In presentation mode the pane keeps at least 7 lines of large type, room for the controls,
  // the table's header and its first rows (at 1280x800 the figure's share would otherwise leave
  // the header a sliver), and leaves the figure 14, room for its legend beside the plot. (A share
  // of the height instead, 36%, would hide the table's note under "more below" at 1920x1080 with
  // room to spare.)
  split_.begin_top("throughput", presenting ? 7 : 3, presenting ? 14 : 18);
  if (presenting) draw_controls();
  draw_table(shown_history_);
  if (presenting) draw_method_note();
  if (ImGui::CollapsingHeader("How this device adds (accumulation probe)")) probe_.draw(backend_.chosen());
  split_.begin_bottom();
  figure_view_.draw("throughput figures", figures_, std::to_string(drawn_version_));
  split_.end();
}

}  // namespace pl::ui
