#include "core/experiment/spec/matmul_json.h"

#include <cmath>
#include <optional>
#include <string>
#include <tuple>

#include "core/accumulate/accumulation_spec.h"
#include "core/dtype/custom_dtype.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/experiment/spec/json_reader.h"
#include "core/promote/engine.h"

namespace pl::experiment {

using nlohmann::json;
using namespace json_detail;

Expected<MatmulSpec> matmul_spec_from_json(const json& j) {
  if (!j.is_object()) return Error{"an experiment is a JSON object"};
  if (auto st = unknown_key(
          j, {"experiment",     "m",          "n",           "k",         "input",    "weight",
              "bias",           "output",     "accumulate",  "rounding",  "overflow", "input_scaling",
              "weight_scaling", "input_data", "weight_data", "bias_data", "seed",     "high_precision_reference",
              "threads",        "input_file", "weight_file", "bias_file", "raw",      "comment",
              "input_via",      "weight_via", "bias_via",    "framework", "backend",  "fast_accumulation"});
      !st)
    return Error{st.error()};
  MatmulSpec spec;
  MatmulConfig& c = spec.config;
  Reader r{j, {}};
  // "" is not "not given": a key written empty would take its default silently.
  for (const char* key : {"accumulate", "framework", "backend", "input_file", "weight_file", "bias_file"})
    if (j.contains(key) && j[key].is_string() && j[key].get<std::string>().empty())
      r.fail(key, "is empty: leave it out for its default, or give a value");
  std::string op = "linear", accumulate;
  r.string("experiment", &op);
  if (op == "matmul") c.op = MatmulOp::Matmul;
  else if (op == "linear") c.op = MatmulOp::Linear;
  else r.fail("experiment", "'" + op + "' is not matmul or linear");
  r.size("m", &c.m) && r.size("n", &c.n) && r.size("k", &c.k);
  r.dtype("input", &c.input) && r.dtype("weight", &c.weight) && r.dtype("output", &c.output);
  for (const auto& [key, field] : {std::pair{"input_via", &c.input_via}, std::pair{"weight_via", &c.weight_via},
                                   std::pair{"bias_via", &c.bias_via}})
    if (j.contains(key) && !j[key].is_null()) {
      DType t = DType::float32;
      if (r.dtype(key, &t)) *field = t;
    }
  if (j.contains("bias") && !j["bias"].is_null()) {
    DType b = DType::float32;
    if (r.dtype("bias", &b)) c.bias = b;
  }
  if (r.string("accumulate", &accumulate) && !accumulate.empty()) {
    auto a = parse_accumulation(accumulate);
    if (a) c.accumulate = *a;
    else r.fail("accumulate", a.error());
  }
  r.cast_policy(&c.cast);
  r.scaling("input_scaling", &c.input_scaling) && r.scaling("weight_scaling", &c.weight_scaling);
  r.data("input_data", &c.input_data) && r.data("weight_data", &c.weight_data) && r.data("bias_data", &c.bias_data);
  r.seed(&c.seed);
  r.boolean("high_precision_reference", &c.high_precision_reference);
  r.backend(&c.backend);
  r.boolean("fast_accumulation", &c.fast_accumulation);
  if (j.contains("threads")) {
    if (const auto threads = integer_in(j["threads"], 0, kMaxThreads)) c.threads = static_cast<unsigned>(*threads);
    else r.fail("threads", "must be an integer from 0 (all cores) to " + std::to_string(kMaxThreads));
  }
  r.string("input_file", &spec.files.input);
  r.string("weight_file", &spec.files.weight);
  r.string("bias_file", &spec.files.bias);
  r.boolean("raw", &spec.files.raw);
  // As `matmul --a --b` refuses them: with operand files the shapes and values are the files'.
  const bool operand_files = !spec.files.input.empty() || !spec.files.weight.empty();
  if (operand_files) {
    for (const char* key : {"m", "n", "k", "input_data", "weight_data"})
      if (j.contains(key))
        r.fail(key, "is for drawn operands: with input_file and weight_file the shapes and values are the files'");
  } else if (spec.files.raw) {
    r.fail("raw", "reads the .npy files of input_file and weight_file as raw codes: give the files");
  }
  if (!spec.files.bias.empty() && j.contains("bias_data"))
    r.fail("bias_data", "is for a drawn bias: with bias_file the values are the file's");
  // Without a bias, bias_data draws nothing: refused, but for the writer's default, which older
  // files say and which is taken as saying nothing (as the MLP reader takes its own).
  else if (!c.bias && j.contains("bias_data") && data_json(c.bias_data) != data_json(MatmulConfig{}.bias_data))
    r.fail("bias_data", "draws a bias: give \"bias\" its dtype too, or leave bias_data out");
  if (r.string("framework", &spec.framework) && !spec.framework.empty() && !promote::find_engine(spec.framework))
    r.fail("framework", "unknown framework '" + spec.framework + "' (" + promote::engine_names() + ")");
  if (!r.error.empty()) return Error{r.error};
  if (auto st = check(spec); !st) return Error{st.error()};
  return spec;
}

Status check(const MatmulSpec& s) {
  // Drawn operands are signed: in a format without a sign (float8_e8m0fnu, a scale format) half
  // of them would be NaN, and every output with them. (A bias only where there is one.)
  const MatmulConfig& c = s.config;
  for (const auto& [t, file, what] : {std::tuple{std::optional(c.input), s.files.input, "input"},
                                      {std::optional(c.weight), s.files.weight, "weight"},
                                      {c.bias, s.files.bias, "bias"}})
    if (t && file.empty() && is_float(*t) && !info(*t).format.is_signed())
      return Error{std::string(name(*t)) + " has no sign, and a drawn " + what +
                   " is signed: its negative half would be NaN (give a file of positive values, or another dtype)"};
  if (s.framework.empty()) return check(s.config);
  if (auto st = check_setup(s.config); !st) return st;
  return framework_lacks(s.config, s.framework);
}

Status framework_lacks(const MatmulConfig& c, const std::string& engine_id) {
  const promote::Engine* e = promote::find_engine(engine_id);
  if (!e) return Error{"unknown framework '" + engine_id + "' (" + promote::engine_names() + ")"};
  for (DType t : {c.input, c.weight, c.bias.value_or(c.input)})
    if (!e->has_dtype(t))
      return Error{is_custom(t) ? std::string(e->framework) + " has no " + std::string(name(t)) +
                                      " (a custom format: leave the framework out to run its arithmetic alone)"
                                : promote::missing_dtype_text(*e, t)};
  return {};
}

json to_json(const MatmulSpec& s) {
  const MatmulConfig& c = s.config;
  json j = {{"experiment", matmul_op_name(c.op)},
            {"m", c.m},
            {"n", c.n},
            {"k", c.k},
            {"input", name(c.input)},
            {"weight", name(c.weight)},
            {"bias", c.bias ? json(name(*c.bias)) : json()},
            {"output", name(c.output)},
            {"accumulate", accumulation_spec(c.accumulate)},
            {"rounding", rounding_name(c.cast.rounding)},
            {"overflow", overflow_name(c.cast.overflow)},
            {"input_scaling", scaling_json(c.input_scaling)},
            {"weight_scaling", scaling_json(c.weight_scaling)},
            {"input_data", data_json(c.input_data)},
            {"weight_data", data_json(c.weight_data)},
            {"bias_data", data_json(c.bias_data)},
            {"seed", c.seed},
            {"high_precision_reference", c.high_precision_reference}};
  if (c.input_via) j["input_via"] = name(*c.input_via);
  if (c.weight_via) j["weight_via"] = name(*c.weight_via);
  if (c.bias_via) j["bias_via"] = name(*c.bias_via);
  if (!s.files.input.empty()) j["input_file"] = s.files.input;
  if (!s.files.weight.empty()) j["weight_file"] = s.files.weight;
  if (!s.files.bias.empty()) j["bias_file"] = s.files.bias;
  // What the files give is not written (matmul_spec_from_json refuses it beside them).
  if (!s.files.input.empty() || !s.files.weight.empty())
    for (const char* key : {"m", "n", "k", "input_data", "weight_data"}) j.erase(key);
  if (!s.files.bias.empty() || !c.bias) j.erase("bias_data");
  if (s.files.raw && (!s.files.input.empty() || !s.files.weight.empty())) j["raw"] = true;
  if (!s.framework.empty()) j["framework"] = s.framework;
  if (c.backend != BackendChoice::Cpu) j["backend"] = backend_choice_name(c.backend);
  if (c.fast_accumulation) j["fast_accumulation"] = true;
  if (c.threads != 0) j["threads"] = c.threads;  // (0, all cores, is the default)
  return j;
}

json to_json(const ErrorStats& s) {
  return {{"count", s.count},
          {"nan", s.nan},
          {"inf", s.inf},
          {"saturated", s.saturated},
          {"flushed", s.flushed},
          {"max_abs", number(s.max_abs)},
          {"mean_abs", number(s.mean_abs)},
          {"rms_abs", number(s.rms_abs)},
          {"p50_abs", number(s.p50_abs)},
          {"p90_abs", number(s.p90_abs)},
          {"p99_abs", number(s.p99_abs)},
          {"max_rel", number(s.max_rel)},
          {"mean_rel", number(s.mean_rel)},
          {"rel_floor", number(s.rel_floor)},
          {"normwise_rel", number(s.normwise_rel)},
          {"max_ulp", number(s.max_ulp)},
          {"mean_ulp", number(s.mean_ulp)},
          {"min_bits", number(s.min_bits)},
          {"mean_bits", number(s.mean_bits)},
          {"sqnr_db", number(s.sqnr_db)}};
}

json to_json(const Histogram& h) {
  json edges = json::array();
  for (double e : h.edges) edges.push_back(number(e));
  // "log": edges evenly spaced in the logarithm, a power of two or a fixed fraction of an octave
  // apart ("log10" would read as decades); `edges` gives them.
  return {{"scale", h.scale == BinScale::Log10 ? "log" : "linear"},
          {"edges", edges},
          {"counts", h.counts},
          {"below", h.below},
          {"above", h.above},
          {"zeros", h.zeros},
          {"nonfinite", h.nonfinite}};
}

json to_json(const MatmulResult& r, const MatmulFiles& files) {
  auto component = [](const ErrorComponent& c) {
    return json{{"name", c.name},
                {"stats", to_json(c.stats)},
                {"histograms",
                 {{"relative", to_json(c.relative)}, {"signed", to_json(c.signed_error)}, {"ulps", to_json(c.ulps)}}}};
  };
  auto operand = [](const OperandReport& o) {
    return json{{"recipe", o.recipe},
                {"saturated", o.saturated},
                {"out_of_range", o.out_of_range},
                {"flushed", o.flushed},
                {"amax", o.amax ? number(*o.amax) : json(nullptr)}};
  };
  // An integer operand's u would be its placeholder float format's: it has none.
  auto unit_roundoff_of = [](DType t) { return is_float(t) ? json(unit_roundoff(info(t).format)) : json(nullptr); };
  const FloatFormat& acc = info(result_dtype(r.config.accumulate)).format;
  // The files' names, and the shape read from them (a setup leaves it to the files; a result
  // says what ran).
  json config = to_json(MatmulSpec{r.config, files, {}});
  config["m"] = r.config.m, config["n"] = r.config.n, config["k"] = r.config.k;
  return {{"config", config},
          {"reference", r.reference_method},
          {"product", r.product_method},
          {"product_backend", r.product_backend},
          {"backend_note", r.backend_note},
          {"bound_note", r.bound_note},
          {"analysis_backend", r.analysis_backend},
          {"bound_method", r.bound_method},
          {"product_device_seconds", r.product_device_seconds ? number(*r.product_device_seconds) : json(nullptr)},
          {"components", {component(r.total), component(r.input), component(r.arithmetic), component(r.output)}},
          {"bounds",
           {{"k", r.config.k},
            {"epilogue_roundings", r.epilogue_roundings},  // the bounds are taken at k plus these
            {"deterministic", number(r.bounds.deterministic)},
            {"probabilistic_estimate", number(r.bounds.probabilistic)},
            {"max_scaled_arithmetic_error", number(r.max_scaled_arithmetic)},
            {"within_deterministic", r.within_deterministic},
            {"within_probabilistic_estimate", r.within_probabilistic},
            {"compared", r.compared},
            {"scaled_arithmetic_histogram", to_json(r.scaled_arithmetic)}}},
          {"unit_roundoff",
           {{"input", unit_roundoff_of(r.config.input)},
            {"weight", unit_roundoff_of(r.config.weight)},
            // (int32 sums are exact, or wrap: no rounding to bound.)
            {"accumulator", r.config.accumulate.kind == AccumKind::Int32 ? json(nullptr) : json(unit_roundoff(acc))},
            {"output", unit_roundoff(info(r.config.output).format)}}},
          {"operands",
           {{"input", operand(r.input_report)},
            {"weight", operand(r.weight_report)},
            {"bias", r.config.bias ? operand(r.bias_report) : json(nullptr)}}},
          {"seconds",
           {{"generate", r.seconds.generate},
            {"quantise", r.seconds.quantise},
            {"reference", r.seconds.reference},
            {"product", r.seconds.product},
            {"analysis", r.seconds.analysis},
            {"total", r.seconds.total()}}}};
}

}  // namespace pl::experiment

namespace pl::experiment {

Expected<MlpConfig> mlp_config_from_json(const json& j) {
  if (!j.is_object()) return Error{"an experiment is a JSON object"};
  MlpConfig c;
  json layer = j;
  layer["experiment"] = "linear";
  for (const char* key : {"m", "n", "k", "input_file", "weight_file", "bias_file", "raw"})
    if (j.contains(key))
      return Error{std::string("'") + key + "' is not an MLP key (give width and batch; MLP weights are drawn)"};
  if (j.contains("framework"))
    return Error{
        "'framework' is not an MLP key (an MLP runs its layers' own arithmetic; a linear experiment runs a "
        "call as a framework would)"};
  // The weights and biases are drawn with nn.Linear's init (run_mlp), so their data sources
  // would have no effect. Older files say the writer's defaults, which are taken as saying
  // nothing; any other source is refused.
  for (const auto& [key, written_before] :
       {std::pair{"weight_data", DataSource{}}, std::pair{"bias_data", DataSource{Distribution::TorchLinear}}}) {
    DataSource given = written_before;
    Reader r{j, {}};
    if (!r.data(key, &given)) return Error{r.error};
    if (data_json(given) != data_json(written_before))
      return Error{std::string("'") + key +
                   "' is not an MLP key (MLP weights and biases are drawn with nn.Linear's init)"};
    layer.erase(key);
  }
  size_t width = 256, batch = 64;
  auto size = [&](const char* key, size_t* out) -> std::string {
    if (!j.contains(key)) return "";
    const auto v = integer_in(j[key], 1, static_cast<int64_t>(kMaxDim));
    if (!v) return std::string("'") + key + "': must be an integer from 1 to " + std::to_string(kMaxDim);
    *out = static_cast<size_t>(*v);
    layer.erase(key);
    return "";
  };
  if (auto e = size("width", &width); !e.empty()) return Error{e};
  if (auto e = size("batch", &batch); !e.empty()) return Error{e};
  if (j.contains("layers")) {
    const auto layers = integer_in(j["layers"], 1, kMaxLayers);
    if (!layers) return Error{"'layers': must be an integer from 1 to " + std::to_string(kMaxLayers)};
    c.layers = static_cast<int>(*layers);
    layer.erase("layers");
  }
  if (j.contains("activation")) {
    auto a = j["activation"].is_string() ? parse_activation(j["activation"].get<std::string>()) : std::nullopt;
    if (!a) return Error{"'activation': relu, gelu or identity"};
    c.activation = *a;
    layer.erase("activation");
  }
  layer["m"] = batch;
  layer["n"] = width;
  layer["k"] = width;
  auto spec = matmul_spec_from_json(layer);
  if (!spec) return Error{spec.error()};
  c.layer = spec->config;
  if (auto st = check(c); !st) return Error{st.error()};
  return c;
}

json to_json(const MlpConfig& c) {
  json j = to_json(MatmulSpec{c.layer, {}, {}});
  for (const char* key : {"m", "n", "k", "weight_data", "bias_data"}) j.erase(key);
  j["experiment"] = "mlp";
  j["layers"] = c.layers;
  j["width"] = c.layer.k;
  j["batch"] = c.layer.m;
  j["activation"] = activation_name(c.activation);
  return j;
}

json to_json(const MlpResult& r) {
  json layers = json::array();
  for (const auto& l : r.layers)
    layers.push_back({{"layer", l.layer},
                      {"network", to_json(l.network)},
                      {"own", to_json(l.own)},
                      {"own_arithmetic", to_json(l.own_arithmetic)},
                      {"reference_rms", number(l.reference_rms)}});
  return {{"config", to_json(r.config)},
          {"layers", layers},
          {"seconds", r.seconds},
          {"product", r.product_method},
          {"product_backend", r.product_backend},
          {"backend_note", r.backend_note}};
}

}  // namespace pl::experiment
