// precision-lab accumulation-probe [--backend auto|cpu|cuda] [--dtype T] [--accumulate MODEL]
//                                  [--fast-accum] [--json]
// How the backend's library GEMM adds (core/experiment/accumulation_probe.h): rounding, ties,
// bits seen below the last place, the partial sums' width, the promotion interval -- a table
// for the device at hand (a GPU's tensor cores, or OpenBLAS on the CPU).
#include <cstdio>
#include <iostream>

#include "app/cli/cli.h"
#include "core/backend/backend.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/accumulation_probe.h"
#include "core/experiment/dot_sweep.h"

namespace pl::cli {
namespace {

struct ProbeArgs {
  std::string backend = "auto", dtype = "float16", accumulate = "f32:blas";
  bool fast = false, json = false;
};

}  // namespace

Runner add_accumulation_probe(CLI::App& app) {
  auto a = std::make_shared<ProbeArgs>();
  app.add_option("--backend", a->backend, "auto | cpu | cuda (default auto)");
  app.add_option("--dtype", a->dtype, "input dtype of the probed product (default float16)");
  app.add_option("--accumulate", a->accumulate, "the library model probed: f32:blas (default), f16:blas, f64:blas");
  app.add_flag("--fast-accum", a->fast, "float8 on CUDA: cuBLASLt's fast accumulation");
  app.add_flag("--json", a->json, "JSON output");
  return [a]() {
    auto t = parse_dtype(a->dtype);
    if (!t) {
      std::fprintf(stderr, "error: %s\n", t.error().c_str());
      return kExitBadInput;
    }
    std::string why;
    auto acc = experiment::parse_accumulation(a->accumulate, &why);
    if (!acc) {
      std::fprintf(stderr, "error: --accumulate: %s\n", why.c_str());
      return kExitBadInput;
    }
    auto shared = shared_backend(a->backend);
    if (!shared) {
      std::fprintf(stderr, "error: %s\n", shared.error().c_str());
      return kExitFailed;
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
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& f : r->findings) rows.push_back({{"question", f.question}, {"answer", f.answer}, {"evidence", f.evidence}});
      std::cout << nlohmann::json{{"backend", r->backend}, {"device", r->device}, {"method", r->method},
                                  {"input", name(r->input)}, {"accumulate", experiment::accumulation_spec(r->accumulate)},
                                  {"fast_accumulation", r->fast_accumulation}, {"accumulator_bits", r->accumulator_bits},
                                  {"promotion_interval", r->promotion_interval}, {"block_terms", r->block_terms},
                                  {"extra_bits", r->extra_bits}, {"model", r->model},
                                  {"model_note", r->model_note}, {"findings", rows}}.dump(2) << "\n";
      return kExitOk;
    }
    std::printf("%s (%s): %s x %s, %s%s\nran: %s\n\n", r->device.c_str(), r->backend.c_str(),
                std::string(name(r->input)).c_str(), std::string(name(r->input)).c_str(),
                experiment::describe(r->accumulate).c_str(), r->fast_accumulation ? ", fast accumulation" : "",
                r->method.c_str());
    for (const auto& f : r->findings)
      std::printf("%-60s %s\n%-60s   %s\n", f.question.c_str(), f.answer.c_str(), "", f.evidence.c_str());
    if (!r->model.empty()) std::printf("\nas a model: --accumulate %s  (%s)\n", r->model.c_str(), r->model_note.c_str());
    else std::printf("\nas a model: none (%s)\n", r->model_note.c_str());
    return kExitOk;
  };
}

}  // namespace pl::cli
