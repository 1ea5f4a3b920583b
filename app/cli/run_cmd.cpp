// precision-lab run CONFIG.json [--backend auto|cpu|cuda] --out DIR [--json]
// Runs the experiment a JSON file describes (docs/experiment-json.md) and writes its results
// (result.json, setup.json, histograms.csv) into DIR, with a progress bar on a terminal.
#include <fstream>
#include <iostream>

#include "app/cli/cli.h"
#include "app/cli/matmul_report.h"

namespace pl::cli {
namespace {
struct RunArgs {
  std::string config, backend = "auto", out;
  bool json = false;
};
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
    if (j.is_object() && j.value("experiment", "") == "mlp") {
      const int rc = run_mlp_json(j, a->out, a->json);
      if (rc == kExitOk && !a->json) std::printf("\nwrote %s/result.json, setup.json, error-vs-layer.*\n", a->out.c_str());
      return rc;
    }
    auto spec = experiment::matmul_spec_from_json(j);
    if (!spec) {
      std::fprintf(stderr, "error: %s: %s\n", a->config.c_str(), spec.error().c_str());
      return kExitBadInput;
    }
    experiment::MatmulSpec& s = spec.value();
    auto r = run_with_progress(s, a->json);
    if (!r) {
      std::fprintf(stderr, "error: %s\n", r.error().c_str());
      return kExitBadInput;
    }
    auto saved = save_results(s, *r, a->out);
    if (!saved) {
      std::fprintf(stderr, "error: %s\n", saved.error().c_str());
      return kExitFailed;
    }
    if (a->json) std::cout << experiment::to_json(*r).dump(1) << "\n";
    else {
      print_report(*r);
      std::printf("\nwrote %s/result.json, setup.json, histograms.csv\n", a->out.c_str());
    }
    return kExitOk;
  };
}

}  // namespace pl::cli
