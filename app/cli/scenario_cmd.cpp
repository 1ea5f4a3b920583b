// precision-lab scenario list [--json]
// precision-lab scenario run NAME [--out DIR] [--json]   (exit 1 when a check fails)
// precision-lab scenario export NAME --out DIR
// The teaching scenarios (assets/scenarios, and the user's own in the config folder), headless:
// `run` prints each check's expected and observed answer; `export` writes the slide-ready set
// (story.md, checks, every evidence figure as PNG, SVG, PDF and CSV).
#include <cstdio>
#include <iostream>

#include "app/cli/cli.h"
#include "app/cli/figure_options.h"
#include "app/cli/matmul_report.h"
#include "core/experiment/spec/experiment_file.h"
#include "core/io/json_text.h"
#include "core/scenario/library.h"
#include "core/scenario/scenario_export.h"
#include "core/scenario/scenario_run.h"
#include "core/util/interrupt.h"
#include "core/util/paths.h"

namespace pl::cli {
namespace {

struct ScenarioArgs {
  std::string name, out;
  bool json = false, force = false;
};

int fail(const std::string& why, int status) {
  std::fprintf(stderr, "error: %s\n", why.c_str());
  return status;
}

scenario::Library library_or_report() {
  auto lib = scenario::load_library(scenario_dirs(), shipped_scenario_dirs());
  for (const auto& e : lib.errors) std::fprintf(stderr, "warning: skipped %s\n", e.c_str());
  return lib;
}

int list(bool json) {
  const auto lib = library_or_report();
  if (lib.scenarios.empty())
    return fail("no scenarios found (looked in assets/scenarios and the config folder's scenarios/)", kExitFailed);
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& s : lib.scenarios)
      j.push_back({{"name", s.name},
                   {"title", s.title},
                   {"checks", s.checks.size()},
                   {"evidence", s.evidence.size()},
                   {"source", s.source}});
    std::cout << j.dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return kExitOk;
  }
  for (const auto& s : lib.scenarios)
    std::printf("%-40s %s (%zu check%s)\n", s.name.c_str(), s.title.c_str(), s.checks.size(),
                s.checks.size() == 1 ? "" : "s");
  return kExitOk;
}

void print_run(const scenario::ScenarioRun& r) {
  const auto& s = r.scenario;
  std::printf("%s\n\n%s\n", s.title.c_str(), s.story.c_str());
  if (!s.look_at.empty()) std::printf("\nLook at: %s\n", s.look_at.c_str());
  for (size_t i = 0; i < r.evidence.size(); ++i)
    std::printf("\nevidence %zu: %s (%s, %.2f s)%s%s", i, r.evidence[i].label.c_str(),
                r.evidence[i].run ? r.evidence[i].run->kind.c_str() : "failed", r.evidence[i].seconds,
                r.evidence[i].error.empty() ? "" : "\n  ", r.evidence[i].error.c_str());
  std::printf("\n\n");
  for (const auto& c : r.checks) {
    std::printf("%s  %s\n      expected %s\n      observed %s\n", c.passed ? "pass" : "FAIL", c.label.c_str(),
                scenario::expected_text(c).c_str(), scenario::observed_text(c).c_str());
    if (!c.note.empty()) std::printf("      %s\n", c.note.c_str());
  }
  if (!r.look_at_error.empty()) std::printf("FAIL  %s\n", r.look_at_error.c_str());
  std::printf("\n%s (%.2f s)\n", scenario::checks_summary(r).c_str(), r.seconds);
}

int run(const ScenarioArgs& a, bool export_only) {
  const auto lib = library_or_report();
  const scenario::Scenario* s = scenario::find_scenario(lib, a.name);
  if (!s) {
    std::string names;
    for (const auto& x : lib.scenarios) names += (names.empty() ? "" : ", ") + x.name;
    return fail("no scenario '" + a.name + "' (" + (names.empty() ? "none found" : names) + ")", kExitBadInput);
  }
  if (a.force && a.out.empty()) return fail("--force replaces the folder --out names: give --out too", kExitBadInput);
  // The scenario's own file and the files its evidence reads are inputs: --force never replaces
  // a folder that holds one (a user's scenarios folder given as --out lost the scenario).
  std::vector<std::string> inputs{s->source};
  for (const auto& e : s->evidence)
    for (std::string& path : experiment::experiment_file_paths(e.setup)) inputs.push_back(std::move(path));
  if (const int st = !a.out.empty() ? output_problem(a.out, a.force, inputs) : 0) return st;
  Expected<scenario::ScenarioRun> r = Error{""};
  {
    const ProgressBar bar(a.json);
    r = scenario::run_scenario(*s, bar.callback(), interrupt_flag());
  }
  if (interrupt_signal()) return 128 + interrupt_signal();
  if (!r) return fail(r.error(), kExitFailed);
  if (!a.out.empty())
    if (const int status =
            write_output(a.out, a.force, [&](const std::string& dir) { return exporting::save_scenario_run(*r, dir); });
        status != kExitOk)
      return status;
  // The evidence folders written: one for each evidence run that ran.
  const size_t ran = r->evidence.size() - r->evidence_failed();
  const std::string folders = ran == r->evidence.size() ? "an evidence-N-... folder per evidence run"
                              : ran == 0                ? "no evidence folder (no evidence run ran)"
                                                        : "an evidence-N-... folder for each of the " +
                                                             std::to_string(ran) + " evidence runs that ran";
  if (a.json) std::cout << scenario::to_json(*r).dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
  else if (export_only)
    std::printf("%s: %s; wrote %s/slides.pdf, slides.html, story.md, checks.json, checks.csv and %s\n",
                r->scenario.name.c_str(), scenario::checks_summary(*r).c_str(), a.out.c_str(), folders.c_str());
  else {
    print_run(*r);
    if (!a.out.empty())
      std::printf("wrote %s/slides.pdf, slides.html, story.md, checks.json, checks.csv and %s\n", a.out.c_str(),
                  folders.c_str());
  }
  return r->passed() ? kExitOk : kExitFailed;
}

}  // namespace

Runner add_scenario(CLI::App& app) {
  auto a = std::make_shared<ScenarioArgs>();
  app.require_subcommand(1);
  CLI::App* ls = app.add_subcommand("list", "List the scenarios (--json: where each was read from too)");
  ls->add_flag("--json", a->json, "machine-readable output");
  CLI::App* rn = app.add_subcommand("run", "Run a scenario headless: evidence, then every check (exit 1 if one fails)");
  rn->add_option("name", a->name, "name (06-float16-50-over-49), name without its number, or number")->required();
  rn->add_option("--out", a->out,
                 "also write the slides (PDF, HTML), story.md, checks and the evidence figures here (whole or not at "
                 "all; an existing folder must be empty)");
  rn->add_flag("--force", a->force, "replace a non-empty --out folder as a whole");
  rn->add_flag("--json", a->json, "print checks.json to stdout");
  CLI::App* ex =
      app.add_subcommand("export", "Write a scenario's slide-ready set: story, checks, figures as PNG/SVG/PDF/CSV");
  ex->add_option("name", a->name, "name, name without its number, or number")->required();
  ex->add_option("--out", a->out, "folder (whole or not at all; an existing folder must be empty)")->required();
  ex->add_flag("--force", a->force, "replace a non-empty --out folder as a whole");
  add_figure_options(*ex);
  return [a, ls, rn]() {
    if (ls->parsed()) return list(a->json);
    return run(*a, !rn->parsed());
  };
}

}  // namespace pl::cli
