#include "core/experiment/spec/sweep_json.h"

#include "core/accumulate/accumulation_spec.h"
#include "core/experiment/spec/experiment_file.h"
#include "core/experiment/spec/json_reader.h"
#include "core/experiment/spec/matmul_json.h"

namespace pl::experiment {

using nlohmann::json;
using namespace json_detail;

Expected<DotSweepConfig> dot_config_from_json(const json& j) {
  if (!j.is_object()) return Error{"an experiment is a JSON object"};
  if (auto st =
          unknown_key(j, {"experiment", "lengths", "a", "b", "accumulate", "trials", "seed", "backend", "comment"});
      !st)
    return Error{st.error()};
  DotSweepConfig c;
  Reader r{j, {}};
  std::string kind = "dot";
  r.string("experiment", &kind);
  if (kind != "dot" && kind != "sum") r.fail("experiment", "'" + kind + "' is not dot or sum");
  c.sum = kind == "sum";
  // A sum adds a's values alone (dot --sum refuses --b-dtype): a "b" would be ignored.
  if (c.sum && j.contains("b")) r.fail("b", "is for a dot product: a sum adds the values of a alone");
  if (j.contains("lengths")) {
    if (!j["lengths"].is_array() || j["lengths"].empty()) r.fail("lengths", "must be a list of positive integers");
    else {
      c.lengths.clear();
      for (const auto& v : j["lengths"])
        if (v.is_number_unsigned()) c.lengths.push_back(v.get<size_t>());
        else r.fail("lengths", "must be a list of positive integers");
    }
  }
  r.dtype("a", &c.a_dtype) && r.dtype("b", &c.b_dtype);
  if (j.contains("accumulate")) {
    const json& v = j["accumulate"];
    std::vector<std::string> specs;
    if (v.is_string()) specs.push_back(v.get<std::string>());
    else if (v.is_array() && v.empty())
      r.fail("accumulate", "must be a model or a list of models, not an empty list");  // (not the default)
    else if (v.is_array())
      for (const auto& s : v)
        if (s.is_string()) specs.push_back(s.get<std::string>());
        else r.fail("accumulate", "must be a model or a list of models");
    else r.fail("accumulate", "must be a model or a list of models");
    for (const auto& spec : specs) {
      if (auto a = parse_accumulation(spec)) c.models.push_back(*a);
      else r.fail("accumulate", a.error());
    }
  }
  if (c.models.empty()) c.models = {{AccumKind::Sequential, DType::float32}};
  r.integer("trials", 1, kMaxTrials, &c.trials);
  r.seed(&c.seed);
  r.backend(&c.backend);
  if (!r.error.empty()) return Error{r.error};
  if (auto st = check(c); !st) return Error{st.error()};
  return c;
}

json to_json(const DotSweepConfig& c) {
  json models = json::array();
  for (const auto& m : c.models) models.push_back(accumulation_spec(m));
  json j = {{"experiment", c.sum ? "sum" : "dot"},
            {"lengths", c.lengths},
            {"a", name(c.a_dtype)},
            {"b", name(c.b_dtype)},
            {"accumulate", models},
            {"trials", c.trials},
            {"seed", c.seed}};
  if (c.sum) j.erase("b");  // (a sum has no b: dot_config_from_json refuses one)
  if (c.backend != BackendChoice::Cpu) j["backend"] = backend_choice_name(c.backend);
  return j;
}

json sweep_result_json(const DotSweepConfig& c, const std::vector<DotSweepRow>& rows) {
  json result = {{"setup", to_json(c)}, {"rows", json::array()}};
  for (const auto& r : rows) result["rows"].push_back(to_json(r));
  return result;
}

json to_json(const DotSweepRow& r) {
  const auto& s = r.stats;
  return {{"k", r.length},
          {"model", describe(r.model)},
          {"spec", accumulation_spec(r.model)},
          {"max_error_over_abs_sum", number(r.max_scaled)},
          {"bound", number(r.bounds.deterministic)},
          {"probabilistic_estimate", number(r.bounds.probabilistic)},
          {"stats", to_json(s)},
          {"trials_without_reference", r.unreferenced},
          {"histogram", to_json(log_histogram_auto(r.scaled_errors))},
          {"ran_on", r.ran_on},
          {"method", r.method},
          {"backend_note", r.note}};
}

Expected<RoundtripSpec> roundtrip_spec_from_json(const json& j) {
  if (!j.is_object()) return Error{"an experiment is a JSON object"};
  if (auto st = unknown_key(j, {"experiment", "rows", "cols", "dtype", "scaling", "rounding", "overflow", "data",
                                "seed", "input_file", "backend", "comment"});
      !st)
    return Error{st.error()};
  RoundtripSpec spec;
  RoundtripConfig& c = spec.config;
  Reader r{j, {}};
  std::string kind = "roundtrip";
  r.string("experiment", &kind);
  if (canonical_kind_name(kind) != "roundtrip") r.fail("experiment", "'" + kind + "' is not roundtrip");
  r.size("rows", &c.rows) && r.size("cols", &c.cols);
  r.dtype("dtype", &c.dtype);
  r.scaling("scaling", &c.scaling);
  r.cast_policy(&c.cast);
  r.data("data", &c.data);
  r.seed(&c.seed);
  r.string("input_file", &spec.input_file);
  r.backend(&c.backend);
  // As `roundtrip --input` refuses them: with a file, the shape and the values are the tensor's
  // (the distribution still draws a delayed recipe's amax history).
  if (!spec.input_file.empty()) {
    for (const char* key : {"rows", "cols"})
      if (j.contains(key)) r.fail(key, "is for drawn values: with input_file the shape is the tensor's");
    if (j.contains("data") && c.scaling.kind != ScalingKind::PerTensorDelayed)
      r.fail("data",
             "is for drawn values (and a delayed recipe's history): with input_file the values are the tensor's");
    if (j.contains("seed") && !seed_read_with_file(c))
      r.fail("seed", c.cast.rounding == Rounding::Stochastic
                         ? std::string(name(c.dtype)) +
                               " rounds to nearest, ties to even, whatever the rounding: with input_file the seed "
                               "changes nothing"
                         : "is for drawn values, stochastic rounding and a delayed recipe's history: with input_file "
                           "and none of the others it changes nothing");
  }
  if (!r.error.empty()) return Error{r.error};
  if (auto st = check(c); !st) return Error{st.error()};
  return spec;
}

json to_json(const RoundtripSpec& s) {
  const RoundtripConfig& c = s.config;
  json j = {{"experiment", "roundtrip"},
            {"rows", c.rows},
            {"cols", c.cols},
            {"dtype", name(c.dtype)},
            {"scaling", scaling_json(c.scaling)},
            {"rounding", rounding_name(rounding_used(c))},
            {"overflow", overflow_name(c.cast.overflow)},
            {"data", data_json(c.data)},
            {"seed", c.seed}};
  if (!s.input_file.empty()) {  // the shape and values are the file's (roundtrip_spec_from_json refuses them)
    j["input_file"] = s.input_file;
    j.erase("rows");
    j.erase("cols");
    if (c.scaling.kind != ScalingKind::PerTensorDelayed) j.erase("data");
    if (!seed_read_with_file(c)) j.erase("seed");
  }
  if (c.backend != BackendChoice::Cpu) j["backend"] = backend_choice_name(c.backend);
  return j;
}

json to_json(const RoundtripResult& r) {
  const RoundtripConfig& c = r.config;
  // The statistics compare the dequantised values in float64 (they may carry a scale): its
  // saturation count (results at float64's largest) and its ulps are float64's, and read as the
  // format's beside the quantiser's own count ("saturated": 7 and "stats.saturated": 0). Left
  // out; the format's out-of-range count is "saturated" above them.
  json stats = to_json(r.stats);
  for (const char* float64_sense : {"saturated", "max_ulp", "mean_ulp"}) stats.erase(float64_sense);
  return {{"dtype", name(c.dtype)},
          {"scaling", scaling_spec(c.scaling)},
          {"rounding", rounding_name(rounding_used(c))},
          {"rows", c.rows},
          {"cols", c.cols},
          {"saturated", r.saturated},
          {"out_of_range", r.out_of_range},
          {"flushed", r.flushed},
          {"stats", stats},
          {"relative_histogram", to_json(r.relative)},
          {"magnitude_histogram", to_json(r.magnitudes)},
          {"magnitudes_scaled", r.magnitudes_scaled},
          {"ran_on", r.ran_on},
          {"backend_note", r.backend_note},
          {"input_file", r.input_file}};
}

}  // namespace pl::experiment
