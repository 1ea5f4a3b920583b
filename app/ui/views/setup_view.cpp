#include "app/ui/views/setup_view.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>

#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/value_controls.h"
#include "app/ui/widgets/wrapped_text.h"
#include "core/accumulate/accumulation_spec.h"
#include "core/dtype/custom_dtype.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/experiment/matmul_files.h"
#include "core/io/file_read.h"
#include "core/promote/engine.h"
#include "core/util/join.h"
#include "core/util/number_text.h"
#include "core/util/thread_limit.h"

namespace pl::ui {
namespace {

using namespace experiment;

// dtypes offered for inputs and weights (floats, the 8-bit integers and the four-bit int4 and
// uint4 the recipes pack), and for outputs (floats only).
std::vector<DType> operand_dtypes(bool integers) {
  std::vector<DType> out;
  for (const auto& d : all_dtypes())
    if (d.kind == DTypeKind::Float ||
        (integers && (d.id == DType::int8 || d.id == DType::uint8 || is_packed_int(d.id))))
      out.push_back(d.id);
  return out;
}

// One selectable dtype, with the format's range and precision as its tooltip.
bool dtype_item(DType d, DType* t) {
  const bool chosen = ImGui::Selectable(std::string(name(d)).c_str(), d == *t);
  if (chosen) *t = d;
  if (ImGui::IsItemHovered() && is_float(d))
    ImGui::SetTooltip("max %s, smallest normal %s, unit roundoff %s",
                      leading_digits_text(max_finite(info(d).format), 6).c_str(),
                      leading_digits_text(min_normal(info(d).format), 6).c_str(),
                      leading_digits_text(unit_roundoff(info(d).format), 6).c_str());
  return chosen;
}

// The custom formats named so far, then a field to name another: e5m7, e4m3b9:fnuz, e6m9:finite.
bool custom_format_items(DType* t) {
  // One picker is open at a time, so one field serves them all (this is the UI thread's).
  static std::string typed, why;
  bool changed = false;
  ImGui::Separator();
  ImGui::TextDisabled("custom formats");
  for (DType d : custom_dtypes()) changed |= dtype_item(d, t);
  ImGui::SetNextItemWidth(-FLT_MIN);
  if (ImGui::InputTextWithHint("##custom", "eXmY[bB][:fn|:fnuz|:finite], Enter", &typed,
                               ImGuiInputTextFlags_EnterReturnsTrue)) {
    auto d = parse_dtype(typed);
    why = !d ? d.error() : !is_float(*d) ? std::string(name(*d)) + " is not a float format" : "";
    if (why.empty()) {
      *t = *d, changed = true;
      typed.clear();
      ImGui::CloseCurrentPopup();
    }
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "A float format of your own: E exponent bits, M mantissa bits, bias B (default 2^(E-1)-1),\n"
        "IEEE specials unless :fn (no Inf), :fnuz (no Inf, no -0) or :finite (every code a number).\n"
        "A spelling of a table format is that format (e5m10 is float16).");
  if (!why.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 24.0f * ImGui::GetFontSize());  // the list of names is long
    ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", why.c_str());
    ImGui::PopTextWrapPos();
  }
  return changed;
}

// A dtype picker: the table's formats grouped, then custom formats.
bool dtype_combo(const char* label, DType* t, bool integers) {
  bool changed = false;
  if (ImGui::BeginCombo(label, std::string(name(*t)).c_str(), ImGuiComboFlags_HeightLarge)) {
    // Grouped as the brief's users think of them: wide floats, the 8-bit and narrower floats,
    // integers.
    const char* group = nullptr;
    for (DType d : operand_dtypes(integers)) {
      const char* g = !is_float(d)                       ? "integers"
                      : info(d).format.total_bits() <= 8 ? "float8 / float6 / float4"
                                                         : "floats";
      if (g != group) {
        if (group) ImGui::Separator();
        ImGui::TextDisabled("%s", g);
        group = g;
      }
      changed |= dtype_item(d, t);
    }
    changed |= custom_format_items(t);
    ImGui::EndCombo();
  }
  return changed;
}

template <typename Enum, size_t N>
bool enum_combo(const char* label, Enum* value, std::string_view (*name_of)(Enum),
                std::string_view (*summary_of)(Enum) = nullptr) {
  bool changed = false;
  if (ImGui::BeginCombo(label, std::string(name_of(*value)).c_str())) {
    for (size_t i = 0; i < N; ++i) {
      if (const Enum v = static_cast<Enum>(i); ImGui::Selectable(std::string(name_of(v)).c_str(), v == *value))
        *value = v, changed = true;
      if (summary_of && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", std::string(summary_of(static_cast<Enum>(i))).c_str());
    }
    ImGui::EndCombo();
  }
  if (summary_of && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(summary_of(*value)).c_str());
  return changed;
}

bool size_input(const char* label, size_t* v) {
  int x = static_cast<int>(*v);
  if (!ImGui::InputInt(label, &x, 16, 256)) return false;
  *v = static_cast<size_t>(std::clamp(x, 1, 8192));
  return true;
}

}  // namespace

SetupView::SetupView(RunLog& log) : log_(log) {
  spec_.config.op = MatmulOp::Linear;
  spec_.config.accumulate = {AccumKind::Blas, DType::float32};
}

nlohmann::json SetupView::json() const {
  return mode_ == ExperimentMode::Matrix ? experiment::to_json(spec_) : other_file_;
}

void SetupView::follow_file_shapes(const MatmulSpec& ran) {
  if (spec_.files.input.empty() || spec_.files.input != ran.files.input) return;
  spec_.config.m = ran.config.m;
  spec_.config.n = ran.config.n;
  spec_.config.k = ran.config.k;
}

Status SetupView::load(const std::string& path) {
  auto read = io::read_json_file(path);
  if (!read) return Error{read.error()};
  return load_json(*read, path);
}

Status SetupView::load_json(const nlohmann::json& j, const std::string& path) {
  const std::string kind = experiment_kind(j);
  if (kind == "matmul" || kind == "linear") {
    auto spec = matmul_spec_from_json(j);
    if (!spec) return Error{path + ": " + spec.error()};
    spec_ = *spec;
    mode_ = ExperimentMode::Matrix;
    const std::string acc = to_json(spec_)["accumulate"].get<std::string>();
    std::snprintf(accumulate_, sizeof accumulate_, "%s", acc.c_str());
  } else {
    auto mode = read_other_kind(j, &spec_, &models_, &other_);
    if (!mode) return Error{path + ": " + mode.error()};
    mode_ = *mode;
    const std::string acc = join(models_, ",", [](const Accumulation& m) { return accumulation_spec(m); });
    std::snprintf(accumulate_, sizeof accumulate_, "%s", acc.c_str());
  }
  // Every kind names its backend (an MLP's layer, a sweep's trials): the picker shows it.
  backend_.choose(spec_.config.backend);
  return {};
}

void SetupView::drop_tensor(const std::string& path) {
  pending_drops_.push_back(path);
  log_.add("experiment", "dropped " + path);
}

void SetupView::use_pair(DType input, DType weight, const std::string& framework, const std::string& op) {
  spec_.config.input = input;
  spec_.config.weight = weight;
  spec_.framework = framework;
  const bool matrix = op == "matmul" || op == "mm" || op == "bmm" || op == "@";
  spec_.config.op = matrix ? MatmulOp::Matmul : MatmulOp::Linear;
  log_.add("experiment", "from the Promotion grid: " + std::string(pl::name(input)) + " x " +
                             std::string(pl::name(weight)) + " under " + framework + " (" +
                             std::string(matmul_op_name(spec_.config.op)) + ")");
}

bool SetupView::use_model(const std::string& spec, DType input) {
  auto model = parse_accumulation(spec);
  if (!model) {
    log_.add("experiment", "probe's model not used: " + model.error());
    return false;
  }
  spec_.config.input = spec_.config.weight = input;
  spec_.config.accumulate = *model;
  spec_.framework.clear();  // the arithmetic alone: a framework's rules would pick their own
  models_ = {*model};
  std::snprintf(accumulate_, sizeof accumulate_, "%s", spec.c_str());
  log_.add("experiment", "from the accumulation probe: " + std::string(pl::name(input)) + " x " +
                             std::string(pl::name(input)) + ", accumulate " + spec);
  return true;
}

bool SetupView::place_pending_drops() {
  if (pending_drops_.empty()) return false;
  for (const auto& path : pending_drops_) {
    // (A cast has one tensor: the latest drop is it.)
    std::string& slot =
        spec_.files.input.empty() || mode_ == ExperimentMode::Roundtrip ? spec_.files.input : spec_.files.weight;
    slot = path;
    log_.add("experiment", (&slot == &spec_.files.input ? "input file: " : "weight file: ") + path);
  }
  pending_drops_.clear();
  return true;
}

bool SetupView::draw_files() {
  MatmulFiles& f = spec_.files;
  bool changed = false;
  ImGui::TextDisabled("operands from files (or drop one on the window)");
  auto field = [&](const char* label, std::string* path, const char* shape) {
    bool edited = ImGui::InputTextWithHint(label, "none: drawn", path);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "%s: FILE.npy or FILE.safetensors:NAME[@R0:R1,C0:C1]; empty: drawn.\n"
          "Dropped on this field, a file goes here.",
          shape);
    // A drop arrives between frames with the mouse where it was let go.
    if (!pending_drops_.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem)) {
      *path = pending_drops_.front();
      pending_drops_.erase(pending_drops_.begin());
      log_.add("experiment", std::string(label) + ": " + *path);
      edited = true;
    }
    return edited;
  };
  const bool linear = spec_.config.op == MatmulOp::Linear;
  changed |= field("input file", &f.input, "m x k");
  changed |= field("weight file", &f.weight, linear ? "n x k, as nn.Linear stores it" : "k x n");
  changed |= field("bias file", &f.bias, "n values");
  changed |= place_pending_drops();  // dropped elsewhere on the window
  changed |= ImGui::Checkbox("raw .npy codes", &f.raw);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Read .npy integer elements as the dtype's raw codes (bfloat16 stored as uint16).");
  if (!f.input.empty() || !f.weight.empty()) ImGui::TextDisabled("shapes come from the files; m, n, k follow them");
  return changed;
}

bool SetupView::draw_shape_and_op() {
  MatmulConfig& c = spec_.config;
  bool changed = false;
  const auto kinds = panel_kinds();
  size_t shown = 0;
  for (size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i].mode == mode_ && (mode_ != ExperimentMode::Matrix || kinds[i].op == c.op)) shown = i;
  if (ImGui::BeginCombo("op", std::string(kinds[shown].name).c_str())) {
    for (size_t i = 0; i < kinds.size(); ++i) {
      if (ImGui::Selectable(std::string(kinds[i].name).c_str(), i == shown) && i != shown) {
        mode_ = kinds[i].mode;
        if (mode_ == ExperimentMode::Matrix) c.op = kinds[i].op;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) {
    std::string tip;
    for (const PanelKind& k : kinds) tip.append(tip.empty() ? "" : "\n").append(k.what);
    ImGui::SetTooltip("%s", tip.c_str());
  }
  if (mode_ == ExperimentMode::Roundtrip) {
    // A tensor from a file (or dropped on the window), or values drawn in the shape given.
    bool edited = ImGui::InputTextWithHint("tensor file", "none: drawn", &spec_.files.input);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "A 2-D tensor to round trip: FILE.npy or FILE.safetensors:NAME[@R0:R1,C0:C1] (its rows are\n"
          "the recipes' channels and blocks); empty: drawn. A file dropped on the window goes here.");
    changed |= edited | place_pending_drops();
    ImGui::BeginDisabled(!spec_.files.input.empty());
    changed |= size_input("rows (channels)", &c.m);
    changed |= size_input("values per row", &c.k);
    ImGui::EndDisabled();
    if (!spec_.files.input.empty()) ImGui::TextDisabled("the shape is the file's");
    return changed;
  }
  if (mode_ == ExperimentMode::Train) return changed | draw_training();
  if (mode_ == ExperimentMode::DotSweep) {
    changed |= ImGui::InputText("lengths (K)", &other_.lengths);
    if (ImGui::InputInt("trials", &other_.trials, 16, 256))
      other_.trials = std::clamp(other_.trials, 1, 100000), changed = true;
    return changed;
  }
  // With tensor files the shapes are theirs: the fields show them and cannot be edited.
  ImGui::BeginDisabled(mode_ == ExperimentMode::Matrix && !spec_.files.input.empty());
  const bool linear = c.op == MatmulOp::Linear || mode_ == ExperimentMode::Mlp;
  changed |= size_input(linear ? "batch (m)" : "m", &c.m);
  if (mode_ == ExperimentMode::Mlp) {
    changed |= size_input("width (k = n)", &c.k);
  } else {
    changed |= size_input(linear ? "out features (n)" : "n", &c.n);
    changed |= size_input(linear ? "in features (k)" : "k", &c.k);
  }
  ImGui::EndDisabled();
  if (mode_ == ExperimentMode::Mlp) {
    if (ImGui::InputInt("layers", &other_.layers)) other_.layers = std::clamp(other_.layers, 1, 256), changed = true;
    changed |= enum_combo<Activation, kActivationCount>("activation", &other_.activation, activation_name);
  }
  return changed;
}

// The training run's own fields: the models (compute[:master] formats), the regression's sizes,
// the steps, the learning rate and the targets' noise.
bool SetupView::draw_training() {
  bool changed = ImGui::InputText("models", &other_.train_models);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "%s\n\nComma-separated: a float dtype computes and keeps the weights in it (bfloat16);\n"
        "COMPUTE:MASTER computes in COMPUTE and keeps master weights in MASTER (bfloat16:float32)",
        other_.train_models.c_str());
  changed |= size_input("samples (n)", &other_.samples);
  changed |= size_input("features (d)", &other_.features);
  if (ImGui::InputInt("steps", &other_.steps, 50, 500))
    other_.steps = std::clamp(other_.steps, 1, 100000), changed = true;
  const double lr_step = 0.01, noise_step = 0.001;
  if (ImGui::InputScalar("learning rate", ImGuiDataType_Double, &other_.learning_rate, &lr_step, nullptr, "%.4g"))
    changed = true;
  if (ImGui::InputScalar("noise", ImGuiDataType_Double, &other_.noise, &noise_step, nullptr, "%.4g")) changed = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the targets' noise sd: the best loss any model can reach is about its square");
  return changed;
}

bool SetupView::check() {
  if (mode_ == ExperimentMode::Matrix) {
    setup_error_ = experiment::check(spec_).error();  // with a framework: its call may raise or convert
    return false;
  }
  if (models_.empty()) models_ = {spec_.config.accumulate};
  auto file = other_kind_file(
      mode_, spec_, mode_ == ExperimentMode::DotSweep ? models_ : std::vector{spec_.config.accumulate}, other_);
  setup_error_ = file ? "" : file.error();
  if (!file || *file == other_file_) return false;
  other_file_ = *file;
  return true;
}

bool SetupView::draw_dtypes() {
  MatmulConfig& c = spec_.config;
  bool changed = false;
  // A roundtrip reads one dtype; a dot sweep's dot products only the input and weight dtypes.
  if (mode_ == ExperimentMode::Train) return false;  // the models name the formats
  const bool cast = mode_ == ExperimentMode::Roundtrip, sweep = mode_ == ExperimentMode::DotSweep;
  changed |= dtype_combo(cast ? "dtype" : "input", &c.input, true);
  if (!cast) changed |= dtype_combo("weight", &c.weight, true);
  if (sweep || cast) return changed;
  changed |= dtype_combo("output", &c.output, false);
  bool has_bias = c.bias.has_value();
  if (ImGui::Checkbox("bias", &has_bias))
    c.bias = has_bias ? std::optional<DType>(c.output) : std::nullopt, changed = true;
  if (c.bias) {
    DType b = *c.bias;
    if (dtype_combo("bias dtype", &b, false)) c.bias = b, changed = true;
  }
  return changed;
}

bool SetupView::draw_accumulate() {
  if (mode_ == ExperimentMode::Roundtrip || mode_ == ExperimentMode::Train) return false;
  bool changed = false;
  if (ImGui::InputText("accumulate", accumulate_, sizeof accumulate_)) {
    // A dot sweep compares several models: a comma-separated list; the others take the first.
    std::vector<Accumulation> models;
    std::stringstream in(accumulate_);
    bool ok = true;
    for (std::string item; std::getline(in, item, ',');) {
      if (auto a = parse_accumulation(item)) models.push_back(*a);
      else ok = false;
    }
    if (ok && !models.empty()) models_ = models, spec_.config.accumulate = models.front(), changed = true;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "%s.\nmultiterm is a tensor core's block adder: BLOCK products aligned to the largest, EXTRA "
        "bits kept;\na dot sweep takes a comma-separated list of models to compare",
        experiment::accumulation_grammar(/*with_int32=*/mode_ != ExperimentMode::DotSweep).c_str());
  return changed;
}

bool SetupView::draw_rounding_and_data() {
  // (a training run rounds every operation to nearest, ties to even, and draws its own data)
  if (mode_ == ExperimentMode::DotSweep || mode_ == ExperimentMode::Train) return false;
  MatmulConfig& c = spec_.config;
  const bool cast = mode_ == ExperimentMode::Roundtrip;
  bool changed = draw_rounding_combo("rounding", &c.cast.rounding);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", cast ? "How the scaled values are rounded to a float dtype\n"
                                   "(an integer dtype's always round to nearest, ties to even)."
                                 : "How the input, weight, bias and output are rounded to their dtypes\n"
                                   "(integer operands always to nearest, ties to even; the accumulator's\n"
                                   "own rounding is part of the accumulate model).");
  // A cast to an integer dtype clamps to its range: no overflow policy to choose (one set for a
  // float dtype before would refuse the cast).
  if (cast && !is_float(c.input)) {
    changed |= c.cast.overflow != Overflow::FormatDefault;
    c.cast.overflow = Overflow::FormatDefault;
  } else {
    changed |= draw_overflow_combo("overflow", &c.cast.overflow);
  }
  using experiment::kDistributionCount, experiment::kScalingKindCount;
  changed |= enum_combo<ScalingKind, kScalingKindCount>(cast ? "scaling" : "input scaling", &c.input_scaling.kind,
                                                        scaling_name, scaling_summary);
  changed |= draw_group_size(cast ? "group size" : "input group size", c.input_scaling);
  if (!cast) {
    changed |= enum_combo<ScalingKind, kScalingKindCount>("weight scaling", &c.weight_scaling.kind, scaling_name,
                                                          scaling_summary);
    changed |= draw_group_size("weight group size", c.weight_scaling);
  }
  changed |= enum_combo<Distribution, kDistributionCount>(cast ? "data" : "input data", &c.input_data.distribution,
                                                          distribution_name, distribution_summary);
  // An MLP draws its weights as nn.Linear initialises them.
  if (mode_ != ExperimentMode::Mlp && !cast)
    changed |= enum_combo<Distribution, kDistributionCount>("weight data", &c.weight_data.distribution,
                                                            distribution_name, distribution_summary);
  return changed;
}

// A group recipe's size (elements per group along a row), shown only for the group recipes.
bool SetupView::draw_group_size(const char* label, Scaling& s) {
  if (!experiment::is_group(s.kind)) return false;
  int group = s.group;
  if (!ImGui::InputInt(label, &group, 32, 128)) return false;
  s.group = std::clamp(group, 2, experiment::kMaxGroup);
  return true;
}

bool SetupView::draw_seed_and_threads() {
  MatmulConfig& c = spec_.config;
  bool changed = false;
  // All 64 bits: a file's seed past 2^31 shown as an int read as another seed.
  const uint64_t seed_step = 1;
  if (ImGui::InputScalar("seed", ImGuiDataType_U64, &c.seed, &seed_step)) changed = true;
  if (mode_ != ExperimentMode::Matrix && mode_ != ExperimentMode::Mlp) return changed;
  const unsigned thread_step = 1;
  unsigned threads = c.threads;
  if (ImGui::InputScalar("threads (0: all)", ImGuiDataType_U32, &threads, &thread_step))
    c.threads = std::min(threads, kMaxThreads), changed = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "CPU threads the run may use, OpenBLAS's included (0: all %u). Precision Lab's own\n"
        "sums, its double-double reference and its statistics give the same bits on any count;\n"
        "what OpenBLAS computes (the blas models, the float64 reference) takes an order that\n"
        "moves with it (its sgemm gives other bits on one thread than on two).",
        hardware_threads());
  return changed;
}

bool SetupView::draw_framework() {
  if (mode_ != ExperimentMode::Matrix) return false;
  bool changed = false;
  const std::string current = spec_.framework.empty() ? "none (arithmetic alone)" : spec_.framework;
  const float framework_width = ImGui::CalcItemWidth();
  const bool framework_open = ImGui::BeginCombo("framework", current.c_str());
  if (!framework_open) tooltip_if_cut(current.c_str(), framework_width);
  if (framework_open) {
    if (ImGui::Selectable("none (arithmetic alone)", spec_.framework.empty())) spec_.framework.clear(), changed = true;
    for (const auto& e : promote::engines()) {
      const std::string label = std::string(e.id) + "  (" + promote::release_text(e) + ", " + std::string(e.device) + ")";
      if (ImGui::Selectable(label.c_str(), spec_.framework == e.id))
        spec_.framework = std::string(e.id), changed = true;
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Run the product as this framework would: when it raises on these dtypes, its exact\n"
        "message is shown, and the usual fixes (converting the input, the model, autocast...)\n"
        "run instead, side by side.");
  return changed;
}

bool SetupView::draw_device() {
  if (mode_ == ExperimentMode::Train) {  // (its arithmetic is emulated operation by operation)
    ImGui::TextDisabled("runs on the CPU");
    return false;
  }
  MatmulConfig& c = spec_.config;
  bool changed = false;
  if (backend_.draw("backend")) c.backend = backend_.chosen(), changed = true;
  if (mode_ == ExperimentMode::Roundtrip) {  // (the picker's account is a product's; a roundtrip's is "rounded on")
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "where the elements are rounded; the scales, counts and statistics are the CPU's,\n"
          "and the bits are the same everywhere");
    return changed;
  }
  // cuBLASLt's fast accumulation exists for the float8 GEMMs only (kernels/lt_plan.cpp).
  const auto float8 = [](DType t) { return t == DType::float8_e4m3fn || t == DType::float8_e5m2; };
  const bool sweep = mode_ == ExperimentMode::DotSweep;
  if (!sweep && (float8(c.input) || float8(c.weight))) {
    changed |= ImGui::Checkbox("fast accumulation", &c.fast_accumulation);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "float8 tensor cores' fast accumulation (cuBLASLt CUBLASLT_MATMUL_DESC_FAST_ACCUM):\n"
          "partial sums keep about 14 significant bits (float32 keeps 24) and are not promoted\n"
          "to float32 (the accumulation probe on an H100 and an H200: no promotion within 4096\n"
          "products, one every 128 without it). A CUDA mode: the CPU sums without it and its product's description "
          "says so.");
  } else if (c.fast_accumulation) {  // not offered for these dtypes: not asked for either
    c.fast_accumulation = false;
    changed = true;
  }
  // A dot sweep's trials are 1 x 1 x K products, one model after another; the first decides here.
  const experiment::GemmShape shape = sweep ? experiment::GemmShape{1, 1, c.k} : experiment::GemmShape{c.m, c.n, c.k};
  if (const std::string where = backend_.where({shape, experiment::product_dtype(c.input, c.input_scaling),
                                                experiment::product_dtype(c.weight, c.weight_scaling), c.accumulate,
                                                c.fast_accumulation});
      !where.empty())
    wrapped_text(where);
  return changed;
}

bool SetupView::draw() {
  bool changed = false;
  ImGui::PushItemWidth(13 * ImGui::GetFontSize());
  changed |= draw_shape_and_op();
  ImGui::Separator();
  changed |= draw_dtypes();
  changed |= draw_accumulate();
  changed |= draw_rounding_and_data();
  changed |= draw_seed_and_threads();
  ImGui::Separator();
  if (mode_ == ExperimentMode::Matrix) {
    changed |= draw_files();
    ImGui::Separator();
  }
  changed |= draw_framework();
  changed |= draw_device();
  ImGui::PopItemWidth();
  if (!setup_error_.empty()) ImGui::TextColored({1.0f, 0.45f, 0.4f, 1}, "%s", setup_error_.c_str());
  return changed;
}

}  // namespace pl::ui
