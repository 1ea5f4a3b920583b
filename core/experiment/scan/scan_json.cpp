#include "core/experiment/scan/scan_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string_view>

#include "core/dtype/device/cast_policy.h"
#include "core/io/safetensors.h"
#include "core/io/tensor.h"
#include "core/util/csv_field.h"
#include "core/util/printable.h"

namespace pl::experiment {
namespace {

using nlohmann::json;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// A finite number, or null read back as +Inf (only non-finite figures are written as null).
Expected<double> number_of(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return Error{where + ": no \"" + key + "\""};
  const json& v = j[key];
  if (v.is_null()) return std::numeric_limits<double>::infinity();
  if (!v.is_number()) return Error{where + ": \"" + key + "\" is not a number"};
  return v.get<double>();
}

// Every key of `j` is one the writer writes: an edited or foreign result is refused, not read in
// part (a key of another version's figures would be dropped from the merge without a word).
Status known_keys(const json& j, std::initializer_list<std::string_view> keys, const std::string& where) {
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
      return Error{where + ": unknown key \"" + printable(it.key()) + "\""};
  return {};
}

// A figure the reader recomputes (an SQNR, a normwise error) is still there and says the same.
Status agrees(const json& j, const char* key, double recomputed, const std::string& where) {
  auto v = number_of(j, key, where);
  if (!v) return Error{v.error()};
  const bool same = std::isinf(recomputed) || std::isnan(recomputed)
                        ? std::isinf(*v)
                        : *v == recomputed || std::fabs(*v - recomputed) <= 1e-9 * std::fabs(recomputed);
  if (!same) return Error{where + ": \"" + key + "\" is not what its energies give"};
  return {};
}

Expected<size_t> count_of(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number_unsigned()) return Error{where + ": \"" + key + "\" is not a count"};
  return j[key].get<size_t>();
}

Expected<std::string> text_of(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_string()) return Error{where + ": \"" + key + "\" is not a string"};
  return j[key].get<std::string>();
}

// A tensor with no finite element has no statistics: null, not the zeros of an empty sum.
json stats_json(const TensorStats& s, bool scored) {
  auto figure = [&](double v) { return scored ? number(v) : json(nullptr); };
  return {{"amax", figure(s.amax)},
          {"rms", figure(s.rms)},
          {"amax_over_rms", figure(s.amax_over_rms)},
          {"kurtosis", figure(s.kurtosis)},
          {"channel_amax_spread", figure(s.channel_spread)},
          {"nonfinite", s.nonfinite}};
}

// The figures a tensor with no finite element does not have: null, as its statistics (its zeros
// would read as an exact copy).
constexpr const char* kScoreFigures[] = {"sqnr_db", "normwise", "error_energy", "max_abs", "max_rel"};

json score_json(const CandidateScore& c, bool by_output, bool scored) {
  auto figure = [&](double v) { return scored ? number(v) : json(nullptr); };
  json j{{"candidate", c.candidate},
         {"bits_per_param", number(c.bits_per_param)},
         {"sqnr_db", figure(c.sqnr_db)},
         {"normwise", figure(c.normwise)},
         {"error_energy", figure(c.error_energy)},
         {"max_abs", figure(c.max_abs)},
         {"max_rel", figure(c.max_rel)},
         {"saturated", c.saturated},
         {"flushed", c.flushed}};
  if (by_output)
    j["output"] = {{"sqnr_db", figure(c.output.sqnr_db)},
                   {"normwise", figure(c.output.normwise)},
                   {"error_energy", figure(c.output.error_energy)}};
  return j;
}

// A tensor with no finite element: every figure null (the scan's zeros stand for them).
Status unscored_figures(const json& c, bool by_output, const std::string& where) {
  for (const char* key : kScoreFigures)
    if (!c.contains(key) || !c[key].is_null())
      return Error{where + ": \"" + key + "\" is not null, but no element is finite"};
  if (by_output)
    for (const char* key : {"sqnr_db", "normwise", "error_energy"})
      if (!c["output"].contains(key) || !c["output"][key].is_null())
        return Error{where + " output: \"" + key + "\" is not null, but no element is finite"};
  return {};
}

json tensor_json(const TensorScan& t, bool by_output) {
  json j{{"name", t.name},
         {"shape", t.shape},
         {"dtype", t.stored},
         {"params", t.params},
         {"role", t.place.role},
         {"param", t.place.param},
         {"energy", number(t.energy)},
         {"stats", stats_json(t.stats, has_finite_elements(t))}};
  j["layer"] = t.place.layer ? json(*t.place.layer) : json(nullptr);
  j["stack"] = t.place.stack;
  if (!t.file.empty()) j["file"] = t.file;
  if (by_output) {
    j["input_rows"] = t.input_rows;
    j["output_energy"] = number(t.output_energy);
  }
  json scores = json::array();
  for (const CandidateScore& c : t.scores) scores.push_back(score_json(c, by_output, has_finite_elements(t)));
  j["candidates"] = std::move(scores);
  return j;
}

// A number that must not be negative (an energy, an error, bits): NaN is refused too.
Expected<double> amount_of(const json& j, const char* key, const std::string& where) {
  auto v = number_of(j, key, where);
  if (v && !(*v >= 0)) return Error{where + ": \"" + key + "\" is negative"};
  return v;
}

Expected<TensorScan> tensor_from_json(const json& j, const std::vector<Candidate>& candidates, size_t index,
                                      bool by_output, const std::string& what) {
  std::string where = what + ": tensors[" + std::to_string(index) + "]";
  if (!j.is_object()) return Error{where + " is not an object"};
  TensorScan t;
  auto name = text_of(j, "name", where);
  if (!name) return Error{name.error()};
  t.name = *name;
  where += " ('" + printable(t.name) + "')";
  if (auto keys = by_output ? known_keys(j,
                                         {"name", "shape", "dtype", "params", "role", "param", "energy", "stats",
                                          "layer", "stack", "file", "input_rows", "output_energy", "candidates"},
                                         where)
                            : known_keys(j,
                                         {"name", "shape", "dtype", "params", "role", "param", "energy", "stats",
                                          "layer", "stack", "file", "candidates"},
                                         where);
      !keys)
    return Error{keys.error()};
  // Where the name puts the tensor, as the scan wrote it.
  t.place = place_of(t.name);
  auto role = text_of(j, "role", where), param = text_of(j, "param", where), stack = text_of(j, "stack", where);
  if (!role || !param || !stack) return Error{!role ? role.error() : !param ? param.error() : stack.error()};
  const bool layer_ok =
      j.contains("layer") && (t.place.layer ? j["layer"].is_number_integer() && j["layer"].get<long>() == *t.place.layer
                                            : j["layer"].is_null());
  if (*role != t.place.role || *param != t.place.param || *stack != t.place.stack || !layer_ok)
    return Error{where + ": \"layer\", \"stack\", \"role\" or \"param\" is not what the name gives"};
  auto stored = text_of(j, "dtype", where);
  auto params = count_of(j, "params", where);
  auto energy = amount_of(j, "energy", where);
  if (!stored || !params || !energy) return Error{!stored ? stored.error() : !params ? params.error() : energy.error()};
  const io::StoredDtype* dtype = io::safetensors_dtype(*stored);
  if (!dtype || !is_float(dtype->dtype))
    return Error{where + ": \"dtype\" " + printable(*stored) + " is not a float dtype a scan reads"};
  t.stored = *stored, t.params = *params, t.energy = *energy;
  if (by_output) {
    auto rows = count_of(j, "input_rows", where);
    auto out_energy = amount_of(j, "output_energy", where);
    if (!rows || !out_energy) return Error{!rows ? rows.error() : out_energy.error()};
    if (*rows == 0) return Error{where + ": \"input_rows\" is 0"};
    t.input_rows = *rows, t.output_energy = *out_energy;
  }
  if (!j.contains("shape") || !j["shape"].is_array()) return Error{where + ": \"shape\" is not a list"};
  for (const json& d : j["shape"]) {
    if (!d.is_number_unsigned()) return Error{where + ": \"shape\" holds something other than sizes"};
    t.shape.push_back(d.get<size_t>());
  }
  const auto product = io::element_count(t.shape, size_t{1} << 40);
  if (!product) return Error{where + ": \"shape\" " + product.error()};
  if (*product != t.params || t.params == 0)
    return Error{where + ": \"params\" is not the product of \"shape\" (or is 0)"};
  if (j.contains("file")) {
    auto file = text_of(j, "file", where);
    if (!file) return Error{file.error()};
    t.file = *file;
  }
  if (!j.contains("stats") || !j["stats"].is_object()) return Error{where + ": no \"stats\" object"};
  const json& s = j["stats"];
  if (auto keys = known_keys(s, {"amax", "rms", "amax_over_rms", "kurtosis", "channel_amax_spread", "nonfinite"},
                             where + " stats");
      !keys)
    return Error{keys.error()};
  auto nonfinite = count_of(s, "nonfinite", where + " stats");
  if (!nonfinite) return Error{nonfinite.error()};
  if (*nonfinite > t.params) return Error{where + " stats: \"nonfinite\" is more than \"params\""};
  t.stats.nonfinite = *nonfinite;
  double* stat_fields[] = {&t.stats.amax, &t.stats.rms, &t.stats.amax_over_rms, &t.stats.kurtosis,
                           &t.stats.channel_spread};
  const char* stat_keys[] = {"amax", "rms", "amax_over_rms", "kurtosis", "channel_amax_spread"};
  for (size_t i = 0; i < 5; ++i) {
    // (null for a tensor with no finite element, and only there)
    if (!has_finite_elements(t)) {
      if (!s.contains(stat_keys[i]) || !s[stat_keys[i]].is_null())
        return Error{where + " stats: \"" + stat_keys[i] + "\" is not null, but no element is finite"};
      continue;
    }
    auto v = amount_of(s, stat_keys[i], where + " stats");  // (each a magnitude or a ratio of them)
    if (!v) return Error{v.error()};
    *stat_fields[i] = *v;
  }
  if (!j.contains("candidates") || !j["candidates"].is_array() || j["candidates"].size() != candidates.size())
    return Error{where + ": \"candidates\" does not list the scan's " + std::to_string(candidates.size())};
  const size_t cols = matrix_cols(t.shape), rows = t.params / cols;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const json& c = j["candidates"][i];
    const std::string cw = where + " candidates[" + std::to_string(i) + "]";
    if (!c.is_object()) return Error{cw + " is not an object"};
    if (auto keys = by_output ? known_keys(c,
                                           {"candidate", "bits_per_param", "sqnr_db", "normwise", "error_energy",
                                            "max_abs", "max_rel", "saturated", "flushed", "output"},
                                           cw)
                              : known_keys(c,
                                           {"candidate", "bits_per_param", "sqnr_db", "normwise", "error_energy",
                                            "max_abs", "max_rel", "saturated", "flushed"},
                                           cw);
        !keys)
      return Error{keys.error()};
    CandidateScore sc;
    auto cand = text_of(c, "candidate", cw);
    if (!cand) return Error{cand.error()};
    if (*cand != candidates[i].text()) return Error{cw + " is " + *cand + ", not the scan's " + candidates[i].text()};
    sc.candidate = *cand;
    // The bits follow from the shape and the candidate; the SQNR and the normwise error from the
    // energies (an SQNR of -Inf and one of +Inf are both null in JSON).
    sc.bits_per_param = bits_per_param(candidates[i], rows, cols);
    double* fields[] = {&sc.error_energy, &sc.max_abs, &sc.max_rel};
    const char* keys[] = {"error_energy", "max_abs", "max_rel"};
    const bool scored = has_finite_elements(t);
    for (size_t k = 0; k < 3 && scored; ++k) {
      auto v = amount_of(c, keys[k], cw);
      if (!v) return Error{v.error()};
      *fields[k] = *v;
    }
    auto bits = number_of(c, "bits_per_param", cw);
    if (!bits) return Error{bits.error()};
    if (std::fabs(*bits - sc.bits_per_param) > 1e-9 * sc.bits_per_param)
      return Error{cw + ": bits_per_param is not the " + std::to_string(sc.bits_per_param) + " its shape gives"};
    if (by_output) {
      if (!c.contains("output") || !c["output"].is_object()) return Error{cw + ": no \"output\" object"};
      if (auto keys = known_keys(c["output"], {"sqnr_db", "normwise", "error_energy"}, cw + " output"); !keys)
        return Error{keys.error()};
      if (scored) {
        auto e = amount_of(c["output"], "error_energy", cw + " output");
        if (!e) return Error{e.error()};
        sc.output.error_energy = *e;
      }
    }
    finish_score(sc, t.energy, t.output_energy);
    if (!scored) {
      if (auto none = unscored_figures(c, by_output, cw); !none) return Error{none.error()};
    } else {
      for (const auto& [key, value] : {std::pair{"sqnr_db", sc.sqnr_db}, std::pair{"normwise", sc.normwise}})
        if (auto same = agrees(c, key, value, cw); !same) return Error{same.error()};
      if (by_output)
        for (const auto& [key, value] :
             {std::pair{"sqnr_db", sc.output.sqnr_db}, std::pair{"normwise", sc.output.normwise}})
          if (auto same = agrees(c["output"], key, value, cw + " output"); !same) return Error{same.error()};
    }
    auto sat = count_of(c, "saturated", cw);
    auto fl = count_of(c, "flushed", cw);
    if (!sat || !fl) return Error{!sat ? sat.error() : fl.error()};
    if (*sat > t.params || *fl > t.params)
      return Error{cw + ": \"" + (*sat > t.params ? "saturated" : "flushed") + "\" is more than \"params\""};
    sc.saturated = *sat, sc.flushed = *fl;
    t.scores.push_back(sc);
  }
  return t;
}

std::string csv_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char s[32];
  std::snprintf(s, sizeof s, "%.9g", v);
  return s;
}

// "by the weights alone", "by the outputs of the inputs in FILE [in FORMAT]".
std::string scored_text(const ScanResult& r) {
  if (!by_output(r)) return "by the weights alone";
  return "by the layers' outputs on " + r.activations +
         (r.activation_format.empty() ? "" : " with the inputs in " + r.activation_format);
}

std::string shape_field(const std::vector<size_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s.append(i ? "x" : "").append(std::to_string(shape[i]));
  return s;
}

}  // namespace

nlohmann::json scan_to_json(const ScanResult& r, const std::vector<PlanPoint>& frontier,
                            const std::optional<PlanReport>& plan) {
  json j{{"checkpoint", r.checkpoint}, {"candidates", r.candidates},
         {"rounding", r.rounding},     {"bytes", r.bytes},
         {"ran_on", r.ran_on},         {"scored_by", by_output(r) ? "layer outputs" : "weights"}};
  if (!r.backend_note.empty()) j["backend_note"] = r.backend_note;
  if (by_output(r))
    j["activations"] = {{"file", r.activations},
                        {"format", r.activation_format.empty() ? json(nullptr) : json(r.activation_format)}};
  json tensors = json::array();
  for (const TensorScan& t : r.tensors) tensors.push_back(tensor_json(t, by_output(r)));
  j["tensors"] = std::move(tensors);
  json skipped = json::array();
  for (const SkippedTensor& s : r.skipped) skipped.push_back({{"name", s.name}, {"reason", s.reason}});
  j["skipped"] = std::move(skipped);
  json points = json::array();
  for (const PlanPoint& p : frontier)
    points.push_back({{"bits_per_param", number(p.bits_per_param)},
                      {"error_energy", number(p.error)},
                      {"sqnr_db", number(total_sqnr_db(r, p.error))}});
  j["frontier"] = std::move(points);
  if (plan) {
    json choices = json::object();
    for (size_t i = 0; i < r.tensors.size(); ++i) {
      const CandidateScore& c = r.tensors[i].scores[plan->plan.choice[i]];
      const bool scored = has_finite_elements(r.tensors[i]);
      choices[r.tensors[i].name] = {{"candidate", c.candidate},
                                    {"bits_per_param", number(c.bits_per_param)},
                                    {"sqnr_db", scored ? number(scored_sqnr_db(r, c)) : json(nullptr)},
                                    {"error_energy", scored ? number(scored_error(r, c)) : json(nullptr)}};
    }
    j["plan"] = {{"budget_bits_per_param", plan->budget},
                 {"bits_per_param", number(plan->plan.point.bits_per_param)},
                 {"error_energy", number(plan->plan.point.error)},
                 {"sqnr_db", number(total_sqnr_db(r, plan->plan.point.error))},
                 {"optimal", plan->plan.optimal},
                 {"least_possible_error_energy", number(plan->plan.least_possible)},
                 {"pinned", plan->pins},
                 {"tensors", std::move(choices)}};
    if (plan->by_weights_alone)
      j["plan"]["by_weights_alone"] = {{"bits_per_param", number(plan->by_weights_alone->bits_per_param)},
                                       {"error_energy", number(plan->by_weights_alone->error)},
                                       {"sqnr_db", number(total_sqnr_db(r, plan->by_weights_alone->error))}};
  }
  return j;
}

namespace {

// A rounding as the scan writes it: a rounding's name, or "stochastic, seed N" (N a count).
bool rounding_as_written(const std::string& text) {
  constexpr std::string_view kSeeded = "stochastic, seed ";
  if (text.starts_with(kSeeded)) {
    const std::string_view seed = std::string_view(text).substr(kSeeded.size());
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), v);
    return !seed.empty() && ec == std::errc{} && end == seed.data() + seed.size();
  }
  Rounding r{};
  return parse_rounding(text.c_str(), &r) && r != Rounding::Stochastic;  // (a stochastic one names its seed)
}

}  // namespace

Expected<ScanResult> scan_from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object()) return Error{what + " is not a scan's result (not a JSON object)"};
  // (Named as another command's result, not by its first missing key.)
  if (!j.contains("checkpoint") && !j.contains("tensors"))
    return Error{what +
                 " is not a scan's result (no \"checkpoint\" or \"tensors\"): merge the folders scan --out wrote"};
  if (auto keys = known_keys(j,
                             {"checkpoint", "candidates", "rounding", "bytes", "ran_on", "scored_by", "backend_note",
                              "activations", "tensors", "skipped", "frontier", "plan"},
                             what);
      !keys)
    return Error{keys.error()};
  ScanResult r;
  auto checkpoint = text_of(j, "checkpoint", what);
  auto rounding = text_of(j, "rounding", what);
  auto ran_on = text_of(j, "ran_on", what);
  if (!checkpoint || !rounding || !ran_on)
    return Error{!checkpoint ? checkpoint.error() : !rounding ? rounding.error() : ran_on.error()};
  r.checkpoint = *checkpoint, r.rounding = *rounding, r.ran_on = *ran_on;
  if (r.checkpoint.empty()) return Error{what + ": \"checkpoint\" is empty"};
  if (r.ran_on.empty()) return Error{what + ": \"ran_on\" is empty"};
  if (!rounding_as_written(r.rounding))
    return Error{what + ": \"rounding\" is " + printable(r.rounding) + ", not one of " + rounding_names() +
                 " (stochastic as \"stochastic, seed N\")"};
  if (!j.contains("bytes") || !j["bytes"].is_number_unsigned()) return Error{what + ": \"bytes\" is not a count"};
  r.bytes = j["bytes"].get<uint64_t>();
  if (j.contains("backend_note")) {
    auto note = text_of(j, "backend_note", what);
    if (!note) return Error{note.error()};
    r.backend_note = *note;
  }
  if (!j.contains("candidates") || !j["candidates"].is_array() || j["candidates"].empty())
    return Error{what + ": \"candidates\" is not a list of candidates"};
  std::string list;
  for (const json& c : j["candidates"]) {
    if (!c.is_string()) return Error{what + ": \"candidates\" holds something other than names"};
    list.append(list.empty() ? "" : ",").append(c.get<std::string>());
  }
  auto candidates = parse_candidates(list);  // each one a candidate, none twice
  if (!candidates) return Error{what + ": " + candidates.error()};
  for (const Candidate& c : *candidates) r.candidates.push_back(c.text());
  auto scored_by = text_of(j, "scored_by", what);
  if (!scored_by) return Error{scored_by.error()};
  if (*scored_by != "weights" && *scored_by != "layer outputs")
    return Error{what + ": \"scored_by\" is neither \"weights\" nor \"layer outputs\""};
  if ((*scored_by == "layer outputs") != j.contains("activations"))
    return Error{what + ": \"scored_by\" is \"" + *scored_by + "\" but the result " +
                 (j.contains("activations") ? "names" : "does not name") + " activations"};
  if (j.contains("activations")) {
    const json& a = j["activations"];
    if (!a.is_object()) return Error{what + ": \"activations\" is not an object"};
    for (auto it = a.begin(); it != a.end(); ++it)
      if (it.key() != "file" && it.key() != "format")
        return Error{what + ": the activations' unknown key \"" + printable(it.key()) + "\""};
    auto file = text_of(a, "file", what + " activations");
    if (!file) return Error{file.error()};
    if (file->empty()) return Error{what + ": the activations' \"file\" is empty"};
    r.activations = *file;
    if (!a.contains("format") || !(a["format"].is_null() || a["format"].is_string()))
      return Error{what + ": the activations' \"format\" is neither a candidate nor null"};
    if (a["format"].is_string()) {
      auto format = parse_candidate(a["format"].get<std::string>());
      if (!format) return Error{what + ": the activations' format: " + format.error()};
      r.activation_format = format->text();
    }
  }
  if (!j.contains("tensors") || !j["tensors"].is_array() || j["tensors"].empty())
    return Error{what + ": \"tensors\" is not a list of scanned tensors"};
  for (size_t i = 0; i < j["tensors"].size(); ++i) {
    auto t = tensor_from_json(j["tensors"][i], *candidates, i, by_output(r), what);
    if (!t) return Error{t.error()};
    r.tensors.push_back(std::move(t).value());
  }
  // The bytes are the scanned tensors' (a part's figure the merge adds up).
  uint64_t bytes = 0;
  for (const TensorScan& t : r.tensors) bytes += uint64_t(t.params) * uint64_t(io::safetensors_dtype(t.stored)->bytes);
  if (bytes != r.bytes)
    return Error{what + ": \"bytes\" is " + std::to_string(r.bytes) + ", the tensors' shapes and dtypes give " +
                 std::to_string(bytes)};
  // Each tensor names the file it was read from (a shard's, or the single file's), or none does.
  const auto with_file =
      std::count_if(j["tensors"].begin(), j["tensors"].end(), [](const json& t) { return t.contains("file"); });
  if (with_file != 0 && size_t(with_file) != r.tensors.size())
    return Error{what + ": some tensors name their shard (\"file\") and some do not"};
  // The frontier and the plan are drawn again from the tensors (a merge plans the whole); what the
  // part holds of them is still the writer's.
  if (!j.contains("frontier") || !j["frontier"].is_array()) return Error{what + ": \"frontier\" is not a list"};
  for (const json& p : j["frontier"]) {
    const std::string fw = what + " frontier";
    if (!p.is_object()) return Error{fw + " holds something other than objects"};
    if (auto keys = known_keys(p, {"bits_per_param", "error_energy", "sqnr_db"}, fw); !keys) return Error{keys.error()};
    for (const char* key : {"bits_per_param", "error_energy", "sqnr_db"})
      if (auto v = number_of(p, key, fw); !v) return Error{v.error()};
  }
  if (j.contains("plan")) {
    const json& p = j["plan"];
    const std::string pw = what + " plan";
    if (!p.is_object()) return Error{pw + " is not an object"};
    if (auto keys = known_keys(p,
                               {"budget_bits_per_param", "bits_per_param", "error_energy", "sqnr_db", "optimal",
                                "least_possible_error_energy", "pinned", "tensors", "by_weights_alone"},
                               pw);
        !keys)
      return Error{keys.error()};
    for (const char* key : {"budget_bits_per_param", "bits_per_param", "error_energy", "sqnr_db"})
      if (auto v = number_of(p, key, pw); !v) return Error{v.error()};
    bool each = p.contains("tensors") && p["tensors"].is_object() && p["tensors"].size() == r.tensors.size();
    for (size_t i = 0; i < r.tensors.size() && each; ++i) each = p["tensors"].contains(r.tensors[i].name);
    if (!each) return Error{pw + ": \"tensors\" does not choose for each scanned tensor"};
    if (!p.contains("pinned") || !p["pinned"].is_array()) return Error{pw + ": \"pinned\" is not a list"};
  }
  if (!j.contains("skipped")) return Error{what + ": no \"skipped\" list"};
  {
    if (!j["skipped"].is_array()) return Error{what + ": \"skipped\" is not a list"};
    for (const json& s : j["skipped"]) {
      if (!s.is_object()) return Error{what + ": \"skipped\" holds something other than objects"};
      if (auto keys = known_keys(s, {"name", "reason"}, what + " skipped"); !keys) return Error{keys.error()};
      auto name = text_of(s, "name", what + " skipped");
      auto reason = text_of(s, "reason", what + " skipped");
      if (!name || !reason) return Error{!name ? name.error() : reason.error()};
      r.skipped.push_back({*name, *reason});
    }
  }
  return r;
}

Expected<ScanResult> merge_scans(std::vector<ScanResult> parts, const std::vector<std::string>& names) {
  const auto named = [&](size_t p) { return p < names.size() ? names[p] : "part " + std::to_string(p + 1); };
  if (parts.empty()) return Error{"nothing to merge"};
  ScanResult out;
  out.checkpoint = parts.front().checkpoint;
  out.candidates = parts.front().candidates;
  out.ran_on = parts.front().ran_on;
  out.rounding = parts.front().rounding;
  out.activations = parts.front().activations;
  out.activation_format = parts.front().activation_format;
  std::set<std::string> scanned;
  std::set<std::string> ran_on;
  for (size_t p = 0; p < parts.size(); ++p) {
    ScanResult& part = parts[p];
    if (part.candidates != out.candidates) return Error{named(p) + " scanned other candidates than " + named(0)};
    if (part.checkpoint != out.checkpoint)
      return Error{named(p) + " scanned " + part.checkpoint + ", " + named(0) + " " + out.checkpoint +
                   " (scan every part with the same PATH)"};
    if (part.activations != out.activations || part.activation_format != out.activation_format)
      return Error{named(p) + " was scored " + scored_text(part) + ", " + named(0) + " " + scored_text(out)};
    if (part.rounding != out.rounding)
      return Error{named(p) + " rounded " + part.rounding + ", " + named(0) + " " + out.rounding};
    if (!part.backend_note.empty() && out.backend_note.find(part.backend_note) == std::string::npos)
      out.backend_note.append(out.backend_note.empty() ? "" : "; ").append(part.backend_note);
    ran_on.insert(part.ran_on);
    out.bytes += part.bytes;
    for (TensorScan& t : part.tensors) {
      if (!scanned.insert(t.name).second)
        return Error{"tensor '" + printable(t.name) + "' is in more than one part (" + named(p) + ")"};
      out.tensors.push_back(std::move(t));
    }
  }
  // A tensor one part skipped (it did not match that part's --tensors) and another scanned is scanned.
  std::set<std::string> skipped;
  for (const ScanResult& part : parts)
    for (const SkippedTensor& s : part.skipped)
      if (!scanned.count(s.name) && skipped.insert(s.name).second) out.skipped.push_back(s);
  if (ran_on.size() > 1) {
    out.ran_on.clear();
    for (const std::string& where : ran_on) out.ran_on.append(out.ran_on.empty() ? "" : ", ").append(where);
  }
  return out;
}

std::string scan_csv(const ScanResult& r) {
  std::string s =
      "tensor,layer,role,shape,params,stored,amax,rms,amax_over_rms,kurtosis,channel_amax_spread,candidate,"
      "bits_per_param,sqnr_db,normwise,error_energy,max_abs,max_rel,saturated,flushed";
  s.append(by_output(r) ? ",input_rows,output_sqnr_db,output_normwise,output_error_energy\n" : "\n");
  for (const TensorScan& t : r.tensors)
    for (const CandidateScore& c : t.scores) {
      s.append(csv_field(t.name)).append(",");
      s.append(t.place.layer ? std::to_string(*t.place.layer) : "").append(",");
      s.append(csv_field(t.place.role)).append(",").append(shape_field(t.shape)).append(",");
      s.append(std::to_string(t.params)).append(",").append(t.stored).append(",");
      // (A tensor with no finite element has no statistics and no figures: empty fields.)
      const bool scored = has_finite_elements(t);
      auto field = [&](double v) { return scored ? csv_number(v) : std::string(); };
      for (double v : {t.stats.amax, t.stats.rms, t.stats.amax_over_rms, t.stats.kurtosis, t.stats.channel_spread})
        s.append(field(v)).append(",");
      s.append(c.candidate).append(",").append(csv_number(c.bits_per_param)).append(",");
      for (double v : {c.sqnr_db, c.normwise, c.error_energy, c.max_abs, c.max_rel}) s.append(field(v)).append(",");
      s.append(std::to_string(c.saturated)).append(",").append(std::to_string(c.flushed));
      if (by_output(r)) {
        s.append(",").append(std::to_string(t.input_rows));
        for (double v : {c.output.sqnr_db, c.output.normwise, c.output.error_energy}) s.append(",").append(field(v));
      }
      s.append("\n");
    }
  return s;
}

std::string plan_csv(const ScanResult& r, const PlanReport& p) {
  std::string s = by_output(r) ? "tensor,params,candidate,bits_per_param,output_sqnr_db,output_error_energy\n"
                               : "tensor,params,candidate,bits_per_param,sqnr_db,error_energy\n";
  for (size_t i = 0; i < r.tensors.size(); ++i) {
    const CandidateScore& c = r.tensors[i].scores[p.plan.choice[i]];
    s.append(csv_field(r.tensors[i].name)).append(",").append(std::to_string(r.tensors[i].params)).append(",");
    s.append(c.candidate).append(",").append(csv_number(c.bits_per_param)).append(",");
    if (has_finite_elements(r.tensors[i]))
      s.append(csv_number(scored_sqnr_db(r, c))).append(",").append(csv_number(scored_error(r, c)));
    else s.append(",");  // (no finite element: no figures)
    s.append("\n");
  }
  return s;
}

std::string frontier_csv(const ScanResult& r, const std::vector<PlanPoint>& frontier) {
  std::string s =
      by_output(r) ? "bits_per_param,output_error_energy,output_sqnr_db\n" : "bits_per_param,error_energy,sqnr_db\n";
  for (const PlanPoint& p : frontier)
    s.append(csv_number(p.bits_per_param))
        .append(",")
        .append(csv_number(p.error))
        .append(",")
        .append(csv_number(total_sqnr_db(r, p.error)))
        .append("\n");
  return s;
}

namespace {

// The plan's items, each candidate weighed by its output error (`outputs`) or the weight's own.
Expected<std::vector<PlanItem>> items_weighing(const ScanResult& r, const std::vector<std::string>& pins,
                                               bool outputs) {
  std::vector<PlanItem> items(r.tensors.size());
  for (size_t i = 0; i < r.tensors.size(); ++i) {
    items[i].params = double(r.tensors[i].params);
    for (const CandidateScore& c : r.tensors[i].scores) {
      items[i].bits.push_back(c.bits_per_param);
      items[i].error_energy.push_back(outputs ? c.output.error_energy : c.error_energy);
    }
  }
  std::vector<std::string> names;
  for (const TensorScan& t : r.tensors) names.push_back(t.name);
  auto resolved = resolve_pins(names, r.candidates, pins);
  if (!resolved) return Error{resolved.error()};
  for (const auto& [t, c] : *resolved) {
    if (!std::isfinite(items[t].error_energy[c]))
      return Error{"--pin: " + r.candidates[c] + " turns values of '" + printable(names[t]) +
                   "' into Inf or NaN (its error is infinite): a plan cannot keep it"};
    items[t].pinned = c;
  }
  return items;
}

}  // namespace

Expected<std::vector<PlanItem>> plan_items(const ScanResult& r, const std::vector<std::string>& pins) {
  if (!std::any_of(r.tensors.begin(), r.tensors.end(), has_finite_elements)) return Error{kNothingToPlan};
  return items_weighing(r, pins, by_output(r));
}

Expected<PlanReport> plan_report(const ScanResult& r, double budget, const std::vector<std::string>& pins) {
  auto items = plan_items(r, pins);
  if (!items) return Error{items.error()};
  auto plan = plan_within(*items, budget);
  if (!plan) return Error{plan.error()};
  PlanReport report{budget, *plan, pins, std::nullopt};
  if (!by_output(r)) return report;
  // The same scan weighed by the weights' own errors.
  // (A pin or budget the outputs' plan takes, the weights' takes too: a copy with an Inf or NaN
  // has an infinite error on the weights and on the outputs alike. Should that change, say so.)
  auto weight_items = items_weighing(r, pins, false);
  if (!weight_items) return Error{"the plan by the weights alone: " + weight_items.error()};
  auto weight_plan = plan_within(*weight_items, budget);
  if (!weight_plan) return Error{"the plan by the weights alone: " + weight_plan.error()};
  PlanPoint on_outputs{weight_plan->point.bits_per_param, 0};
  for (size_t i = 0; i < r.tensors.size(); ++i)
    on_outputs.error += r.tensors[i].scores[weight_plan->choice[i]].output.error_energy;
  report.by_weights_alone = on_outputs;
  return report;
}

Expected<std::vector<std::pair<size_t, size_t>>> resolve_pins(const std::vector<std::string>& names,
                                                              const std::vector<std::string>& candidates,
                                                              const std::vector<std::string>& pins) {
  std::vector<std::pair<size_t, size_t>> out;
  for (const std::string& pin : pins) {
    const size_t eq = pin.rfind('=');
    if (eq == std::string::npos || eq == 0) return Error{"--pin '" + printable(pin) + "' is not NAME=CANDIDATE"};
    const std::string name = pin.substr(0, eq), cand = pin.substr(eq + 1);
    const size_t t = static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
    if (t == names.size()) return Error{"--pin: no scanned tensor '" + printable(name) + "'"};
    auto parsed = parse_candidate(cand);
    if (!parsed) return Error{"--pin: " + parsed.error()};
    const size_t c =
        static_cast<size_t>(std::find(candidates.begin(), candidates.end(), parsed->text()) - candidates.begin());
    if (c == candidates.size()) return Error{"--pin: " + printable(cand) + " is not one of the scan's candidates"};
    if (std::any_of(out.begin(), out.end(), [&](const auto& p) { return p.first == t; }))
      return Error{"--pin: tensor '" + printable(name) + "' is pinned twice"};
    out.emplace_back(t, c);
  }
  return out;
}

double cheapest_bits(const std::vector<std::vector<size_t>>& shapes, const std::vector<Candidate>& candidates) {
  double bits = 0, params = 0;
  for (const auto& shape : shapes) {
    size_t n = 1;
    for (size_t d : shape) n *= d;
    const size_t cols = matrix_cols(shape);
    double least = INFINITY;
    for (const Candidate& c : candidates) least = std::min(least, bits_per_param(c, n / cols, cols));
    bits += least * double(n), params += double(n);
  }
  return params > 0 ? bits / params : 0;
}

double total_sqnr_db(const ScanResult& r, double error) {
  double energy = 0;
  for (const TensorScan& t : r.tensors) energy += scored_energy(r, t);
  return sqnr_db(energy, error);
}

std::string dominant_energy_text(const ScanResult& r) {
  double total = 0, most = 0;
  const TensorScan* top = nullptr;
  for (const TensorScan& t : r.tensors) {
    const double e = scored_energy(r, t);
    total += e;
    if (e > most) most = e, top = &t;
  }
  if (r.tensors.size() < 2 || !(most > 0.5 * total)) return "";  // (one tensor: the pooled SQNR is its own)
  char share[16];  // (floored, never "100%" for a share short of it; the 1e-9 keeps 0.57 at 57)
  std::snprintf(share, sizeof share, "%.0f%%", std::floor(100 * most / total + 1e-9));
  return printable(top->name) + " holds " + share + " of the " + (by_output(r) ? "outputs' energy" : "energy");
}

std::string plan_tensors_text(const ScanResult& r, const std::vector<size_t>& choice) {
  std::vector<std::pair<double, const TensorScan*>> scored;
  for (size_t i = 0; i < r.tensors.size() && i < choice.size(); ++i)
    if (has_finite_elements(r.tensors[i]))
      scored.emplace_back(scored_sqnr_db(r, r.tensors[i].scores[choice[i]]), &r.tensors[i]);
  if (scored.size() < 2) return "";
  // (NaN cannot come: an SQNR is +-Inf or a number. Ties keep the tensors' order.)
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return "the worst " + sqnr_db_text(scored.front().first) + " (" + printable(scored.front().second->name) +
         "); half at " + sqnr_db_text(scored[(scored.size() - 1) / 2].first) + " or less";
}

std::string nonfinite_text(const ScanResult& r) {
  std::vector<const TensorScan*> with;
  for (const TensorScan& t : r.tensors)
    if (t.stats.nonfinite > 0) with.push_back(&t);
  if (with.empty()) return "";
  std::string text = std::to_string(with.size()) + (with.size() == 1 ? " tensor holds" : " tensors hold") +
                     " Inf or NaN elements, left out of every figure: ";
  constexpr size_t kNamed = 3;
  for (size_t i = 0; i < with.size() && i < kNamed; ++i) {
    const TensorScan& t = *with[i];
    text.append(i ? ", " : "").append(printable(t.name)).append(" (");
    if (has_finite_elements(t)) text.append(std::to_string(t.stats.nonfinite) + " of " + std::to_string(t.params));
    else text.append("all " + std::to_string(t.params) + ": not scored");
    text.append(")");
  }
  if (with.size() > kNamed) text.append(" and ").append(std::to_string(with.size() - kNamed)).append(" more");
  return text;
}

std::string sqnr_db_text(double db) { return std::isinf(db) && db > 0 ? "exact" : sqnr_text(db) + " dB"; }

std::string sqnr_text(double db) {
  if (std::isinf(db)) return db > 0 ? "exact" : "-inf";
  char s[16];
  std::snprintf(s, sizeof s, "%.1f", db);
  return s;
}

}  // namespace pl::experiment
