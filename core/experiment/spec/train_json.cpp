#include "core/experiment/spec/train_json.h"

#include "core/experiment/spec/json_reader.h"

namespace pl::experiment {

using nlohmann::json;
using namespace json_detail;

Expected<TrainConfig> train_config_from_json(const json& j) {
  if (!j.is_object()) return Error{"an experiment is a JSON object"};
  if (auto st = unknown_key(
          j, {"experiment", "models", "features", "samples", "steps", "learning_rate", "noise", "seed", "comment"});
      !st)
    return Error{st.error()};
  TrainConfig c;
  Reader r{j, {}};
  std::string kind = "train";
  r.string("experiment", &kind);
  if (kind != "train") r.fail("experiment", "'" + kind + "' is not train");
  if (!j.contains("models")) {
    c.models = {*parse_train_model("float32"), *parse_train_model("bfloat16")};
  } else if (!j["models"].is_array() || j["models"].empty()) {
    r.fail("models", "must be a list of models (\"bfloat16\", \"bfloat16:float32\")");
  } else {
    for (const auto& v : j["models"]) {
      if (!v.is_string()) {
        r.fail("models", "must be a list of models (\"bfloat16\", \"bfloat16:float32\")");
        break;
      }
      auto m = parse_train_model(v.get<std::string>());
      if (!m) {
        r.fail("models", m.error());
        break;
      }
      c.models.push_back(*m);
    }
  }
  r.size("features", &c.features) && r.size("samples", &c.samples) && r.size("steps", &c.steps);
  for (const auto& [key, out] : {std::pair{"learning_rate", &c.learning_rate}, std::pair{"noise", &c.noise}})
    if (j.contains(key)) {
      if (!j[key].is_number()) r.fail(key, "must be a number");
      else *out = j[key].get<double>();
    }
  r.seed(&c.seed);
  if (!r.error.empty()) return Error{r.error};
  if (auto st = check(c); !st) return Error{st.error()};
  return c;
}

json to_json(const TrainConfig& c) {
  json models = json::array();
  for (const auto& m : c.models) models.push_back(train_model_name(m));
  return {{"experiment", "train"}, {"models", models}, {"features", c.features},
          {"samples", c.samples},  {"steps", c.steps}, {"learning_rate", c.learning_rate},
          {"noise", c.noise},      {"seed", c.seed}};
}

json to_json(const TrainResult& r) {
  json rows = json::array();
  for (const auto& row : r.rows) {
    json loss = json::array();
    for (double v : row.loss) loss.push_back(number(v));
    rows.push_back({{"model", train_model_name(row.model)},
                    {"final_loss", number(row.final_loss)},
                    {"final_over_best", number(row.final_loss / r.best_loss)},
                    {"stalled_at", row.stalled_at ? json(*row.stalled_at) : json(nullptr)},
                    {"diverged_at", diverged_at(row) ? json(*diverged_at(row)) : json(nullptr)},
                    {"lost_updates", row.lost_updates},
                    {"loss", loss}});
  }
  return {{"setup", to_json(r.config)}, {"best_loss", number(r.best_loss)}, {"rows", rows}};
}

}  // namespace pl::experiment
