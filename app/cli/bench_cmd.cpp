// precision-lab bench [--backend auto|cpu|cuda] [--formats a,b,..] [--elements N] [--reps R]
//                     [--rounding MODE] [--json]
// Array round trip float32 -> format -> float32 against a plain copy, timed in the same run on
// the same device (the backend says how it timed).
#include <cstdio>
#include <iostream>

#include "app/cli/cli.h"
#include "core/backend/backend.h"
#include "core/dtype/describe.h"

namespace pl::cli {
namespace {

struct BenchArgs {
  std::string backend = "auto", rounding = "rne";
  std::vector<std::string> formats{"float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
                                   "float4_e2m1fn"};
  size_t elements = size_t{1} << 26;  // 64M elements: far beyond any cache
  int reps = 7;
  bool json = false;
};

int run_bench(const BenchArgs& a) {
  std::string note;
  auto backend = open_backend(a.backend, &note);
  if (!backend) {
    std::fprintf(stderr, "error: %s\n", backend.error().c_str());
    return kExitBadInput;
  }
  if (!note.empty()) std::fprintf(stderr, "note: %s\n", note.c_str());
  CastOptions o;
  if (!parse_rounding(a.rounding.c_str(), &o.rounding)) {
    std::fprintf(stderr, "error: unknown rounding '%s'\n", a.rounding.c_str());
    return kExitBadInput;
  }
  std::vector<FormatRef> refs;
  for (const auto& f : a.formats) {
    auto r = parse_float_format(f);
    if (!r) {
      std::fprintf(stderr, "error: %s\n", r.error().c_str());
      return kExitBadInput;
    }
    refs.push_back(*r);
  }
  DeviceInfo dev = (*backend)->device_info();
  nlohmann::json rows = nlohmann::json::array();
  if (!a.json)
    std::printf("device: %s (%s)  elements: %zu  rounding: %s\n%-16s %12s %12s %8s\n",
                dev.name.c_str(), dev.backend.c_str(), a.elements, rounding_name(o.rounding),
                "format", "convert GB/s", "copy GB/s", "ratio");
  std::string method;
  for (const auto& ref : refs) {
    auto t = (*backend)->time_roundtrip_f32(ref.format, o, a.elements, a.reps);
    if (!t) {
      std::fprintf(stderr, "error: %s: %s\n", ref.name.c_str(), t.error().c_str());
      return kExitFailed;
    }
    method = t->method;
    double ratio = t->convert_gbps / t->copy_gbps;
    rows.push_back({{"format", ref.name}, {"elements", t->elements},
                    {"convert_gbps", t->convert_gbps}, {"copy_gbps", t->copy_gbps},
                    {"ratio", ratio}, {"convert_ms", t->convert_seconds * 1e3},
                    {"copy_ms", t->copy_seconds * 1e3}});
    if (!a.json)
      std::printf("%-16s %12.2f %12.2f %8.2f\n", ref.name.c_str(), t->convert_gbps, t->copy_gbps,
                  ratio);
    std::fflush(stdout);
  }
  if (a.json) {
    nlohmann::json j{{"backend", dev.backend}, {"device", dev.name}, {"method", method},
                     {"rounding", rounding_name(o.rounding)}, {"results", rows}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("method: %s\n", method.c_str());
  }
  return kExitOk;
}

}  // namespace

Runner add_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  app.add_option("--backend", a->backend, "auto | cpu | cuda");
  app.add_option("--formats", a->formats, "Formats to convert through")->delimiter(',');
  app.add_option("--elements", a->elements, "Array length (float32 elements)");
  app.add_option("--reps", a->reps, "Timed repetitions (median reported)")->check(CLI::Range(1, 1000));
  app.add_option("--rounding", a->rounding, "rne | rna | rtz | up | down | stochastic");
  app.add_flag("--json", a->json, "JSON output");
  return [a]() { return run_bench(*a); };
}

Runner add_devices(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  app.add_flag("--json", *json, "JSON output");
  return [json]() {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& n : registered_backends()) {
      auto b = open_backend(n);
      nlohmann::json j{{"backend", n}, {"available", b.ok()}};
      if (b) {
        DeviceInfo d = (*b)->device_info();
        j.update({{"name", d.name}, {"compute_capability", d.compute_capability},
                  {"cores", d.cores}, {"memory_gib", d.memory_gib}, {"runtime", d.runtime}});
      } else {
        j["why_not"] = b.error();
      }
      if (*json) out.push_back(j);
      else if (b) std::printf("%-5s %s %s\n", n.c_str(), j["name"].get<std::string>().c_str(),
                              j["runtime"].get<std::string>().c_str());
      else std::printf("%-5s unavailable: %s\n", n.c_str(), b.error().c_str());
    }
    if (*json) std::cout << out.dump(2) << "\n";
    return kExitOk;
  };
}

}  // namespace pl::cli
