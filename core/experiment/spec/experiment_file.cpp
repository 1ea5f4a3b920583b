#include "core/experiment/spec/experiment_file.h"

#include "core/experiment/spec/matmul_json.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/experiment/spec/train_json.h"

namespace pl::experiment {

std::string experiment_kind(const nlohmann::json& j) {
  if (j.is_object() && j.contains("experiment") && j["experiment"].is_string())
    return j["experiment"].get<std::string>();
  return "linear";
}

Expected<ExperimentRun> run_experiment_file(const nlohmann::json& j, const std::function<void(double)>& progress,
                                            const std::atomic<bool>* cancel) {
  ExperimentRun run;
  run.kind = experiment_kind(j);
  if (run.kind == "dot" || run.kind == "sum") {
    auto c = dot_config_from_json(j);
    if (!c) return Error{c.error()};
    run.dot_rows = dot_sweep(*c, progress, cancel);
    if (cancel && cancel->load()) return Error{"cancelled"};
    run.setup = to_json(*c);
    run.result = sweep_result_json(*c, run.dot_rows);
    run.dot_config = *c;
    return run;
  }
  if (run.kind == "cast") {
    auto spec = cast_spec_from_json(j);
    if (!spec) return Error{spec.error()};
    auto r = run_cast(*spec, progress, cancel);
    if (!r) return Error{r.error()};
    run.setup = to_json(*spec);
    run.result = to_json(*r);
    run.cast = std::move(r).value();
    return run;
  }
  if (run.kind == "throughput") {
    auto c = throughput_config_from_json(j);
    if (!c) return Error{c.error()};
    auto r = run_throughput(*c, progress, cancel);
    if (!r) return Error{r.error()};
    run.setup = to_json(r->config);
    run.result = to_json(*r);
    run.throughput = std::move(r).value();
    return run;
  }
  if (run.kind == "train") {
    auto c = train_config_from_json(j);
    if (!c) return Error{c.error()};
    auto r = run_train(*c, progress, cancel);
    if (!r) return Error{r.error()};
    run.setup = to_json(*c);
    run.result = to_json(*r);
    run.train = std::move(r).value();
    return run;
  }
  if (run.kind == "mlp") {
    auto c = mlp_config_from_json(j);
    if (!c) return Error{c.error()};
    auto r = run_mlp(*c, progress, cancel);
    if (!r) return Error{r.error()};
    run.setup = to_json(*c);
    run.result = to_json(*r);
    run.mlp = std::move(r).value();
    return run;
  }
  auto spec = matmul_spec_from_json(j);
  if (!spec) return Error{spec.error()};
  auto r = run_spec(*spec, progress, cancel);
  if (!r) return Error{r.error()};
  run.setup = to_json(r->spec);
  run.result = r->raised() ? to_json(*r->framework) : to_json(*r->result);
  if (r->framework && !r->raised()) run.result["framework"] = to_json(*r->framework);
  run.matmul = std::move(r).value();
  return run;
}

}  // namespace pl::experiment
