#include "app/cli/product_bench.h"

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "core/accumulate/accumulation_spec.h"
#include "core/backend/backend.h"
#include "core/backend/peak_rates.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/experiment/throughput.h"
#include "core/io/json_text.h"

namespace pl::cli {

int run_product_bench(const ProductBenchArgs& a) {
  auto shared = shared_backend(a.backend);
  if (!shared) {
    std::fprintf(stderr, "error: %s\n", shared.error().c_str());
    return kExitFailed;
  }
  Backend& device = *shared->backend;
  const BackendChoice sized_for = parse_backend_choice(device.name()).value_or(a.backend);
  // Every dtype, accumulation and size checked before anything is printed: a bad one after the
  // first rows (--sizes 8 0) would leave a table, or a whole JSON document, above its error.
  std::vector<std::pair<DType, experiment::Accumulation>> runs;
  for (const std::string& dname : a.dtypes) {
    auto t = parse_dtype(dname);
    if (!t) {
      std::fprintf(stderr, "error: --dtypes: %s\n", t.error().c_str());
      return kExitBadInput;
    }
    auto acc = a.accumulate.empty() ? experiment::default_product_accumulation(*t)
                                    : experiment::parse_accumulation(a.accumulate);
    if (!acc) {
      std::fprintf(stderr, "error: %s\n", acc.error().c_str());
      return kExitBadInput;
    }
    for (size_t n : a.sizes)
      if (Status st = experiment::check_product_bench(*t, n, sized_for, *acc); !st) {
        std::fprintf(stderr, "error: %s x %zu: %s\n", dname.c_str(), n, st.error().c_str());
        return kExitBadInput;
      }
    runs.emplace_back(*t, *acc);
  }
  const DeviceInfo info = device.device_info();
  const peak::Part* part = info.peak_part.empty() ? nullptr : peak::find_part(info.peak_part);
  if (!a.json) {
    std::printf("device: %s (%s)%s\n", info.name.c_str(), info.runtime.c_str(),
                shared->note.empty() ? "" : ("  [" + shared->note + "]").c_str());
    std::printf("%-14s %6s %11s %10s %8s  %s\n", "dtype", "n", "median ms", "TFLOP/s", "% peak", "what ran, how timed");
  }
  nlohmann::json rows = nlohmann::json::array();
  bool failed = false;         // an operand the request cannot have
  bool device_failed = false;  // a timing the device could not make
  size_t timed = 0, unsupported = 0;
  for (size_t d = 0; d < runs.size(); ++d) {
    const std::string& dname = a.dtypes[d];
    const auto& [t, acc] = runs[d];
    for (size_t n : a.sizes) {
      // The operands only, sized for the device that times them (8192 and up on a GPU).
      auto bench = experiment::product_bench_operands(t, n, sized_for);
      if (!bench) {  // recorded, and the other sizes and dtypes still run
        std::fprintf(stderr, "error: %s x %zu: %s\n", dname.c_str(), n, bench.error().c_str());
        rows.push_back({{"dtype", dname}, {"n", n}, {"error", bench.error()}});
        failed = true;
        continue;
      }
      const ProductSpec spec{{n, n, n}, t, t, acc, a.fast_accumulation};
      if (Support s = device.supports_product(spec); !s.ok) {
        std::fprintf(stderr, "%s x %zu: not on %s: %s\n", dname.c_str(), n, device.name().c_str(), s.why_not.c_str());
        rows.push_back({{"dtype", dname}, {"n", n}, {"unsupported", s.why_not}});
        ++unsupported;
        continue;
      }
      Expected<ProductTiming> timing = Error{""};
      {
        std::lock_guard lock(*shared->mutex);
        timing = device.time_product(spec, bench->a, bench->b, a.reps, nullptr);
      }
      if (!timing) {
        std::fprintf(stderr, "error: %s x %zu: %s\n", dname.c_str(), n, timing.error().c_str());
        rows.push_back({{"dtype", dname}, {"n", n}, {"error", timing.error()}});
        device_failed = true;
        continue;
      }
      ++timed;
      const double tflops = experiment::product_gflops(n, timing->median) / 1e3;
      const std::string how = timing->method + "; " + timing->clock;
      double peak_tflops = 0;
      if (part)
        if (auto r = peak::fastest_rate(*part, t)) peak_tflops = peak::published_value(*r);
      const double share = peak_tflops > 0 ? 100 * tflops / peak_tflops : 0;
      rows.push_back({{"dtype", dname},
                      {"n", n},
                      {"median_ms", timing->median * 1e3},
                      {"tflops", tflops},
                      // null where no peak is published for the part and dtype (the text's "-"): 0 would read as
                      // a measured zero
                      {"peak_tflops", peak_tflops > 0 ? nlohmann::json(peak_tflops) : nlohmann::json(nullptr)},
                      {"percent_of_peak", peak_tflops > 0 ? nlohmann::json(share) : nlohmann::json(nullptr)},
                      {"native", timing->native},
                      {"seconds", timing->seconds},
                      {"method", how}});
      if (!a.json)
        // Four significant digits: a CPU's rates are hundredths of a TFLOP/s.
        std::printf("%-14s %6zu %11.3f %10.4g %8s  %s\n", dname.c_str(), n, timing->median * 1e3, tflops,
                    share > 0 ? std::to_string(int(share + 0.5)).c_str() : "-", how.c_str());
      std::fflush(stdout);
    }
  }
  if (a.json)
    std::cout << nlohmann::json{{"op", "product"},
                                {"backend", device.name()},
                                {"device", info.name},
                                {"runtime", info.runtime},
                                {"peak_part", info.peak_part},
                                {"fast_accumulation", a.fast_accumulation},
                                {"results", rows}}
                     .dump(2, ' ', false, io::kReplaceInvalidUtf8)
              << "\n";
  else
    std::printf("%s\n", part ? ("% peak: against the published dense rate of " + std::string(part->name) +
                                " for the dtype (core/backend/peak_rates)")
                                   .c_str()
                             : "% peak: - (no published peak for this device: core/backend/peak_rates lists GPUs)");
  if (failed) return kExitBadInput;
  if (device_failed) return kExitFailed;
  // Some rows the device cannot run, said above, beside others it timed: a bench across dtypes.
  // None timed at all is a request this device cannot serve, refused as any other would be.
  if (timed == 0 && unsupported > 0) {
    std::fprintf(stderr, "error: nothing was timed: %s cannot run %s\n", device.name().c_str(),
                 unsupported == 1 ? "the product asked for" : "any of the products asked for");
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace pl::cli
