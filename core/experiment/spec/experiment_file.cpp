#include "core/experiment/spec/experiment_file.h"

#include "core/io/load.h"

#include "core/experiment/spec/matmul_json.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/experiment/spec/train_json.h"

namespace pl::experiment {
namespace {

using Progress = std::function<void(double)>;

Expected<ExperimentRun> run_sweep(const nlohmann::json& j, const Progress& progress, const std::atomic<bool>* cancel) {
  auto c = dot_config_from_json(j);
  if (!c) return Error{c.error()};
  ExperimentRun run;
  run.dot_rows = dot_sweep(*c, progress, cancel);
  if (cancel && cancel->load()) return Error{"cancelled"};
  run.setup = to_json(*c);
  run.result = sweep_result_json(*c, run.dot_rows);
  run.dot_config = *c;
  return run;
}

// A kind whose setup is its config as read: read, run, and keep the result in `member`.
template <typename Read, typename Run, typename Member>
Expected<ExperimentRun> read_and_run(const nlohmann::json& j, const Progress& progress, const std::atomic<bool>* cancel,
                                     Read read, Run run_it, Member member) {
  auto c = read(j);
  if (!c) return Error{c.error()};
  auto r = run_it(*c, progress, cancel);
  if (!r) return Error{r.error(), r.environment_failure()};
  ExperimentRun run;
  run.setup = to_json(*c);
  run.result = to_json(*r);
  run.*member = std::move(r).value();
  return run;
}

Expected<ExperimentRun> run_roundtrip_file(const nlohmann::json& j, const Progress& progress,
                                           const std::atomic<bool>* cancel) {
  return read_and_run(
      j, progress, cancel, roundtrip_spec_from_json,
      [](const RoundtripSpec& spec, const Progress& p, const std::atomic<bool>* c) {
        return run_roundtrip(spec, p, c);  // (the overload that reads the spec's file)
      },
      &ExperimentRun::roundtrip);
}

Expected<ExperimentRun> run_train_file(const nlohmann::json& j, const Progress& progress,
                                       const std::atomic<bool>* cancel) {
  return read_and_run(j, progress, cancel, train_config_from_json, run_train, &ExperimentRun::train);
}

// Its result is what `scan --out` writes as result.json.
Expected<ExperimentRun> run_scan_file(const nlohmann::json& j, const Progress& progress,
                                      const std::atomic<bool>* cancel) {
  auto spec = scan_spec_from_json(j);
  if (!spec) return Error{spec.error()};
  auto r = run_scan_spec(*spec, progress, cancel);
  if (!r) return Error{r.error(), r.environment_failure()};
  ExperimentRun run;
  run.setup = to_json(r->spec);
  run.result = scan_to_json(r->result, r->plans.frontier, r->plans.plan);
  run.scan = std::move(r).value();
  return run;
}

Expected<ExperimentRun> run_mlp_file(const nlohmann::json& j, const Progress& progress,
                                     const std::atomic<bool>* cancel) {
  return read_and_run(j, progress, cancel, mlp_config_from_json, run_mlp, &ExperimentRun::mlp);
}

// Its setup is the config as run (the datasheet and sizes it resolved).
Expected<ExperimentRun> run_throughput_file(const nlohmann::json& j, const Progress& progress,
                                            const std::atomic<bool>* cancel) {
  auto c = throughput_config_from_json(j);
  if (!c) return Error{c.error()};
  auto r = run_throughput(*c, progress, cancel);
  if (!r) return Error{r.error()};
  ExperimentRun run;
  run.setup = to_json(r->config);
  run.result = to_json(*r);
  run.throughput = std::move(r).value();
  return run;
}

Expected<ExperimentRun> run_product(const nlohmann::json& j, const Progress& progress,
                                    const std::atomic<bool>* cancel) {
  auto spec = matmul_spec_from_json(j);
  if (!spec) return Error{spec.error()};
  auto r = run_spec(*spec, progress, cancel);
  if (!r) return Error{r.error(), r.environment_failure()};
  ExperimentRun run;
  run.setup = to_json(r->spec);
  run.result = r->raised() ? to_json(*r->framework) : to_json(*r->result, r->spec.files);
  if (r->framework && !r->raised()) run.result["framework"] = to_json(*r->framework);
  run.matmul = std::move(r).value();
  return run;
}

// A kind's check: its reader's answer, the config dropped.
template <auto Read>
Status reads(const nlohmann::json& j) {
  if (auto c = Read(j); !c) return Error{c.error()};
  return {};
}

constexpr ExperimentKind kKinds[] = {
    {"linear", "matmul --linear", "y = x W^T + b in any dtypes, its error split by where it came from", true,
     run_product, reads<matmul_spec_from_json>},
    {"matmul", "matmul", "C = A B in any dtypes, its error split by where it came from", true, run_product,
     reads<matmul_spec_from_json>},
    {"mlp", "mlp", "error through the layers of a small MLP against the float64 network", true, run_mlp_file,
     reads<mlp_config_from_json>},
    {"dot", "dot", "dot-product error versus length K for accumulation models, with their bounds", true, run_sweep,
     reads<dot_config_from_json>},
    {"sum", "dot --sum", "sum error versus length K for accumulation models, with their bounds", true, run_sweep,
     reads<dot_config_from_json>},
    {"roundtrip", "roundtrip", "an array through a dtype and scaling recipe and back", true, run_roundtrip_file,
     reads<roundtrip_spec_from_json>},
    {"throughput", "bench --op throughput", "matrix-product rate per dtype on a backend", true, run_throughput_file,
     reads<throughput_config_from_json>},
    {"train", "train", "a linear regression trained in each format's own arithmetic", false, run_train_file,
     reads<train_config_from_json>},
    {"scan", "scan", "every weight of a checkpoint under every candidate format, and a mixed-precision plan", true,
     run_scan_file, reads<scan_spec_from_json>},
};

constexpr KindAlias kAliases[] = {{"cast", "roundtrip"}};

// A dot or sum sweep's config, as its reader reads it; nullopt for the other kinds and a file
// the reader refuses.
std::optional<DotSweepConfig> sweep_config(const nlohmann::json& j) {
  const std::string kind = experiment_kind(j);
  if (kind != "dot" && kind != "sum") return std::nullopt;
  auto c = dot_config_from_json(j);
  if (!c) return std::nullopt;
  return std::move(c).value();
}

}  // namespace

std::span<const KindAlias> experiment_kind_aliases() { return kAliases; }

std::string_view canonical_kind_name(std::string_view kind) {
  for (const KindAlias& a : kAliases)
    if (a.old_name == kind) return a.name;
  return kind;
}

std::string experiment_kind(const nlohmann::json& j) {
  if (j.is_object() && j.contains("experiment") && j["experiment"].is_string())
    return std::string(canonical_kind_name(j["experiment"].get<std::string>()));
  return "linear";
}

std::string kind_alias_note(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("experiment") || !j["experiment"].is_string()) return "";
  const std::string old = j["experiment"].get<std::string>();
  const std::string_view now = canonical_kind_name(old);
  if (now == old) return "";
  return "'" + old + "' is the old name of the experiment '" + std::string(now) + "'; it is read as '" +
         std::string(now) + "', the name files are written with";
}

std::span<const ExperimentKind> experiment_kinds() { return kKinds; }

const ExperimentKind* find_experiment_kind(std::string_view name) {
  for (const ExperimentKind& k : kKinds)
    if (k.name == name) return &k;
  return nullptr;
}

std::string experiment_kind_names(std::string_view separator) {
  std::string out;
  for (const ExperimentKind& k : kKinds) out.append(out.empty() ? "" : separator).append(k.name);
  return out;
}

namespace {

// The kind the file names, or why it names none.
Expected<const ExperimentKind*> kind_of(const nlohmann::json& j) {
  if (!j.is_object()) return Error{"an experiment is a JSON object"};
  if (j.contains("experiment") && !j["experiment"].is_string())
    return Error{"'experiment': must be a string, one of " + experiment_kind_names()};
  const std::string name = experiment_kind(j);
  const ExperimentKind* kind = find_experiment_kind(name);
  if (!kind) return Error{"'experiment': unknown kind '" + name + "' (" + experiment_kind_names() + ")"};
  return kind;
}

}  // namespace

Expected<ExperimentRun> run_experiment_file(const nlohmann::json& j, const std::function<void(double)>& progress,
                                            const std::atomic<bool>* cancel) {
  const auto kind = kind_of(j);
  if (!kind) return Error{kind.error()};
  auto run = (*kind)->run(j, progress, cancel);
  if (!run) return run;
  ExperimentRun out = std::move(run).value();
  out.kind = std::string((*kind)->name);
  return out;
}

Status check_experiment_file(const nlohmann::json& j) {
  const auto kind = kind_of(j);
  if (!kind) return Error{kind.error()};
  return (*kind)->check(j);
}

std::vector<std::string> experiment_file_paths(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (!j.is_object()) return out;
  for (const char* key : {"input_file", "weight_file", "bias_file", "checkpoint", "activations"})
    if (const auto it = j.find(key); it != j.end() && it->is_string()) out.push_back(io::tensor_file(*it));
  return out;
}

std::optional<WorkEstimate> estimate_file_work(const nlohmann::json& j) {
  const auto c = sweep_config(j);
  return c ? std::optional<WorkEstimate>(estimate_dot_sweep(*c)) : std::nullopt;
}

std::optional<double> file_sweep_terms(const nlohmann::json& j) {
  const auto c = sweep_config(j);
  return c ? std::optional<double>(sweep_terms(*c)) : std::nullopt;
}

}  // namespace pl::experiment
