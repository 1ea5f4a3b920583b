#include "core/experiment/scan/scan_spec.h"

#include <cmath>
#include <map>

#include "core/experiment/scan/layer_inputs.h"
#include "core/experiment/spec/json_reader.h"

namespace pl::experiment {

using nlohmann::json;

Expected<ScanSpec> scan_spec_from_json(const json& j) {
  if (!j.is_object()) return Error{"a scan is a JSON object"};
  if (auto st =
          json_detail::unknown_key(j, {"experiment", "checkpoint", "candidates", "budget", "pins", "tensors",
                                       "rounding", "seed", "activations", "activation_format", "backend", "comment"});
      !st)
    return Error{st.error()};
  ScanSpec s;
  json_detail::Reader r{j, {}};
  if (!j.contains("checkpoint")) return Error{"'checkpoint': a scan needs the checkpoint it scans"};
  r.string("checkpoint", &s.checkpoint) && r.string("candidates", &s.candidates) && r.string("tensors", &s.tensors) &&
      r.string("activations", &s.activations) && r.string("activation_format", &s.activation_format) &&
      r.cast_policy(&s.cast) && r.seed(&s.cast.seed) && r.backend(&s.backend);
  if (!r.error.empty()) return Error{r.error};
  if (s.checkpoint.empty()) return Error{"'checkpoint': must name a checkpoint"};
  if (j.contains("seed") && s.cast.rounding != Rounding::Stochastic)
    return Error{"'seed': seeds stochastic rounding's draws: give \"rounding\": \"stochastic\", or no seed"};
  for (const auto& [key, value] :
       {std::pair{"activations", &s.activations}, {"activation_format", &s.activation_format}})
    if (j.contains(key) && value->empty()) return Error{std::string("'") + key + "': must not be empty"};
  if (j.contains("budget")) {
    if (!j["budget"].is_number() || !(j["budget"].get<double>() > 0) || !std::isfinite(j["budget"].get<double>()))
      return Error{"'budget': must be a positive number of bits per parameter"};
    s.budget = j["budget"].get<double>();
  }
  if (j.contains("pins")) {
    if (!j["pins"].is_array()) return Error{"'pins': must be a list of \"NAME=CANDIDATE\""};
    for (const json& p : j["pins"]) {
      if (!p.is_string()) return Error{"'pins': must be a list of \"NAME=CANDIDATE\""};
      s.pins.push_back(p.get<std::string>());
    }
  }
  if (auto c = parse_candidates(s.candidates); !c) return Error{"'candidates': " + c.error()};
  if (!s.activation_format.empty()) {
    if (s.activations.empty()) return Error{"'activation_format': the inputs' format needs 'activations'"};
    if (auto f = parse_candidate(s.activation_format); !f) return Error{"'activation_format': " + f.error()};
  }
  return s;
}

json to_json(const ScanSpec& s) {
  json j{{"experiment", "scan"},
         {"checkpoint", s.checkpoint},
         {"candidates", s.candidates},
         {"rounding", rounding_name(s.cast.rounding)},
         {"backend", backend_choice_name(s.backend)}};
  if (s.cast.rounding == Rounding::Stochastic) j["seed"] = s.cast.seed;
  if (s.budget) j["budget"] = *s.budget;
  if (!s.pins.empty()) j["pins"] = s.pins;
  if (!s.tensors.empty()) j["tensors"] = s.tensors;
  if (!s.activations.empty()) j["activations"] = s.activations;
  if (!s.activation_format.empty()) j["activation_format"] = s.activation_format;
  return j;
}

Expected<PreparedScan> prepare_scan(const ScanSpec& s, const std::function<void(size_t, size_t)>& checked,
                                    const std::atomic<bool>* cancel) {
  PreparedScan p;
  ScanOptions& o = p.options;
  auto candidates = parse_candidates(s.candidates);
  if (!candidates) return Error{candidates.error()};
  o.candidates = std::move(candidates).value();
  o.cast = s.cast;
  o.tensors = s.tensors;
  o.backend = s.backend;
  if (!s.activation_format.empty()) {
    auto format = parse_candidate(s.activation_format);
    if (!format) return Error{"the activations' format: " + format.error()};
    o.activation_format = *format;
  }
  auto checkpoint = io::open_checkpoint(s.checkpoint);
  if (!checkpoint) return Error{checkpoint.error()};
  p.checkpoint = std::move(checkpoint).value();
  if (!s.activations.empty()) {
    auto activations = io::open_checkpoint(s.activations);
    if (!activations) return Error{"the activations: " + activations.error()};
    o.activations = std::move(activations).value();
  }
  auto chosen = chosen_tensors(p.checkpoint, o);
  if (!chosen) return Error{chosen.error()};
  // What the plan is asked for is checked before the work: the pins' names and candidates, and
  // a budget below what the cheapest candidates cost (the bits follow from the shapes alone).
  std::vector<std::string> names, texts;
  std::vector<std::vector<size_t>> shapes;
  for (const io::CheckpointTensor* t : *chosen) names.push_back(t->name), shapes.push_back(t->shape);
  for (const Candidate& c : o.candidates) texts.push_back(c.text());
  if (auto pins = resolve_pins(names, texts, s.pins); !pins) return Error{pins.error()};
  if (const double cheapest = cheapest_bits(shapes, o.candidates); s.budget && *s.budget < cheapest * (1 - 1e-12))
    return Error{budget_too_small(*s.budget, cheapest)};
  // Inputs with an Inf or a NaN are looked for here too, though the scan reads them again layer
  // by layer: they are the user's to fix, not a failure halfway through.
  if (o.activations) {
    std::map<std::string, const io::CheckpointTensor*> inputs;
    for (const io::CheckpointTensor& in : o.activations->tensors) inputs.emplace(in.name, &in);
    std::vector<const io::CheckpointTensor*> layer_inputs;
    for (const io::CheckpointTensor* t : *chosen)
      if (auto in = inputs.find(input_name(t->name).value_or("")); in != inputs.end())
        layer_inputs.push_back(in->second);
    for (size_t i = 0; i < layer_inputs.size(); ++i) {
      if (checked) checked(i, layer_inputs.size());
      if (cancel && cancel->load()) return Error{"cancelled"};
      if (auto read = read_layer_inputs(*o.activations, *layer_inputs[i], std::nullopt, o.cast); !read)
        return Error{read.error()};
    }
  }
  return p;
}

Expected<ScanPlans> plan_scan(const ScanResult& r, std::optional<double> budget, const std::vector<std::string>& pins) {
  ScanPlans out;
  // A scan of nothing but Inf and NaN has no frontier; asked for a plan, it says why there is none.
  if (!budget && !std::any_of(r.tensors.begin(), r.tensors.end(), has_finite_elements)) return out;
  auto items = plan_items(r, pins);
  if (!items) return Error{items.error()};
  out.frontier = plan_frontier(*items);
  if (budget) {
    auto plan = plan_report(r, *budget, pins);
    if (!plan) return Error{plan.error()};
    out.plan = std::move(plan).value();
  }
  return out;
}

Expected<ScanRun> run_scan_spec(const ScanSpec& s, const std::function<void(double)>& progress,
                                const std::atomic<bool>* cancel) {
  auto prepared = prepare_scan(s, {}, cancel);
  if (!prepared) return Error{prepared.error()};
  auto result = scan_checkpoint(
      prepared->checkpoint, prepared->options,
      [&](const ScanProgress& p) {
        if (progress) progress(p.bytes_total ? double(p.bytes_done) / double(p.bytes_total) : 0);
      },
      cancel);
  // Everything the spec could get wrong was refused above: what fails now is reading the files.
  if (!result) return Error{result.error(), result.error() != "cancelled"};
  auto plans = plan_scan(*result, s.budget, s.pins);
  if (!plans) return Error{plans.error()};
  return ScanRun{s, std::move(result).value(), std::move(plans).value()};
}

}  // namespace pl::experiment
