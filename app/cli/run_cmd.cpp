// precision-lab run CONFIG.json [--backend auto|cpu|cuda] --out DIR [--json]
// Runs the experiment a JSON file describes (docs/experiment-json.md) and writes its results
// (result.json, setup.json, figures and their CSV) into DIR, with a progress bar on a
// terminal: matmul and linear, mlp, dot and sum (error versus length), cast.
#include <fstream>
#include <iostream>

#include "app/cli/cli.h"
#include "app/cli/matmul_report.h"
#include "core/experiment/sweep_json.h"
#include "core/figure/experiment_figures.h"

namespace pl::cli {
namespace {
struct RunArgs {
  std::string config, backend = "auto", out;
  bool json = false;
};

int fail(const std::string& why, int status = kExitBadInput) {
  std::fprintf(stderr, "error: %s\n", why.c_str());
  return status;
}

// Writes setup.json (what reruns it), result.json and the figures into `out`.
int save_all(const std::string& out, const nlohmann::json& setup, const nlohmann::json& result,
             const std::vector<figure::Figure>& figures) {
  auto saved = save_json(out, "setup.json", setup);
  if (saved) saved = save_json(out, "result.json", result);
  if (saved) saved = save_figures(figures, out);
  return saved ? kExitOk : fail(saved.error(), kExitFailed);
}

int run_dot_json(const nlohmann::json& j, const std::string& file, const std::string& out, bool json) {
  auto c = experiment::dot_config_from_json(j);
  if (!c) return fail(file + ": " + c.error());
  std::vector<experiment::DotSweepRow> rows;
  {
    const ProgressBar bar(json);
    rows = experiment::dot_sweep(*c, bar.callback());
  }
  const nlohmann::json result = experiment::sweep_result_json(*c, rows);
  if (int rc = save_all(out, experiment::to_json(*c), result, {figure::dot_sweep_figure(rows, *c)}); rc != kExitOk)
    return rc;
  if (json) {
    std::cout << result.dump(1) << "\n";
    return kExitOk;
  }
  std::printf("%8s  %-28s %14s %11s %11s %10s\n", "K", "accumulation", "max|e|/S|ab|", "bound",
              "prob.bound", "mean bits");
  for (const auto& r : rows)
    std::printf("%8zu  %-28s %14.3e %11.3e %11.3e %10.2f\n", r.length, experiment::describe(r.model).c_str(),
                r.max_scaled, r.bounds.deterministic, r.bounds.probabilistic, r.stats.mean_bits);
  std::printf("\nwrote %s/result.json, setup.json, error-vs-k.*\n", out.c_str());
  return kExitOk;
}

int run_cast_json(const nlohmann::json& j, const std::string& file, const std::string& out, bool json) {
  auto spec = experiment::cast_spec_from_json(j);
  if (!spec) return fail(file + ": " + spec.error());
  auto r = experiment::run_cast(*spec);
  if (!r) return fail(r.error());
  const nlohmann::json result = experiment::to_json(*r);
  if (int rc = save_all(out, experiment::to_json(*spec), result, figure::roundtrip_figures(*r)); rc != kExitOk)
    return rc;
  if (json) {
    std::cout << result.dump(1) << "\n";
    return kExitOk;
  }
  const auto& s = r->stats;
  std::printf("cast through %s (%s): max rel %.3e, normwise %.3e, SQNR %.1f dB, saturated %zu, flushed %zu\n",
              std::string(name(r->config.dtype)).c_str(),
              std::string(experiment::scaling_name(r->config.scaling.kind)).c_str(), s.max_rel,
              s.normwise_rel, s.sqnr_db, r->saturated, r->flushed);
  std::printf("\nwrote %s/result.json, setup.json and the cast figures\n", out.c_str());
  return kExitOk;
}
}  // namespace

Runner add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("config", a->config, "experiment file (JSON)")->required();
  app.add_option("--backend", a->backend, "auto | cpu | cuda (the matrix experiments run on the CPU backend for now)");
  app.add_option("--out", a->out, "folder for the results")->required();
  app.add_flag("--json", a->json, "print result.json to stdout as well");
  return [a]() {
    std::ifstream in(a->config);
    if (!in) {
      std::fprintf(stderr, "error: cannot open %s\n", a->config.c_str());
      return kExitBadInput;
    }
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) {
      std::fprintf(stderr, "error: %s is not valid JSON\n", a->config.c_str());
      return kExitBadInput;
    }
    if (a->backend != "auto" && a->backend != "cpu" && a->backend != "cuda") {
      std::fprintf(stderr, "error: --backend must be auto, cpu or cuda\n");
      return kExitBadInput;
    }
    if (a->backend == "cuda") {
      std::fprintf(stderr, "error: matrix experiments do not run on the CUDA backend yet (use cpu or auto)\n");
      return kExitFailed;
    }
    const std::string kind = j.is_object() && j.contains("experiment") && j["experiment"].is_string()
                                 ? j["experiment"].get<std::string>() : "";
    if (kind == "dot" || kind == "sum") return run_dot_json(j, a->config, a->out, a->json);
    if (kind == "cast") return run_cast_json(j, a->config, a->out, a->json);
    if (kind == "mlp") {
      const int rc = run_mlp_json(j, a->out, a->json);
      if (rc == kExitOk && !a->json) std::printf("\nwrote %s/result.json, setup.json, error-vs-layer.*\n", a->out.c_str());
      return rc;
    }
    auto spec = experiment::matmul_spec_from_json(j);
    if (!spec) {
      std::fprintf(stderr, "error: %s: %s\n", a->config.c_str(), spec.error().c_str());
      return kExitBadInput;
    }
    auto run = run_spec_with_progress(*spec, a->json);
    if (!run) {
      std::fprintf(stderr, "error: %s\n", run.error().c_str());
      return kExitBadInput;
    }
    auto saved = exporting::save_spec_run(*run, a->out);
    if (!saved) {
      std::fprintf(stderr, "error: %s\n", saved.error().c_str());
      return kExitFailed;
    }
    if (run->raised()) {
      print_framework_report(*run->framework, a->json);
      if (!a->json) std::printf("\nwrote %s/setup.json, framework.json and each fix's results in fix-N/\n", a->out.c_str());
      return kExitOk;
    }
    if (a->json) std::cout << experiment::to_json(*run->result).dump(1) << "\n";
    else {
      print_report(*run->result);
      std::printf("\nwrote %s/result.json, setup.json, histograms.csv%s\n", a->out.c_str(),
                  run->framework ? ", framework.json" : "");
    }
    return kExitOk;
  };
}

}  // namespace pl::cli
