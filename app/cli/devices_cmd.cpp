// precision-lab devices [--peaks] [--json]
// The compute backends and their devices (name, compute capability, cores or SMs, memory,
// versions, a GPU's clocks) and, for a GPU the published peak table knows, its peak rate per dtype. --peaks
// prints the whole table with each part's source.
#include <cstdio>
#include <iostream>

#include "app/cli/cli.h"
#include "core/backend/backend.h"
#include "core/backend/peak_rates.h"
#include "core/io/json_text.h"

namespace pl::cli {
namespace {

nlohmann::json rates_json(const peak::Part& p) {
  nlohmann::json rows = nlohmann::json::array();
  for (const peak::Rate& r : p.rates)
    rows.push_back({{"dtype", peak::dtype_label(r)},
                    {"unit", peak::unit_name(r.unit)},
                    {"tflops", peak::published_value(r)},
                    {"derived_tflops", peak::derived_tflops(p, r)},
                    {"ops_per_clock_per_sm", r.ops_per_clock_per_sm},
                    {"clock_mhz", r.clock_mhz}});
  return {{"part", p.name}, {"architecture", p.architecture}, {"sms", p.sms}, {"source", p.source}, {"rates", rows}};
}

void print_rates(const peak::Part& p) {
  std::printf("  %s, %s, %d SMs -- dense peaks (TFLOP/s; TOPS for int8)\n", std::string(p.name).c_str(),
              std::string(p.architecture).c_str(), p.sms);
  for (const peak::Rate& r : p.rates)
    std::printf("    %-10s %-13s %9s   = %d SMs x %5d ops/clock x %d MHz\n", peak::dtype_label(r).c_str(),
                std::string(peak::unit_name(r.unit)).c_str(), std::string(r.published).c_str(), p.sms,
                r.ops_per_clock_per_sm, r.clock_mhz);
  std::printf("    source: %s\n", std::string(p.source).c_str());
}

int list_peaks(bool json) {
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : peak::parts()) out.push_back(rates_json(p));
    std::cout << out.dump(2, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return kExitOk;
  }
  for (const auto& p : peak::parts()) print_rates(p);
  return kExitOk;
}

}  // namespace

Runner add_devices(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto peaks = std::make_shared<bool>(false);
  app.add_flag("--json", *json, "JSON output");
  app.add_flag("--peaks", *peaks, "the published peak rates of every GPU the table knows, with sources");
  return [json, peaks]() {
    if (*peaks) return list_peaks(*json);
    nlohmann::json out = nlohmann::json::array();
    for (const BackendChoice c : registered_backends()) {
      auto b = open_backend(c);
      nlohmann::json j{{"backend", backend_choice_name(c)}, {"available", b.ok()}};
      const peak::Part* part = nullptr;
      if (b) {
        DeviceInfo d = b->backend->device_info();
        j.update({{"name", d.name},
                  {"compute_capability", d.compute_capability},
                  {"cores", d.cores},
                  {"memory_gib", d.memory_gib},
                  {"runtime", d.runtime}});
        if (d.sm_clock_mhz > 0) j.update({{"sm_clock_mhz", d.sm_clock_mhz}, {"memory_clock_mhz", d.memory_clock_mhz}});
        part = peak::find_part(d.peak_part);
        if (part) j["peaks"] = rates_json(*part);
        else j["peaks_note"] = d.peak_note;
      } else {
        j["why_not"] = b.error();
      }
      if (*json) {
        out.push_back(j);
        continue;
      }
      if (!b) {
        std::printf("%-5s unavailable: %s\n", std::string(backend_choice_name(c)).c_str(), b.error().c_str());
        continue;
      }
      const std::string cc = j["compute_capability"].get<std::string>();
      std::printf("%-5s %s%s, %d %s, %.1f GiB\n      %s\n", std::string(backend_choice_name(c)).c_str(),
                  j["name"].get<std::string>().c_str(), cc.empty() ? "" : (", compute capability " + cc).c_str(),
                  j["cores"].get<int>(), cc.empty() ? "threads" : "SMs", j["memory_gib"].get<double>(),
                  j["runtime"].get<std::string>().c_str());
      if (part) print_rates(*part);
      else std::printf("      no published peaks: %s\n", j["peaks_note"].get<std::string>().c_str());
    }
    if (*json) std::cout << out.dump(2, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return kExitOk;
  };
}

}  // namespace pl::cli
