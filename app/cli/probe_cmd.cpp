// precision-lab accumulation-probe [--backend auto|cpu|cuda] [--dtype T] [--accumulate MODEL]
//                                  [--fast-accum] [--check-model MODEL]... [--json]
// How the backend's library GEMM adds (core/experiment/accumulation_probe.h): rounding, ties,
// bits seen below the last place, the partial sums' width, the promotion interval -- a table
// for the device at hand (a GPU's tensor cores, or OpenBLAS on the CPU). With --check-model,
// only how well each model given reproduces that product on random inputs.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "core/accumulate/accumulation_spec.h"
#include "core/backend/backend.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/accumulation_probe.h"
#include "core/experiment/dot_sweep.h"
#include "core/io/json_text.h"

namespace pl::cli {
namespace {

struct ProbeArgs {
  std::string dtype = "float16", accumulate = "f32:blas";
  BackendChoice backend = BackendChoice::Auto;
  bool fast = false, json = false;
  std::vector<std::string> check_models;
};

// --check-model: each model against the device's product, a line (or a JSON row) each.
int check_models(Backend& backend, DType input, const experiment::Accumulation& acc, const ProbeArgs& a) {
  std::vector<experiment::Accumulation> models;
  for (const std::string& spec : a.check_models) {
    auto m = experiment::parse_accumulation(spec);
    if (!m) {
      std::fprintf(stderr, "error: --check-model %s: %s\n", spec.c_str(), m.error().c_str());
      return kExitBadInput;
    }
    models.push_back(*m);
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& m : models) {
    auto f = experiment::check_model(backend, input, acc, a.fast, m);
    if (!f) {
      std::fprintf(stderr, "error: %s\n", f.error().c_str());
      return kExitFailed;
    }
    if (a.json)
      rows.push_back({{"model", experiment::accumulation_spec(m)}, {"answer", f->answer}, {"evidence", f->evidence}});
    else
      std::printf("%-28s %s\n%-28s   %s\n", experiment::accumulation_spec(m).c_str(), f->answer.c_str(), "",
                  f->evidence.c_str());
  }
  if (a.json)
    std::cout << nlohmann::json{{"backend", backend.name()},   {"device", backend.device_info().name},
                                {"input", name(input)},        {"accumulate", experiment::accumulation_spec(acc)},
                                {"fast_accumulation", a.fast}, {"checks", rows}}
                     .dump(2, ' ', false, io::kReplaceInvalidUtf8)
              << "\n";
  return kExitOk;
}

}  // namespace

Runner add_accumulation_probe(CLI::App& app) {
  auto a = std::make_shared<ProbeArgs>();
  add_backend_option(app, &a->backend, "the backend probed (default auto); cuda with no GPU to probe exits 1");
  app.add_option("--dtype", a->dtype, "input dtype of the probed product (default float16)");
  app.add_option(
      "--accumulate", a->accumulate,
      "the library model probed: f32:blas (default), f16:blas, f64:blas (another model probes Precision Lab's "
      "own emulation of it)");
  app.add_flag("--fast-accum", a->fast, "float8 on CUDA: cuBLASLt's fast accumulation");
  app.add_option("--check-model", a->check_models,
                 "instead of the probes: how many elements of a random product this model reproduces bit for bit "
                 "(repeatable; f32:multiterm:16:2:rtz, tf32:sequential, ...)");
  app.add_flag("--json", a->json, "JSON output");
  return [a]() {
    auto t = parse_dtype(a->dtype);
    if (!t) {
      std::fprintf(stderr, "error: %s\n", t.error().c_str());
      return kExitBadInput;
    }
    auto acc = experiment::parse_accumulation(a->accumulate);
    if (!acc) {
      std::fprintf(stderr, "error: --accumulate: %s\n", acc.error().c_str());
      return kExitBadInput;
    }
    if (auto st = experiment::check_probe_request(*t, *acc); !st) {  // (before a device is opened)
      std::fprintf(stderr, "error: %s\n", st.error().c_str());
      return kExitBadInput;
    }
    auto shared = shared_backend(a->backend);
    if (!shared) {
      std::fprintf(stderr, "error: %s\n", shared.error().c_str());
      return kExitFailed;
    }
    // A library model the CPU has no routine for is a request this machine cannot serve, refused
    // before probing as matmul refuses it (the message says where it runs).
    if (const Support s = shared->backend->supports_product({{1, 1, 1}, *t, *t, *acc, a->fast});
        shared->backend->name() == "cpu" && !s.ok) {
      std::fprintf(stderr, "error: %s\n", s.why_not.c_str());
      return kExitBadInput;
    }
    if (!a->check_models.empty()) {
      std::lock_guard lock(*shared->mutex);
      return check_models(*shared->backend, *t, *acc, *a);
    }
    Expected<experiment::ProbeReport> r = Error{""};
    {
      std::lock_guard lock(*shared->mutex);
      r = experiment::probe_accumulation(*shared->backend, *t, *acc, a->fast);
    }
    if (!r) {
      std::fprintf(stderr, "error: %s\n", r.error().c_str());
      return kExitFailed;
    }
    if (a->json) {
      auto found = [](bool seen, int value) { return seen ? nlohmann::json(value) : nlohmann::json(nullptr); };
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& f : r->findings)
        rows.push_back({{"question", f.question}, {"answer", f.answer}, {"evidence", f.evidence}});
      std::cout << nlohmann::json{{"backend", r->backend},
                                  {"device", r->device},
                                  {"method", r->method},
                                  {"input", name(r->input)},
                                  {"accumulate", experiment::accumulation_spec(r->accumulate)},
                                  {"fast_accumulation", r->fast_accumulation},
                                  {"accumulator_bits", r->accumulator_bits},
                                  // null where the probes found none (or did not run: the findings say
                                  // which), not the report's 0 and -1, which read as measured values
                                  {"promotion_interval", found(r->promotion_interval > 0, r->promotion_interval)},
                                  {"block_terms", found(r->block_terms > 0, r->block_terms)},
                                  {"extra_bits", found(r->extra_bits >= 0, r->extra_bits)},
                                  {"model", r->model},
                                  {"model_note", r->model_note},
                                  {"findings", rows}}
                       .dump(2, ' ', false, io::kReplaceInvalidUtf8)
                << "\n";
      return kExitOk;
    }
    std::printf("%s (%s): %s x %s, %s%s\nran: %s\n\n", r->device.c_str(), r->backend.c_str(),
                std::string(name(r->input)).c_str(), std::string(name(r->input)).c_str(),
                experiment::describe(r->accumulate).c_str(), r->fast_accumulation ? ", fast accumulation" : "",
                r->method.c_str());
    int width = 60;  // (the longest question sets it: the answers line up)
    for (const auto& f : r->findings) width = std::max(width, static_cast<int>(f.question.size()));
    for (const auto& f : r->findings)
      std::printf("%-*s %s\n%-*s   %s\n", width, f.question.c_str(), f.answer.c_str(), width, "", f.evidence.c_str());
    if (!r->model.empty())
      std::printf("\nas a model: --accumulate %s  (%s)\n", r->model.c_str(), r->model_note.c_str());
    else std::printf("\nas a model: none (%s)\n", r->model_note.c_str());
    return kExitOk;
  };
}

}  // namespace pl::cli
