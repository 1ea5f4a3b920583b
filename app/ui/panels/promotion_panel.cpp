// The Promotion panel: a dtype x dtype grid of what a framework release does with each pair.
//
// Sections, in order (search for "// ----"):
//   cells           colours, labels and the legend of outcomes
//   state           start state from the command line, the query a cell asks, recompute
//   settings row    engine, op, operand kinds, bias, a convolution's shapes
//   grid            the table and the chosen pair's message, rule, fixes and matmul precision
//   keys            arrow keys over the grid
//   the panel       draw_content
#include "app/ui/panels/promotion_panel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <tuple>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_internal.h>

#include "app/ui/panels/promotion_columns.h"
#include "app/ui/shell/layout_audit.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/dtype/format_lookup.h"
#include "core/promote/py_value.h"
#include "core/promote/torch_engine.h"
#include "core/promote/torch_matmul_precision.h"
#include "core/util/number_text.h"

namespace pl::ui {
namespace {

// A grid cell's colour, drawn with the cell's own clipping. (ImGui 1.86 draws a TableSetBgColor
// colour of a row scrolled half under the frozen header over the header: scenario 23's grid,
// scrolled to i32, would show the i8 row's blue and red in the u8, u16 and u32 headers.)
void cell_background(ImU32 colour) {
  ImGuiTable* table = ImGui::GetCurrentTable();
  const ImRect r = ImGui::TableGetCellBgRect(table, ImGui::TableGetColumnIndex());
  // A pixel short on the right and below: drawn with the text, over the table's inner borders,
  // the full rectangle would merge neighbouring cells of one colour into a block.
  ImGui::GetWindowDrawList()->AddRectFilled(r.Min, {r.Max.x - 1, r.Max.y - 1}, colour);
}

using promote::Outcome;
using promote::OutcomeClass;

// ---- cells ------------------------------------------------------------------------

// Okabe & Ito colours, dimmed to sit behind text: kept grey, widened blue, narrowed
// orange, error vermillion; a disagreement in compare mode gets a yellow frame.
ImU32 class_colour(OutcomeClass c) {
  switch (c) {
    case OutcomeClass::Kept: return IM_COL32(70, 74, 82, 255);
    case OutcomeClass::Widened: return IM_COL32(0, 90, 140, 255);
    case OutcomeClass::Narrowed: return IM_COL32(150, 100, 0, 255);
    case OutcomeClass::Error: return IM_COL32(140, 40, 20, 255);
    case OutcomeClass::Object: return IM_COL32(100, 50, 130, 255);
  }
  return 0;
}
constexpr ImU32 kDisagree = IM_COL32(240, 228, 66, 255);
constexpr ImU32 kNotApplicable = IM_COL32(38, 38, 42, 255);

bool is_narrow_float(DType t) {
  const auto& i = info(t);
  return i.kind == DTypeKind::Float && i.storage_bits <= 8;
}

std::string outcome_line(const promote::Engine& e, const Outcome& o) {
  if (o.ok()) return "-> " + e.spell(*o.result);
  if (!o.other_result.empty()) return "-> dtype=" + o.other_result;
  return o.error_type + ": " + o.message;
}

// Two errors in compare mode: another exception type, or the same one with another message.
constexpr const char* kOtherError = "\u2260 error";
constexpr const char* kOtherText = "\u2260 text";

std::string cell_label(const Outcome& o) {
  if (o.ok()) return short_name(*o.result);
  if (!o.other_result.empty()) return o.other_result;
  return not_applicable(o) ? "n/a" : "error";
}

// In compare mode, what differs, in the cell: both dtypes ("f32|f16"), an answer against an
// error ("f32|err"), or for two errors whether the exception differs ("≠ error") or only its
// text ("≠ text"), in words a class reads on a projector.
bool raises(const Outcome& o) { return !o.ok() && o.other_result.empty(); }

std::string difference_label(const Outcome& a, const Outcome& b) {
  const bool a_raises = raises(a), b_raises = raises(b);
  if (a_raises && b_raises) return a.error_type != b.error_type ? kOtherError : kOtherText;
  return (a_raises ? std::string("err") : cell_label(a)) + "|" + (b_raises ? std::string("err") : cell_label(b));
}

// Whether the compared setting answers a cell otherwise. A cell one side does not model (CUDA's
// untested dtypes) is unknown, not a disagreement.
bool answers_differ(const Outcome& o, const Outcome& other) {
  return o.error_type != "precision-lab" && other.error_type != "precision-lab" && !same_outcome(o, other);
}

// What a framed cell's label says, in words (its tooltip's first line).
std::string difference_meaning(const std::string& label) {
  if (label == kOtherError) return "the settings disagree: both raise, with different exception types";
  if (label == kOtherText) return "the settings disagree: both raise the same exception type with different messages";
  return "the settings disagree: this setting's answer | the compared one's (err: the call raises)";
}

// The operand kinds as the window names them (promote::OperandKind's order).
// NumPy and JAX call theirs arrays ("a tensor" under NumPy 2's caption would read as PyTorch's).
constexpr std::array<std::string_view, 3> kKindLabels = {"tensor", "zero-dim tensor", "Python scalar"};
constexpr std::array<std::string_view, 3> kArrayKindLabels = {"array", "zero-dim array", "Python scalar"};

const std::array<std::string_view, 3>& kind_labels(const promote::Engine& e) {
  return e.framework == "numpy" || e.framework == "jax" ? kArrayKindLabels : kKindLabels;
}

// The selected cell: a white frame, unlike every class colour and the compare mode's yellow.
constexpr ImU32 kSelected = IM_COL32(255, 255, 255, 255);

// A colour key's entry: a swatch and its name.
float chip_width(const char* text) {
  return ImGui::GetTextLineHeight() + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(text).x;
}
// An entry on the line so far where it fits there, else on the next.
void legend_chip(OutcomeClass c, const char* text, const char* meaning) {
  const float h = ImGui::GetTextLineHeight();
  same_line_if_fits(chip_width(text));
  const float x = ImGui::GetCursorScreenPos().x;
  ImGui::Dummy({h, h});
  ImGui::SameLine();
  ImGui::TextUnformatted(text);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", meaning);
  // The swatch level with its words, drawn once they are placed: on a line of checkboxes the
  // words sit a frame's padding lower than the line's top, and a swatch at the top would stand
  // above them like another checkbox.
  const float y = ImGui::GetItemRectMin().y;
  ImGui::GetWindowDrawList()->AddRectFilled({x, y}, {x + h, y + h}, class_colour(c));
}

}  // namespace

// ---- state ------------------------------------------------------------------------

PromotionPanel::PromotionPanel(RunLog& log) : log_(log) {
  for (const auto& row : all_dtypes())
    for (const auto& e : promote::engines())
      if (e.has_dtype(row.id)) {
        dtypes_.push_back(row.id);
        break;
      }
  other_.b_kind = static_cast<int>(promote::OperandKind::ZeroDim);  // a telling first compare
}

Status PromotionPanel::configure(const StartState& st) {
  auto engine_index = [](const std::string& id) {
    const auto all = promote::engines();
    for (int i = 0; i < int(all.size()); ++i)
      if (all[i].id == id) return i;
    return -1;
  };
  // Built aside and taken only when every part reads: a refused state leaves the grid as it was.
  const int main_engine = engine_index(st.framework);
  if (main_engine < 0)
    return Error{"unknown framework '" + st.framework + "' (available: " + promote::engine_names() + ")"};
  Setting main{main_engine};
  const auto& e = engine(main);
  auto it = std::find(e.ops.begin(), e.ops.end(), st.op);
  if (it == e.ops.end()) return Error{"unknown op '" + st.op + "' for " + st.framework};
  main.op = int(it - e.ops.begin());
  const auto kind = promote::parse_operand_kind(st.b_kind);
  if (!kind) return Error{"--b-kind takes tensor, zerodim or scalar"};
  main.b_kind = static_cast<int>(*kind);
  std::snprintf(main.b_value, sizeof main.b_value, "%s", st.b_value.c_str());
  std::snprintf(main.a_shape, sizeof main.a_shape, "%s", st.a_shape.c_str());
  std::snprintf(main.b_shape, sizeof main.b_shape, "%s", st.b_shape.c_str());
  if (!st.bias.empty()) {
    if (std::find(e.bias_ops.begin(), e.bias_ops.end(), st.op) == e.bias_ops.end())
      return Error{st.op + " takes no bias"};
    auto t = parse_dtype(st.bias);
    if (!t) return Error{"bias: " + t.error()};
    auto pos = std::find(dtypes_.begin(), dtypes_.end(), *t);
    if (pos == dtypes_.end() || !e.has_dtype(*t)) return Error{"bias: " + promote::missing_dtype_text(e, *t)};
    main.bias = int(pos - dtypes_.begin()) + 1;
  }
  promote::Query placed;
  placed.b.kind = *kind;
  if (auto ok = promote::place_operands(e, placed, st.a_device, st.b_device, "--a-device", "--b-device"); !ok)
    return Error{ok.error()};
  if (placed.a_device) main.a_device = static_cast<int>(*placed.a_device);
  if (placed.b_device) main.b_device = static_cast<int>(*placed.b_device);
  if (auto shape = conv_shape(main); !shape) return Error{shape.error()};
  else if (!*shape && !(st.a_shape.empty() && st.b_shape.empty()))
    return Error{"--a-shape and --b-shape are for conv1d and conv2d on the CPU torch engines"};
  Setting other = other_;
  if (!st.compare_with.empty()) {
    const int other_engine = engine_index(st.compare_with);
    if (other_engine < 0) return Error{"unknown framework '" + st.compare_with + "'"};
    other = main;  // the same question, asked of another engine
    other.engine = other_engine;
    const auto& oe = engine(other);
    auto oit = std::find(oe.ops.begin(), oe.ops.end(), st.op);
    if (oit == oe.ops.end()) return Error{"unknown op '" + st.op + "' for " + st.compare_with};
    other.op = int(oit - oe.ops.begin());
  } else {
    other.op = main.op;
  }
  int selected[2] = {selected_a_, selected_b_};
  if (const std::string& select = st.select; !select.empty()) {
    const auto comma = select.find(',');
    if (comma == std::string::npos) return Error{"--select takes A,B"};
    for (int side = 0; side < 2; ++side) {
      auto t = parse_dtype(side ? select.substr(comma + 1) : select.substr(0, comma));
      if (!t) return Error{t.error()};
      auto pos = std::find(dtypes_.begin(), dtypes_.end(), *t);
      if (pos == dtypes_.end()) return Error{std::string(pl::name(*t)) + " is in no framework"};
      selected[side] = int(pos - dtypes_.begin());
    }
  }
  main_ = main;
  other_ = other;
  compare_ = st.compare || !st.compare_with.empty();
  selected_a_ = selected[0], selected_b_ = selected[1];
  // Hidden as asked, unless the selected pair is one of them.
  if (st.hide_narrow_floats)
    hide_narrow_floats_ =
        *st.hide_narrow_floats &&
        !(selected_a_ >= 0 && (is_narrow_float(dtypes_[selected_a_]) || is_narrow_float(dtypes_[selected_b_])));
  scroll_to_selected_ = scroll_to_selected_row_ = selected_a_ >= 0;
  natural_width_ = 0;  // (the grid of the settings before: measured again as drawn)
  grid_rows_.cancel_scroll();
  return {};
}

std::optional<promote::Outcome> PromotionPanel::selected_outcome() const {
  if (selected_a_ < 0 || selected_b_ < 0) return std::nullopt;
  return engine(main_).evaluate(query(main_, dtypes_[selected_a_], dtypes_[selected_b_]));
}

const promote::Engine& PromotionPanel::engine(const Setting& s) const { return promote::engines()[s.engine]; }

promote::Query PromotionPanel::query(const Setting& s, DType a, DType b) const {
  const auto& e = engine(s);
  const bool b_valued = promote::models_value(e.values, static_cast<promote::OperandKind>(s.b_kind));
  promote::Query q{std::string(e.ops[s.op]),
                   {a, static_cast<promote::OperandKind>(s.a_kind)},
                   {b, static_cast<promote::OperandKind>(s.b_kind), b_valued ? s.b_value : ""},
                   std::nullopt};
  if (s.bias > 0) q.bias = dtypes_[s.bias - 1];
  if (e.operand_device && (s.a_device >= 0 || s.b_device >= 0)) {  // both named, as the CLI does
    const auto on = [&](int d) { return d >= 0 ? promote::Device(d) : *e.operand_device; };
    if (q.a.kind != promote::OperandKind::Scalar) q.a_device = on(s.a_device);  // (a Python scalar has no device)
    if (q.b.kind != promote::OperandKind::Scalar) q.b_device = on(s.b_device);
  }
  if (auto shape = conv_shape(s)) q.conv = *shape;  // shapes that cannot be used: the default, and the panel says why
  return q;
}

Expected<std::optional<promote::ConvShape>> PromotionPanel::conv_shape(const Setting& s) const {
  const auto& e = engine(s);
  const std::string_view op = e.ops[s.op];
  if (std::find(e.shape_ops.begin(), e.shape_ops.end(), op) == e.shape_ops.end())
    return std::optional<promote::ConvShape>{};
  auto shape = promote::torch::conv_shape_from_text(*promote::torch::parse_op(op), s.a_shape, s.b_shape, s.groups,
                                                    s.threads, "input shape", "weight shape");
  if (!shape) return Error{shape.error()};
  return std::optional<promote::ConvShape>{*shape};
}

bool PromotionPanel::visible(DType t) const {
  if (!engine(main_).has_dtype(t) && !(compare_ && engine(other_).has_dtype(t))) return false;
  if (hide_narrow_floats_.value_or(narrow_all_raise_) && is_narrow_float(t)) return false;
  return filter_[0] == 0 || std::string(pl::name(t)).find(filter_) != std::string::npos ||
         short_name(t).find(filter_) != std::string::npos;
}

void PromotionPanel::recompute() {
  char key[512];
  std::snprintf(key, sizeof key, "%d %d %d %d %d %s %s %s %d %d %d %d|%d %d %d %d %d %s %s %s %d %d %d %d|%d",
                main_.engine, main_.op, main_.a_kind, main_.b_kind, main_.bias, main_.b_value, main_.a_shape,
                main_.b_shape, main_.groups, main_.threads, main_.a_device, main_.b_device, other_.engine, other_.op,
                other_.a_kind, other_.b_kind, other_.bias, other_.b_value, other_.a_shape, other_.b_shape,
                other_.groups, other_.threads, other_.a_device, other_.b_device, compare_);
  if (computed_for_ == key) return;  // the grid is pure: only new settings change it
  computed_for_ = key;
  auto fill = [&](const Setting& s, Grid& g) {
    g.cells.clear();
    for (DType a : dtypes_)
      for (DType b : dtypes_) g.cells.push_back(engine(s).evaluate(query(s, a, b)));
  };
  fill(main_, grid_);
  if (compare_) fill(other_, other_grid_);
  const size_t n = dtypes_.size();
  narrow_all_raise_ = true;
  for (const Grid* g : {&grid_, compare_ ? &other_grid_ : &grid_})
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if ((is_narrow_float(dtypes_[i]) || is_narrow_float(dtypes_[j])) && g->cells[i * n + j].ok())
          narrow_all_raise_ = false;
}

// ---- settings row -----------------------------------------------------------------

void PromotionPanel::draw_setting(const char* id, Setting& s) {
  ImGui::PushID(id);
  const auto& engines = promote::engines();
  // The preview names the engine by id (jax and jax-x64 share framework and version).
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(11 * fs);
  if (ImGui::BeginCombo("##engine",
                        (std::string(engines[s.engine].id) + " " + std::string(engines[s.engine].version)).c_str())) {
    for (int i = 0; i < int(engines.size()); ++i) {
      std::string label = promote::release_text(engines[i]) + " (" + std::string(engines[i].device) + ")";
      if (ImGui::Selectable(label.c_str(), i == s.engine)) s = Setting{i};
    }
    ImGui::EndCombo();
  }
  const auto& e = engines[s.engine];
  same_line_if_fits(labelled_width(6 * fs, "op"));
  label_before("op");
  ImGui::SetNextItemWidth(6 * fs);
  if (ImGui::BeginCombo("##op", std::string(e.ops[s.op]).c_str())) {
    for (int i = 0; i < int(e.ops.size()); ++i)
      if (ImGui::Selectable(std::string(e.ops[i]).c_str(), i == s.op)) s.op = i, s.bias = 0;
    ImGui::EndCombo();
  }
  std::string kinds;  // the kinds as Combo takes them, each ending in a NUL
  for (std::string_view k : kind_labels(e)) kinds.append(k).push_back('\0');
  const bool kinds_modelled = std::find(e.kind_ops.begin(), e.kind_ops.end(), e.ops[s.op]) != e.kind_ops.end();
  if (!kinds_modelled) s.a_kind = s.b_kind = 0;
  ImGui::BeginDisabled(!kinds_modelled);
  same_line_if_fits(labelled_width(10 * fs, "a"));
  label_before("a");
  ImGui::SetNextItemWidth(10 * fs);
  ImGui::Combo("##a", &s.a_kind, kinds.c_str());
  same_line_if_fits(labelled_width(10 * fs, "b"));
  label_before("b");
  ImGui::SetNextItemWidth(10 * fs);
  ImGui::Combo("##b", &s.b_kind, kinds.c_str());
  ImGui::EndDisabled();
  if (kinds_modelled && promote::models_value(e.values, static_cast<promote::OperandKind>(s.b_kind))) {
    same_line_if_fits(labelled_width(6 * fs, "b value"));
    label_before("b value");
    ImGui::SetNextItemWidth(6 * fs);
    ImGui::InputTextWithHint("##b value", "2 / 2.5", s.b_value, sizeof s.b_value);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "The zero-dim or scalar b's value as a Python literal: 300, -1, 1e300, "
          "2.5+1j. Empty: True, 2, 2.5 or 2.5+1j by the column's kind. "
          "Columns of another Python type show n/a.");
  }
  const bool takes_bias = std::find(e.bias_ops.begin(), e.bias_ops.end(), e.ops[s.op]) != e.bias_ops.end();
  // An op with no form without a bias (addmm) starts with a float32 one and offers no "none".
  const bool needs_bias = promote::needs_bias(e, e.ops[s.op]);
  if (const auto f32 = std::find(dtypes_.begin(), dtypes_.end(), DType::float32);
      needs_bias && s.bias == 0 && f32 != dtypes_.end())
    s.bias = int(f32 - dtypes_.begin()) + 1;
  if (takes_bias) {
    same_line_if_fits(labelled_width(7 * fs, "bias"));
    label_before("bias");
    ImGui::SetNextItemWidth(7 * fs);
    if (ImGui::BeginCombo("##bias", s.bias ? std::string(pl::name(dtypes_[s.bias - 1])).c_str() : "none")) {
      if (!needs_bias && ImGui::Selectable("none", s.bias == 0)) s.bias = 0;
      for (int i = 0; i < int(dtypes_.size()); ++i)
        if (ImGui::Selectable(std::string(pl::name(dtypes_[i])).c_str(), s.bias == i + 1)) s.bias = i + 1;
      ImGui::EndCombo();
    }
  }
  draw_devices(s);
  draw_conv_shape(s);
  ImGui::PopID();
}

// Where a and b live, for the engines that place operands: a CPU tensor fed to a model on the GPU
// raises PyTorch's device error, whose words depend on the op and the release.
void PromotionPanel::draw_devices(Setting& s) {
  const auto& e = engine(s);
  if (!e.operand_device) return;
  const float fs = ImGui::GetFontSize();
  const char* devices = "cpu\0cuda\0";
  const int own = static_cast<int>(*e.operand_device);
  for (auto [label, device, kind] :
       {std::tuple{"a on", &s.a_device, s.a_kind}, std::tuple{"b on", &s.b_device, s.b_kind}}) {
    int shown = *device < 0 ? own : *device;
    same_line_if_fits(labelled_width(5 * fs, label));
    ImGui::BeginDisabled(kind == static_cast<int>(promote::OperandKind::Scalar));  // a Python scalar has no device
    label_before(label);
    ImGui::SetNextItemWidth(5 * fs);
    if (ImGui::Combo((std::string("##") + label).c_str(), &shown, devices)) *device = shown;
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Where the tensor lives (b's device is the bias's too, as a module's parameters). PyTorch never moves "
          "a tensor by itself: a CPU input to a model on the GPU raises, in words that depend on the op and the "
          "release; a zero-dim CPU tensor may join CUDA tensors in elementwise ops. Modelled from PyTorch's "
          "source for float16, bfloat16, float32 and float64.");
  }
}

// A convolution's shapes, on a line of their own: PyTorch's CPU picks oneDNN or its own kernel by
// them, and the two word a dtype error differently.
void PromotionPanel::draw_conv_shape(Setting& s) {
  const auto& e = engine(s);
  const std::string_view op = e.ops[s.op];
  if (std::find(e.shape_ops.begin(), e.shape_ops.end(), op) == e.shape_ops.end()) return;
  const bool one_d = op == "conv1d";
  // Each label before its field, as the row above has them: after, "[1] groups [2] threads" would
  // read as a weight of 1 and 2 groups.
  const char* input_label = one_d ? "input (N,C,L)" : "input (N,C,H,W)";
  label_before(input_label);
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000,0000,0000,0000").x);
  ImGui::InputTextWithHint("##input-shape", one_d ? "1,1,3" : "1,1,3,3", s.a_shape, sizeof s.a_shape);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The input's shape, %s. On a CPU a float32 convolution runs in oneDNN when the batch is above 1, "
        "there are groups, the kernel is above 3 x 3 in both sides or the input has more than 20480 elements "
        "(a 1 x 1 kernel on one thread only from a batch of 16); oneDNN words a dtype error its own way. "
        "Empty: %s.",
        one_d ? "N,C,L" : "N,C,H,W", one_d ? "1,1,3" : "1,1,3,3");
  const char* weight_label = one_d ? "weight (O,I,kL)" : "weight (O,I,kH,kW)";
  same_line_if_fits(labelled_width(ImGui::CalcTextSize("0000,0000,0000,0000").x, weight_label));
  label_before(weight_label);
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000,0000,0000,0000").x);
  ImGui::InputTextWithHint("##weight-shape", one_d ? "1,1,2" : "1,1,2,2", s.b_shape, sizeof s.b_shape);
  const float int_width = ImGui::CalcTextSize("000000").x + ImGui::GetFrameHeight() * 2;
  same_line_if_fits(labelled_width(int_width, "groups"));
  label_before("groups");
  ImGui::SetNextItemWidth(int_width);
  if (ImGui::InputInt("##groups", &s.groups)) s.groups = std::max(1, s.groups);
  same_line_if_fits(labelled_width(int_width, "threads"));
  label_before("threads");
  ImGui::SetNextItemWidth(int_width);
  if (ImGui::InputInt("##threads", &s.threads)) s.threads = std::max(1, s.threads);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "torch.get_num_threads() of the modelled process: on one thread a 1 x 1 kernel takes oneDNN only from a "
        "batch of 16.");
  if (auto shape = conv_shape(s); !shape) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImVec4(0.9f, 0.35f, 0.3f, 1), "%s (the grid uses the default shapes)", shape.error().c_str());
    ImGui::PopTextWrapPos();
  }
}

// ---- grid -------------------------------------------------------------------------

void PromotionPanel::draw_grid() {
  const int n = int(dtypes_.size());
  // Rows and columns where the question applies somewhere (a Python value of one type
  // makes the other types' columns n/a throughout).
  auto applies = [&](int k, bool row) {
    for (int m = 0; m < n; ++m)
      if (!not_applicable(grid_.cells[row ? k * n + m : m * n + k])) return true;
    return false;
  };
  std::vector<int> rows, shown;
  for (int i = 0; i < n; ++i) {
    if (!visible(dtypes_[i])) continue;
    if (applies(i, true)) rows.push_back(i);
    if (applies(i, false)) shown.push_back(i);
  }
  if (shown.empty() || rows.empty()) {
    natural_width_ = 0;
    ImGui::TextDisabled("no dtype matches the filter");
    return;
  }
  // A Python scalar b has a Python type, not a dtype: neighbouring columns of one Python type that
  // answer alike are one column, headed by the type ("float": otherwise 19 columns, four floats and
  // eight integers repeating each other, would push scenario 04's grid past the pane).
  const auto& e = engine(main_);
  const std::vector<GridColumn> columns =
      grid_columns(dtypes_, grid_.cells, compare_ ? other_grid_.cells : std::vector<promote::Outcome>{}, rows, shown,
                   main_.b_kind == static_cast<int>(promote::OperandKind::Scalar), e);
  int selected_column = selected_b_;  // the column the selected pair is drawn in
  shown.clear();
  for (const GridColumn& c : columns) {
    shown.push_back(c.dtype);
    if (std::find(c.members.begin(), c.members.end(), selected_b_) != c.members.end()) selected_column = c.dtype;
  }
  const ImGuiTableFlags flags =
      ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInner;
  // Each column as wide as the widest header or answer shown in the grid (a fixed minimum as wide
  // as "e4m3fnuz" would cut the grid at 1280 px in presentation mode when no float8 is shown,
  // behind a sideways scrollbar), and in compare mode as the widest answer pair a framed cell shows
  // ("err|e4m3fr" would cut "e4m3fn" at 1280 px).
  // Whether the compared setting answers cell k otherwise (its grid is filled in compare mode only).
  auto differs_at = [&](size_t k) {
    return compare_ && k < other_grid_.cells.size() && answers_differ(grid_.cells[k], other_grid_.cells[k]);
  };
  auto label_at = [&](size_t k) {
    return differs_at(k) ? difference_label(grid_.cells[k], other_grid_.cells[k]) : cell_label(grid_.cells[k]);
  };
  // The widest header or answer, found once at the UI's font size: text widths scale with the
  // font, so at a smaller scale only it is measured again (each cell's label is built and
  // measured once a frame, not once per scale tried).
  std::string widest_text = "a \\ b";
  float widest_extra = 0, widest_w = ImGui::CalcTextSize(widest_text.c_str()).x;
  auto consider = [&](std::string text, float extra) {
    const float w = ImGui::CalcTextSize(text.c_str()).x + extra;
    if (w > widest_w) widest_w = w, widest_text = std::move(text), widest_extra = extra;
  };
  for (const GridColumn& c : columns) consider(c.header, 0);
  for (int i : rows) {
    consider(short_name(dtypes_[i]), 0);
    for (int j : shown) {
      const size_t k = size_t(i * n + j);
      consider(label_at(k), differs_at(k) ? 4 : 0);
    }
  }
  auto widest_cell = [&]() { return ImGui::CalcTextSize(widest_text.c_str()).x + widest_extra + 4; };
  const float pad = 2 * ImGui::GetStyle().CellPadding.x + 1;
  // The grid's text as large as lets every column fit the pane (the controls' size where it
  // can, for a projector), down to 0.8 of it; below that the grid scrolls sideways.
  // A grid taller than its pane has a vertical scrollbar, which takes its width from the columns'.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  auto width_needed = [&](float cell) {
    const bool tall = float(rows.size() + 1) * grid_rows_.pitch(table_row_height()) > avail.y;
    return float(shown.size() + 1) * (cell + pad) + (tall ? ImGui::GetStyle().ScrollbarSize : 0);
  };
  float cell_w = 0;
  for (float scale : {1.0f, 0.9f, 0.8f}) {
    ImGui::SetWindowFontScale(scale);
    cell_w = widest_cell();
    // (At full size, with room for a scrollbar whatever the pane's height, which the layout it
    // chooses changes; in whole pixels, up, as a child window's width is: a grid a fraction of a
    // pixel wider than its pane would draw at 90%.)
    if (scale == 1.0f)
      natural_width_ = std::ceil(float(shown.size() + 1) * (cell_w + pad) + ImGui::GetStyle().ScrollbarSize);
    if (width_needed(cell_w) <= avail.x) break;
  }
  // As tall as its rows (the pane below gets the rest), scrolling when the pane is shorter; the
  // pane takes up to its share of the height for them.
  const float row_h = grid_rows_.pitch(table_row_height());
  // A grid narrower than the pane needs no sideways scrollbar, nor room for one.
  const bool sideways = width_needed(cell_w) > avail.x;
  if (!beside_) split_.reserve(float(rows.size() + 1) * row_h + (sideways ? ImGui::GetStyle().ScrollbarSize : 0));
  if (!ImGui::BeginTable(
          "grid", int(shown.size()) + 1, flags,
          // As wide as its columns: the header's band and the row lines would run
          // on across the pane past a grid that fits.
          {sideways ? 0.0f : width_needed(cell_w), table_height(float(rows.size() + 1), row_h, sideways)})) {
    ImGui::SetWindowFontScale(1.0f);
    return;
  }
  // Fitted with the float8/6/4 hidden, unless the compare mode's answer pairs make it too wide
  // even at 0.8 (--check-layout).
  if (!compare_ && hide_narrow_floats_.value_or(narrow_all_raise_))
    layout_audit::note_fits_width("the Promotion grid");
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("a \\ b", ImGuiTableColumnFlags_WidthFixed, cell_w);
  for (const GridColumn& c : columns) ImGui::TableSetupColumn(c.header.c_str(), ImGuiTableColumnFlags_WidthFixed, cell_w);
  table_headers([&](int c) { return c > 0 ? columns[size_t(c - 1)].tip : std::string(); });
  overview_ = {};
  // A Python scalar b's value, for each column (its Python type's): the class asks whether the
  // result holds that value, not b's dtype's every value.
  const bool b_scalar = main_.b_kind == static_cast<int>(promote::OperandKind::Scalar);
  std::vector<std::optional<promote::PyValue>> scalar(shown.size());
  for (size_t column = 0; column < shown.size() && b_scalar; ++column)
    if (auto v = promote::scalar_operand_value(main_.b_value, dtypes_[shown[column]])) scalar[column] = *v;
  for (size_t r = 0; r < rows.size(); ++r) {
    const int i = rows[r];
    // The row's height from its start (a line of text), so that a cell's rectangle is known
    // before its text is drawn (cell_background).
    ImGui::TableNextRow(0, ImGui::GetTextLineHeight());
    // A link's pair brought into view, by whole rows with two above it: SetScrollHereY(0.5) would
    // leave the row above half under the frozen header (scenario 23's i32 row at 1280x800).
    if (i == selected_a_ && scroll_to_selected_row_) {
      grid_rows_.scroll_to(r);
      scroll_to_selected_row_ = false;
    }
    grid_rows_.at_row(r, rows.size());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(short_name(dtypes_[i]).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("a: %s", e.spell(dtypes_[i]).c_str());
    for (size_t column = 0; column < shown.size(); ++column) {
      const int j = shown[column];
      ImGui::TableNextColumn();
      const Outcome& o = grid_.cells[i * n + j];
      const OutcomeClass c = scalar[column] ? promote::classify_scalar(dtypes_[i], *scalar[column], o)
                                            : promote::classify(dtypes_[i], b_scalar ? dtypes_[i] : dtypes_[j], o);
      if (!not_applicable(o)) {
        ++overview_.count[size_t(c)];
        if (c == OutcomeClass::Narrowed)
          overview_.narrowed.push_back(
              {i, j, short_name(dtypes_[i]) + ", " + columns[column].header + " -> " + cell_label(o)});
      }
      cell_background(not_applicable(o) ? kNotApplicable : class_colour(c));
      const bool differs = differs_at(size_t(i * n + j));
      ImGui::PushID(i * n + j);
      const bool selected = i == selected_a_ && j == selected_column;
      if (selected && scroll_to_selected_) {  // a link's pair's column, brought into view once
        ImGui::SetScrollHereX(0.5f);
        scroll_to_selected_ = false;
      }
      // The selection is framed, not filled: the theme's fill is the widened class's blue.
      ImGui::PushStyleColor(ImGuiCol_Header, IM_COL32(0, 0, 0, 0));
      const std::string label = label_at(size_t(i * n + j));
      if (ImGui::Selectable(label.c_str(), selected, 0, {cell_w - 4, 0})) {
        selected_a_ = i;
        selected_b_ = j;
      }
      ImGui::PopStyleColor();
      const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
      if (differs) ImGui::GetWindowDrawList()->AddRect(lo, hi, kDisagree, 0, 0, 2.0f);
      if (selected)
        ImGui::GetWindowDrawList()->AddRect({lo.x - 1, lo.y - 1}, {hi.x + 1, hi.y + 1}, kSelected, 0, 0, 2.5f);
      if (ImGui::IsItemHovered()) {
        // (A tooltip is a window of its own, in the full-size font. Setting the scale here, in the
        // table's own window, and then back to the grid's scale would leave that window at 0.8 of
        // the 0.8 its parent gives it: after the first hover the whole grid's text would shrink to
        // 64%.)
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
        if (differs) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kDisagree), "%s", difference_meaning(label).c_str());
        ImGui::Text("a: %s, b: %s", e.spell(dtypes_[i]).c_str(), e.spell(dtypes_[j]).c_str());
        ImGui::TextUnformatted(outcome_line(e, o).c_str());
        ImGui::TextDisabled("%s", o.rule.c_str());
        if (compare_) {
          const auto& oe = engine(other_);
          const Outcome& other = other_grid_.cells[i * n + j];
          ImGui::Separator();
          ImGui::Text("compared setting: %s", outcome_line(oe, other).c_str());
          ImGui::TextDisabled("%s", other.rule.c_str());
        }
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
      ImGui::PopID();
    }
  }
  mark_more_below();  // rows below the pane's edge (a scenario's live grid in presentation mode)
  mark_more_above(row_h);  // and above, under the header, when a link's row was scrolled to
  ImGui::EndTable();
  ImGui::SetWindowFontScale(1.0f);
}

void PromotionPanel::draw_selection() {
  if (selected_a_ < 0) {
    const float top = ImGui::GetCursorScreenPos().y;
    ImGui::TextDisabled(
        "Click a cell to make that pair the current input (a) and weight (b) "
        "dtypes and see the fixes people try.");
    if (!compact_) {
      // The overview follows, so the pane's last line is faded under "more below": the help
      // needs a line more than its own to be read whole.
      if (const ImGuiWindow* w = ImGui::GetCurrentWindowRead())
        layout_audit::note_room("the Promotion panel's help line", w->InnerClipRect.Max.y - top,
                                ImGui::GetCursorScreenPos().y - top + ImGui::GetTextLineHeightWithSpacing());
      draw_overview();  // (below the grid, the pane below scrolls to it)
    }
    return;
  }
  const auto& e = engine(main_);
  const promote::Query q = query(main_, dtypes_[selected_a_], dtypes_[selected_b_]);
  const Outcome& o = grid_.cells[selected_a_ * int(dtypes_.size()) + selected_b_];
  // A Python scalar shows as the value it stands for: its own, or its category's default.
  std::string b_text = e.spell(q.b.dtype);
  if (q.b.kind == promote::OperandKind::Scalar) {
    b_text = (q.b.value.empty() ? std::string(promote::default_literal(promote::py_type_of(q.b.dtype))) : q.b.value) +
             " (Python scalar)";
  } else if (!q.b.value.empty()) {
    b_text = q.b.value + " (" + b_text + ")";
  }
  std::string a_text = e.spell(q.a.dtype);
  if (q.a_device) a_text.append(" on ").append(promote::device_name(*q.a_device));
  if (q.b_device) b_text.append(" on ").append(promote::device_name(*q.b_device));
  std::string call = promote::engine_heading(e, q.a_device || q.b_device) + ": " + q.op + "(" + a_text + ", " + b_text;
  if (q.bias) call.append(", bias: ").append(e.spell(*q.bias));
  call += ")";
  if (q.conv)
    call.append(" on ")
        .append(dimensions_text(q.conv->input))
        .append(" by ")
        .append(dimensions_text(q.conv->weight))
        .append(q.conv->groups > 1 ? ", groups " + std::to_string(q.conv->groups) : std::string());
  ImGui::TextUnformatted(call.c_str());
  if (const std::string line = call + " " + outcome_line(e, o); line != logged_) {
    log_.add("promotion", line);
    logged_ = line;
  }
  wrapped_text_colored(o.ok() ? ImVec4(0.6f, 0.85f, 1.0f, 1) : ImVec4(1.0f, 0.55f, 0.4f, 1), outcome_line(e, o));
  if (const std::string lost = promote::scalar_not_held(e, q, o); !lost.empty())
    wrapped_text_colored(ImVec4(1.0f, 0.75f, 0.3f, 1), lost);  // (its cell is the narrowed class's)
  wrapped_text_disabled(o.rule);
  draw_matmul_precision(e, q, o);
  if (compare_) {
    const Outcome& other = other_grid_.cells[selected_a_ * int(dtypes_.size()) + selected_b_];
    wrapped_text("compared setting: " + outcome_line(engine(other_), other));
    wrapped_text_disabled(other.rule);
  }
  if (run_pair_) {
    // The experiment takes float dtypes and the 8-bit integers as operands.
    // The experiment's operands share one device: a pair on two devices runs once a fix moves one.
    // Drawn operands are signed: a format without a sign (float8_e8m0fnu) would hold NaN for half
    // of them, and the experiment refuses it.
    auto operand = [](DType t) { return is_float(t) || t == DType::int8 || t == DType::uint8; };
    auto signed_format = [](DType t) { return !is_float(t) || info(t).format.is_signed(); };
    const bool apart = q.a_device && q.b_device && *q.a_device != *q.b_device;
    const bool unsigned_operand = !signed_format(q.a.dtype) || !signed_format(q.b.dtype);
    const bool can = operand(q.a.dtype) && operand(q.b.dtype) && !apart && !unsigned_operand;
    ImGui::BeginDisabled(!can);
    const bool enter = !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(GLFW_KEY_ENTER, false);
    if (ImGui::Button("Run this pair in the Experiment panel (Enter)") || (can && enter))
      run_pair_({q.a.dtype, q.b.dtype, std::string(e.id), q.op});
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip(can ? "A linear layer (a matrix product for matmul ops) with these input and weight dtypes,\n"
                              "under this framework's rules: when it raises, every fix runs side by side."
                        : apart ? "The operands are on two devices: the experiment runs them on one (a fix below "
                                  "moves one)."
                        : unsigned_operand
                            ? "float8_e8m0fnu has no sign: the experiment's drawn operands are signed, and half of "
                              "them would be NaN.\nIt is a scale format (MX's block scales)."
                            : "This button runs float dtypes, int8 and uint8; int4 and uint4 run from the "
                              "Experiment panel, with a group recipe.");
  }
  if (o.ok() || !ImGui::BeginTable("fixes", 3, ImGuiTableFlags_SizingFixedFit)) return;
  for (const auto& f : promote::suggest_fixes(e, q)) {
    ImGui::TableNextColumn();
    ImGui::Text("fix: %s", f.code.c_str());
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", f.effect.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(outcome_line(e, f.outcome).c_str());
  }
  ImGui::EndTable();
}

// While no pair is chosen, the pane beside or below the grid sums the grid up: how many of its
// pairs fall in each class, and the pairs that narrow, each a button to its cell (else the pane
// holds one line of help, with hundreds of pixels of nothing under it at 1600x1000 and up).
void PromotionPanel::draw_overview() {
  int total = 0;
  for (int k : overview_.count) total += k;
  if (total == 0) return;
  ImGui::Spacing();
  wrapped_text("Of the " + std::to_string(total) + (total == 1 ? " pair" : " pairs") + " shown" +
               (compare_ ? ", this setting's answers:" : ":"));
  struct Line {
    OutcomeClass c;
    const char *one, *many;
  };
  static constexpr Line kLines[] = {
      {OutcomeClass::Kept, "gives one operand's dtype", "give one operand's dtype"},
      {OutcomeClass::Widened, "widens to a third dtype", "widen to a third dtype"},
      {OutcomeClass::Narrowed, "narrows: an operand's values do not all fit the result",
       "narrow: an operand's values do not all fit the result"},
      {OutcomeClass::Error, "raises", "raise"},
      {OutcomeClass::Object, "falls back to Python objects", "fall back to Python objects"}};
  const float h = ImGui::GetTextLineHeight();
  for (const Line& line : kLines) {
    const int k = overview_.count[size_t(line.c)];
    if (k == 0) continue;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(p, {p.x + h, p.y + h}, class_colour(line.c));
    ImGui::Dummy({h, h});
    ImGui::SameLine();
    wrapped_text(std::to_string(k) + " " + (k == 1 ? line.one : line.many));
  }
  if (overview_.narrowed.empty()) return;
  ImGui::Spacing();
  wrapped_text_disabled("The pairs that narrow, a, b -> result (click one for its answer and fixes):");
  ImGui::PushStyleColor(ImGuiCol_Button, class_colour(OutcomeClass::Narrowed));
  ImGui::PushStyleColor(ImGuiCol_ButtonHovered, IM_COL32(190, 130, 0, 255));
  ImGui::PushStyleColor(ImGuiCol_ButtonActive, IM_COL32(215, 150, 0, 255));
  const int n = int(dtypes_.size());
  for (size_t k = 0; k < overview_.narrowed.size(); ++k) {
    const NarrowedPair& pair = overview_.narrowed[k];
    if (k > 0) same_line_if_fits(button_width(pair.label.c_str()));
    ImGui::PushID(pair.a * n + pair.b);
    if (ImGui::Button(pair.label.c_str())) {
      selected_a_ = pair.a;
      selected_b_ = pair.b;
      scroll_to_selected_ = scroll_to_selected_row_ = true;
    }
    ImGui::PopID();
  }
  ImGui::PopStyleColor(3);
}

// A float32 matrix product or convolution under PyTorch: what it computes in under each
// torch.set_float32_matmul_precision setting (TF32 or bfloat16 internals), as `promote
// --matmul-precision` prints it.
void PromotionPanel::draw_matmul_precision(const promote::Engine& e, const promote::Query& q, const Outcome& o) {
  namespace pt = promote::torch;
  if (!o.ok() || o.result != DType::float32 || !pt::matmul_precision_applies(e, q.op)) return;
  static constexpr pt::MatmulPrecision kSettings[] = {pt::MatmulPrecision::Highest, pt::MatmulPrecision::High,
                                                      pt::MatmulPrecision::Medium};
  ImGui::TextUnformatted("torch.set_float32_matmul_precision");
  for (int i = 0; i < 3; ++i) {
    ImGui::SameLine();
    ImGui::RadioButton(std::string(pt::matmul_precision_name(kSettings[i])).c_str(), &matmul_precision_, i);
  }
  const pt::MatmulPrecision p = kSettings[matmul_precision_];
  for (const std::string& line :
       pt::describe_internals(pt::matmul_precision_name(p), q.op, pt::float32_internals(p, pt::release_of(e))))
    wrapped_text_disabled(line);  // (the flags line alone is wider than a projector's window)
}

// ---- keys -------------------------------------------------------------------------

// Arrow keys walk the grid like a spreadsheet (Left/Right: the weight b, Up/Down: the input
// a), skipping dtypes the filter hides -- quicker than the mouse when teaching.
void PromotionPanel::navigate() {
  if (ImGui::GetIO().WantTextInput || dtypes_.empty()) return;
  auto step = [&](int& index, int delta) {
    const int n = static_cast<int>(dtypes_.size());
    int i = index < 0 ? (delta > 0 ? -1 : n) : index;
    for (int tries = 0; tries < n; ++tries) {
      i += delta;
      if (i < 0 || i >= n) return;
      if (visible(dtypes_[i])) {
        index = i;
        return;
      }
    }
  };
  auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
  const int a = selected_a_, b = selected_b_;
  if (pressed(ImGuiKey_RightArrow)) step(selected_b_, +1);
  if (pressed(ImGuiKey_LeftArrow)) step(selected_b_, -1);
  if (pressed(ImGuiKey_DownArrow)) step(selected_a_, +1);
  if (pressed(ImGuiKey_UpArrow)) step(selected_a_, -1);
  if ((a != selected_a_ || b != selected_b_) && (selected_a_ < 0 || selected_b_ < 0)) {
    if (selected_a_ < 0) step(selected_a_, +1);
    if (selected_b_ < 0) step(selected_b_, +1);
  }
}

// ---- the panel --------------------------------------------------------------------

std::string PromotionPanel::engine_summary(const Setting& s) const {
  return promote::engine_heading(engine(s), s.a_device >= 0 || s.b_device >= 0);
}

std::string PromotionPanel::call_summary(const Setting& s) const {
  std::string line(engine(s).ops[s.op]);
  // As the operand pickers name the kinds (the command line's "zerodim" would read as a typo in the caption).
  const auto kind = [&](int k) { return std::string(kind_labels(engine(s))[size_t(std::clamp(k, 0, 2))]); };
  // Where each operand lives, when placed (scenario 30's a on the CPU, b on the GPU).
  const auto where = [](int d) {
    return d < 0 ? std::string() : " on " + std::string(promote::device_name(static_cast<promote::Device>(d)));
  };
  line.append(": a ").append(kind(s.a_kind)).append(where(s.a_device));
  line.append(", b ").append(kind(s.b_kind)).append(where(s.b_device));
  // Its value where the engine reads one (scenario 04's 1000, which the grid answers for).
  if (s.b_value[0] != '\0' && promote::models_value(engine(s).values, static_cast<promote::OperandKind>(s.b_kind)))
    line.append(" ").append(s.b_value);
  if (s.bias > 0) line.append(", bias ").append(pl::name(dtypes_[s.bias - 1]));
  return line;
}

std::string PromotionPanel::caption() const {
  std::string line = engine_summary(main_) + ", " + call_summary(main_);
  if (!compare_) return line;
  // The compared setting's call only where it asks another question (scenario 25's caption would
  // say the same op and operands twice, in two lines of presentation mode's type above a grid of
  // two rows; scenario 04's would name PyTorch's "a tensor" and NumPy's "a array" as two calls):
  // another op, other operand kinds, devices, value or bias.
  bool same_call = engine(main_).ops[main_.op] == engine(other_).ops[other_.op] && main_.a_kind == other_.a_kind &&
                   main_.b_kind == other_.b_kind && main_.a_device == other_.a_device &&
                   main_.b_device == other_.b_device && main_.bias == other_.bias;
  // (b's value only where an engine reads it: a value left in a hidden field asks nothing.)
  const auto reads_value = [&](const Setting& s) {
    return promote::models_value(engine(s).values, static_cast<promote::OperandKind>(s.b_kind));
  };
  same_call =
      same_call && (!(reads_value(main_) || reads_value(other_)) || std::strcmp(main_.b_value, other_.b_value) == 0);
  line.append("; framed where ").append(engine_summary(other_));
  if (!same_call) line.append(", ").append(call_summary(other_)).append(",");
  return line.append(" answers otherwise");
}

void PromotionPanel::draw_content() {
  // In a scenario's live pane the arrow keys step through the scenarios: the grid keeps the pair
  // the link chose.
  if (!compact_) navigate();
  if (compact_) {
    // The settings a link chose, in a line (the Promotion tab changes them): the grid keeps the room.
    ImGui::AlignTextToFramePadding();
    wrapped_text(caption());
  } else {
    draw_setting("main", main_);
    // The compared setting starts a line of its own with its checkbox: run on after the first
    // setting, its controls would read as the first one's ("b zero-dim tensor  a on cpu  b on cpu"
    // wrapped under "... a on cpu  b on cpu  compare with torch 2.15.0  op add  a tensor" at
    // 1600x1000).
    // The checkbox starts that line ticked or not, so ticking it does not move it from under the
    // pointer; unticked, the view's controls follow it.
    ImGui::Checkbox("compare with", &compare_);
    if (compare_) {
      same_line_if_fits(11 * ImGui::GetFontSize());
      draw_setting("other", other_);
      ImGui::Spacing();
    } else {
      ImGui::SameLine(0, 2 * ImGui::GetFontSize());
    }
    bool hide_narrow = hide_narrow_floats_.value_or(narrow_all_raise_);
    if (ImGui::Checkbox("hide float8/6/4", &hide_narrow)) hide_narrow_floats_ = hide_narrow;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(narrow_all_raise_
                            ? "Hidden until you show them: every pair with a float8, float6 or float4 "
                              "dtype raises for this op."
                            : "Some pairs with a float8, float6 or float4 dtype are answered for this op.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(8 * ImGui::GetFontSize());
    ImGui::InputTextWithHint("##filter", "filter dtypes", filter_, sizeof filter_);
  }
  struct Chip {
    OutcomeClass c;
    const char* text;
    const char* meaning;
  };
  std::vector<Chip> chips = {
      {OutcomeClass::Kept, "one operand's dtype",
       "the result is one operand's dtype, and holds every value of the other"},
      // (The examples hold in PyTorch and JAX; NumPy gives float64 for int32 + float32 and has no
      // common type for float16 and bfloat16, TensorFlow raises for both.)
      {OutcomeClass::Widened, "widened",
       "a third dtype that holds every value of both (in PyTorch and JAX, float16 + bfloat16 -> float32)"},
      {OutcomeClass::Narrowed, "narrowed",
       "the result cannot hold every value of an operand: digits or range are lost (in PyTorch and JAX, "
       "int32 + float32 -> float32 loses int32's digits past 2^24)"},
      {OutcomeClass::Error, "error", "the call raises: hover a cell for the exact message"}};
  // Only where a cell falls back to objects (NumPy's np.dot of dtypes with no common type): the
  // chip beside a torch grid would name an answer torch never gives, on a line of its own.
  const auto objects = [](const Grid& g) {
    return std::any_of(g.cells.begin(), g.cells.end(), [](const Outcome& o) { return !o.other_result.empty(); });
  };
  if (objects(grid_) || (compare_ && objects(other_grid_)))
    chips.push_back({OutcomeClass::Object, "dtype=object", "the call falls back to Python objects"});
  // The key kept whole: on the line before it where all of it fits there, else from a line of its
  // own (else at 1920x1080 "one operand's dtype" would stand at the end of a scenario's caption and
  // the rest of the key under it; at 1280x800 "raises" would take a line alone).
  // The framed cells' notation on the key itself (a projector shows no tooltip): "f64|f32".
  const char* disagree = "settings disagree: this | compared";
  // "cells:" before the swatches: beside the checkboxes a grey swatch would read as one more.
  const char* cells = "cells:";
  float key = ImGui::CalcTextSize(cells).x + (compare_ ? chip_width(disagree) : 0);
  for (const Chip& chip : chips) key += chip_width(chip.text) + ImGui::GetStyle().ItemSpacing.x;
  same_line_if_fits(key);
  ImGui::TextDisabled("%s", cells);
  for (size_t i = 0; i < chips.size(); ++i) legend_chip(chips[i].c, chips[i].text, chips[i].meaning);
  if (compare_) {
    float h = ImGui::GetTextLineHeight();
    same_line_if_fits(chip_width(disagree));
    ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRect(p, {p.x + h, p.y + h}, kDisagree, 0, 0, 2.0f);
    ImGui::Dummy({h, h});
    ImGui::SameLine();
    ImGui::TextUnformatted(disagree);
    const char* tip =
        "a framed cell shows both answers, this setting's | the compared one's; err: the call raises; "
        "\u2260 error and \u2260 text: both raise, another exception type or another message";
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
    // The two-error cells' notation too, where the grid shows one (a projector shows no tooltip).
    bool both_raise = false;
    const size_t n = dtypes_.size();
    for (size_t k = 0; k < grid_.cells.size() && k < other_grid_.cells.size() && !both_raise; ++k) {
      const Outcome &o = grid_.cells[k], &other = other_grid_.cells[k];
      both_raise = visible(dtypes_[k / n]) && visible(dtypes_[k % n]) && answers_differ(o, other) && raises(o) &&
                   raises(other);
    }
    if (both_raise) {
      const char* neq = "\u2260: both raise, but differently";
      same_line_if_fits(ImGui::CalcTextSize(neq).x);
      ImGui::TextUnformatted(neq);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
    }
  }
  recompute();
  // A grid narrow enough (a Python scalar's one column, a filter) has the answer and its fixes
  // beside it, in the whole height: below it, scenario 04's grid would show six rows over a cut
  // answer, beside 1000 px left empty. (Its width from the frame before: the grid measures it as
  // it draws. Where the layout changes, the grid is another table, scrolled afresh to the
  // selected pair.)
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const bool was_beside = beside_;
  beside_ = natural_width_ > 0 && natural_width_ <= kBesideShare * avail.x;
  if (beside_ != was_beside && selected_a_ >= 0) scroll_to_selected_ = scroll_to_selected_row_ = true;
  if (beside_) {
    ImGui::BeginChild("promotion-grid", ImVec2(natural_width_, avail.y), false, ImGuiWindowFlags_NoScrollbar);
    draw_grid();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("promotion-answer", ImVec2(0, avail.y), false);
    draw_selection();
    mark_more_below();
    ImGui::EndChild();
    return;
  }
  // The grid above, the selected pair's answer and its fixes below; the bar between moves.
  // With no pair selected the pane below holds a line of help (and the overview, scrolled to):
  // the grid takes its room.
  // In a scenario's live preview the pair's answer keeps 3 lines (5 would leave a crushed strip of grid
  // in presentation mode at 1280x800, scenario 25); the bar moves either way.
  split_.prefer_share(selected_a_ < 0 ? 1.0f : 0.75f);
  // (With no pair, the line of help and the overview's first line below it, which "more below"
  // fades: the help alone would sit under that fade. In a scenario's preview, the help alone.)
  split_.begin_top("promotion", 4, selected_a_ < 0 ? (compact_ ? 1.2f : 2.2f) : compact_ ? 3 : 5);
  draw_grid();
  split_.begin_bottom(/*scrolls=*/true);
  draw_selection();
  split_.end();
}

}  // namespace pl::ui
