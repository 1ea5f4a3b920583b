// precision-lab scan PATH [--candidates LIST] [--activations FILE [--activation-format CANDIDATE]]
//   [--budget BITS] [--pin NAME=CANDIDATE]... [--tensors REGEX] [--rounding MODE [--seed N]] [--backend cpu|cuda|auto]
//   [--threads N] [--json]
//   [--out DIR [--force]]
// precision-lab scan --merge DIR... [--budget BITS] [--pin ...] [--json] [--out DIR]
// Every tensor of a checkpoint under every candidate format, and a mixed-precision plan within
// a bit budget. --merge joins scans of parts of one checkpoint (--tensors per job). With
// --activations each weight is scored by its layer's output error on the inputs the file holds.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <vector>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "app/cli/run_report.h"
#include "app/cli/stderr_filter.h"
#include "core/experiment/matmul.h"
#include "core/experiment/scan/checkpoint_scan.h"
#include "core/experiment/scan/scan_json.h"
#include "core/experiment/scan/scan_spec.h"
#include "core/export/scan_export.h"
#include "core/io/file_read.h"
#include "core/io/json_text.h"
#include "core/util/interrupt.h"
#include "core/util/printable.h"
#include "core/util/thread_limit.h"

namespace pl::cli {
namespace {

using namespace experiment;

struct ScanArgs {
  std::string path, candidates = std::string(kDefaultCandidates), tensors, rounding = "rne", out;
  uint64_t seed = 0;
  std::string activations, activation_format;
  std::vector<std::string> merge, pins;
  std::optional<double> budget;
  BackendChoice backend = BackendChoice::Cpu;
  unsigned threads = 0;
  bool json = false, force = false;
};

int bad(const std::string& why) {
  std::fprintf(stderr, "error: %s\n", why.c_str());
  return kExitBadInput;
}

// A progress line on stderr while scanning, on a terminal: tensors, bytes and the time left.
class ScanProgressLine {
 public:
  ScanProgressLine() : shown_(stderr_is_terminal()), start_(std::chrono::steady_clock::now()) {}
  ~ScanProgressLine() {
    if (shown_) std::fprintf(stderr, "\r%78s\r", "");
  }
  std::function<void(const ScanProgress&)> callback() {
    if (!shown_) return {};
    return [this](const ScanProgress& p) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      std::fprintf(stderr, "\rscan: %s   ", progress_text(p, seconds).c_str());
    };
  }

 private:
  bool shown_;
  std::chrono::steady_clock::time_point start_;
};

// Each part's result.json: a folder a scan wrote with --out, or the file itself.
Expected<ScanResult> merged(const std::vector<std::string>& parts) {
  std::vector<ScanResult> read;
  std::vector<std::string> files;
  for (const std::string& p : parts) {
    std::error_code ec;  // (a path that cannot be looked at is read, and refused, as a file: exit 2)
    const std::string file = std::filesystem::is_directory(p, ec) ? p + "/result.json" : p;
    auto j = io::read_json_file(file);
    if (!j) return Error{j.error()};
    auto r = scan_from_json(*j, file);
    if (!r) return Error{r.error()};
    read.push_back(std::move(r).value());
    files.push_back(file);
  }
  return merge_scans(std::move(read), files);
}

int finish(const ScanArgs& a, const ScanResult& r) {
  auto plans = plan_scan(r, a.budget, a.pins);
  if (!plans) return bad(plans.error());
  const std::vector<PlanPoint>& frontier = plans->frontier;
  const std::optional<PlanReport>& plan = plans->plan;
  if (!a.out.empty())
    if (const int status = write_output(
            a.out, a.force, [&](const std::string& dir) { return exporting::save_scan(r, frontier, plan, dir); });
        status != kExitOk)
      return status;
  if (a.json) {
    std::cout << scan_to_json(r, frontier, plan).dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return kExitOk;
  }
  print_scan_report(r, frontier, plan);
  if (!a.out.empty()) {
    std::vector<std::string> files;
    std::error_code ec;  // (the results are written: a folder that cannot be listed only shortens the line)
    for (std::filesystem::directory_iterator it(a.out, ec), end; !ec && it != end; it.increment(ec))
      files.push_back(it->path().filename().string());
    std::sort(files.begin(), files.end());
    std::string list;
    for (const std::string& f : files) list.append(list.empty() ? "" : ", ").append(f);
    std::printf("\nwrote %s: %s\n", a.out.c_str(), list.c_str());
  }
  return kExitOk;
}

}  // namespace

Runner add_scan(CLI::App& app) {
  auto a = std::make_shared<ScanArgs>();
  app.add_option("path", a->path, "a .safetensors file, a *.safetensors.index.json, or a folder of them");
  std::vector<CLI::Option*> scan_only;
  scan_only.push_back(app.add_option("--candidates", a->candidates,
                                     "comma-separated DTYPE[:RECIPE[:BLOCK]] (recipes: " + candidate_recipe_names() +
                                         "; default " + std::string(kDefaultCandidates) + ")"));
  app.add_option("--budget", a->budget,
                 "plan within this many bits per parameter, on average over the scanned tensors");
  app.add_option("--pin", a->pins, "keep tensor NAME in CANDIDATE in the plan (NAME=CANDIDATE; repeatable)");
  scan_only.push_back(app.add_option(
      "--tensors", a->tensors,
      "scan the tensors whose names this regular expression (RE2 syntax: no look-ahead) matches (default: every float tensor of two or more "
      "dimensions)"));
  scan_only.push_back(app.add_option(
      "--activations", a->activations,
      "score each linear layer's weight by its output error ||X q(W)^T - X W^T|| on the inputs X this safetensors "
      "file holds (NAME.input for NAME.weight, as scripts/capture_activations.py writes); only those weights are "
      "scanned"));
  scan_only.push_back(app.add_option("--activation-format", a->activation_format,
                                     "with --activations: the inputs in this candidate too, for W8A8-style pairs "
                                     "(int8:per-channel is a scale per row: per token)"));
  scan_only.push_back(add_rounding_option(
      app, &a->rounding, "the rounding of the elements (integer candidates: to nearest, ties to even)"));
  scan_only.push_back(app.add_option("--seed", a->seed,
                                     "with --rounding stochastic: the stream's seed (element i of a tensor draws "
                                     "draw i, as the cast experiment of that tensor would)"));
  scan_only.push_back(add_backend_option(
      app, &a->backend,
      "where the elements are rounded (default cpu; scales and figures are the CPU's); what the device cannot round, "
      "the CPU does, with a note"));
  scan_only.push_back(app.add_option("--threads", a->threads, "CPU threads the scan may use (default 0: all cores)")
                          ->check(CLI::Range(0u, experiment::kMaxThreads)));
  app.add_option("--merge", a->merge,
                 "join the results of scans of parts of one checkpoint: folders written with --out, or their "
                 "result.json")
      ->expected(1, -1);
  app.add_option(
      "--out", a->out,
      "write result.json, tensors.csv, frontier.csv, plan.csv (with --budget) and the figures into this folder "
      "(whole or not at all; an existing folder must be empty)");
  app.add_flag("--force", a->force, "replace a non-empty --out folder as a whole");
  app.add_flag("--json", a->json, "print the results as one JSON object");
  return [a, scan_only]() {
    if (a->path.empty() == a->merge.empty())
      return bad(a->merge.empty() ? "name a checkpoint to scan (or --merge the results of scans)"
                                  : "give a checkpoint or --merge, not both");
    if (a->budget && !(*a->budget > 0 && std::isfinite(*a->budget)))
      return bad("--budget must be a positive number of bits per parameter");
    std::vector<std::string> inputs = a->merge;
    inputs.push_back(a->path);
    inputs.push_back(a->activations);
    if (const int st = !a->out.empty() ? output_problem(a->out, a->force, inputs) : 0) return st;
    if (!a->merge.empty()) {
      for (const CLI::Option* o : scan_only)
        if (o->count() > 0) return bad(o->get_name() + " is for a scan: --merge joins scans already made");
      auto r = merged(a->merge);
      if (!r) return bad(r.error());
      return finish(*a, *r);
    }
    ScanSpec spec;
    spec.checkpoint = a->path;
    spec.candidates = a->candidates;
    spec.budget = a->budget;
    spec.pins = a->pins;
    spec.tensors = a->tensors;
    spec.activations = a->activations;
    spec.activation_format = a->activation_format;
    spec.backend = a->backend;
    if (!parse_rounding(a->rounding.c_str(), &spec.cast.rounding)) return bad("unknown rounding '" + a->rounding + "'");
    spec.cast.seed = a->seed;
    for (const CLI::Option* o : scan_only)
      if (o->get_name() == "--seed" && o->count() > 0 && spec.cast.rounding != Rounding::Stochastic)
        return bad("--seed seeds stochastic rounding's draws: give --rounding stochastic, or no --seed");
    for (const CLI::Option* o : scan_only)
      if (o->count() > 0 && (o->get_name() == "--activations" || o->get_name() == "--activation-format") &&
          o->as<std::string>().empty())
        return bad(o->get_name() + " must not be empty");
    if (!spec.activation_format.empty() && spec.activations.empty())
      return bad("--activation-format needs --activations");
    auto prepared = prepare_scan(spec, {}, interrupt_flag());
    if (interrupt_signal()) return 128 + interrupt_signal();
    if (!prepared) return bad(prepared.error());
    Expected<ScanResult> r = Error{""};
    {
      const ThreadLimit limit(a->threads);
      ScanProgressLine line;
      r = scan_checkpoint(prepared->checkpoint, prepared->options, line.callback(), interrupt_flag());
    }
    if (interrupt_signal()) return 128 + interrupt_signal();
    if (!r) {
      std::fprintf(stderr, "error: %s\n", r.error().c_str());
      return kExitFailed;  // the checkpoint was read and checked: what fails now is reading it
    }
    return finish(*a, *r);
  };
}

}  // namespace pl::cli
