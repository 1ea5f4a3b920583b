// precision-lab run CONFIG.json [--backend auto|cpu|cuda] --out DIR [--json]
// Runs the experiment a JSON file describes (docs/experiment-json.md) and writes its results
// (result.json, setup.json, figures and their CSV) into DIR, with a progress bar on a
// terminal: matmul and linear, mlp, dot and sum (error versus length), cast, throughput.
#include <algorithm>
#include <iostream>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "app/cli/matmul_report.h"
#include "app/cli/run_report.h"
#include "core/backend/backend.h"
#include "core/experiment/spec/experiment_file.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/figure/experiment_figures.h"
#include "core/io/file_read.h"
#include "core/io/json_text.h"
#include "core/util/interrupt.h"

namespace pl::cli {
namespace {
struct RunArgs {
  std::string config, out;
  std::optional<BackendChoice> backend;  // none: the file's (cpu when it names none)
  bool json = false, force = false;
};

int fail(const std::string& why, int status = kExitBadInput) {
  std::fprintf(stderr, "error: %s\n", why.c_str());
  return status;
}

// Every kind but matmul and linear: run through experiment_file's one door, then setup.json
// (what reruns it), result.json and the kind's figures into `out`.
int run_other_kind(const nlohmann::json& j, const std::string& file, const RunArgs& a) {
  const std::string& out = a.out;
  const bool json = a.json;
  Expected<experiment::ExperimentRun> run = Error{""};
  {
    const ProgressBar bar(json);
    run = experiment::run_experiment_file(j, bar.callback(), interrupt_flag());
  }
  if (interrupt_signal()) return 128 + interrupt_signal();
  if (!run) return fail(file + ": " + run.error(), run.environment_failure() ? kExitFailed : kExitBadInput);
  const auto figures = figure::experiment_figures(*run);
  if (const int status = write_output(out, a.force,
                                      [&](const std::string& dir) {
                                        auto saved = save_json(dir, "setup.json", run->setup);
                                        if (saved) saved = save_json(dir, "result.json", run->result);
                                        if (saved) saved = save_figures(figures, dir);
                                        return saved;
                                      });
      status != kExitOk)
    return status;
  if (json) {
    std::cout << run->result.dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return kExitOk;
  }
  print_run_summary(*run);
  std::string names;
  for (const auto& f : figures) names += ", " + f.name + ".*";
  std::printf("\nwrote %s/result.json, setup.json%s\n", out.c_str(), names.c_str());
  return kExitOk;
}
}  // namespace

Runner add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("config", a->config,
                 "experiment file (JSON, docs/experiment-json.md); its \"experiment\" is one of " +
                     experiment::experiment_kind_names())
      ->required();
  add_backend_option(app, &a->backend,
                     "where the products (and a roundtrip experiment's rounding) run, overriding the file's "
                     "\"backend\"; what the device cannot run falls back to the CPU, with a note (a train "
                     "experiment runs on the CPU and refuses it)");
  app.add_option("--out", a->out,
                 "folder for the results: written whole or not at all; an existing folder must be empty")
      ->required();
  app.add_flag("--force", a->force,
               "replace a non-empty --out folder (as a whole: nothing of the earlier run stays), and run a sweep "
               "estimated past 10 minutes");
  app.add_flag("--json", a->json,
               "print result.json (framework.json when the framework's call raises) to stdout as well");
  return [a]() {
    auto read = io::read_json_file(a->config);
    if (!read) {
      std::fprintf(stderr, "error: %s\n", read.error().c_str());
      return kExitBadInput;
    }
    nlohmann::json j = std::move(read).value();
    std::vector<std::string> inputs = experiment::experiment_file_paths(j);  // (the files it names)
    inputs.push_back(a->config);
    if (const int st = output_problem(a->out, a->force, inputs)) return st;
    if (const std::string note = experiment::kind_alias_note(j); !note.empty())
      std::fprintf(stderr, "note: %s: %s\n", a->config.c_str(), note.c_str());
    const std::string kind = experiment::experiment_kind(j);
    // Every kind runs its device work where the backend says: matmul, linear, mlp (every
    // layer's product), dot and sum (each trial's product), throughput, and roundtrip (the
    // rounding of its elements).
    if (a->backend) {
      const auto kinds = experiment::experiment_kinds();
      const auto k = std::find_if(kinds.begin(), kinds.end(), [&](const auto& e) { return e.name == kind; });
      if (k != kinds.end() && !k->takes_backend)
        return fail(a->config + ": --backend: a " + kind + " experiment runs on the CPU and has no backend to choose");
      j["backend"] = backend_choice_name(*a->backend);
    }
    // A sweep far past interactive scale is announced first.
    if (const auto w = experiment::estimate_file_work(j);
        w && w->seconds > experiment::kInteractiveSeconds && !a->force)
      return fail(a->config + ": this sweep is " + experiment::work_text(*w) + "; give --force to run it anyway");
    if (kind != "matmul" && kind != "linear") return run_other_kind(j, a->config, *a);
    auto spec = experiment::matmul_spec_from_json(j);
    if (!spec) {
      std::fprintf(stderr, "error: %s: %s\n", a->config.c_str(), spec.error().c_str());
      return kExitBadInput;
    }
    auto run = run_spec_with_progress(*spec, a->json);
    // Ctrl-C first (130, not a stray "error: cancelled"); a failure of the machine (a device lost)
    // is 1, a setup the run could not take 2.
    if (interrupt_signal()) return 128 + interrupt_signal();
    if (!run) {
      std::fprintf(stderr, "error: %s\n", run.error().c_str());
      return run.environment_failure() ? kExitFailed : kExitBadInput;
    }
    if (const int status =
            write_output(a->out, a->force, [&](const std::string& dir) { return exporting::save_spec_run(*run, dir); });
        status != kExitOk)
      return status;
    if (run->raised()) {
      print_framework_report(*run->framework, a->json);
      if (!a->json)
        std::printf(
            "\nwrote %s/setup.json, framework.json, framework-fixes.{png,svg,pdf,csv} (the fixes side by side) "
            "and each fix's results and figures in fix-N/\n",
            a->out.c_str());
      return kExitOk;
    }
    if (a->json) std::cout << experiment::to_json(*run->result).dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    else {
      print_report(*run->result);
      std::string names;  // every figure the window shows for this setup
      for (const auto& f : figure::matmul_figures(*run->result)) names += ", " + f.name + ".*";
      std::printf("\nwrote %s/result.json, setup.json, histograms.csv%s%s\n", a->out.c_str(),
                  run->framework ? ", framework.json" : "", names.c_str());
    }
    return kExitOk;
  };
}

}  // namespace pl::cli
