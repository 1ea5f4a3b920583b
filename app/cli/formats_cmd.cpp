// precision-lab formats [--json] [--all]
#include <cstdio>
#include <iostream>

#include "app/cli/cli.h"
#include "core/dtype/describe.h"
#include "core/dtype/int_convert.h"

namespace pl::cli {

Runner add_formats(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto all = std::make_shared<bool>(false);
  app.add_flag("--json", *json, "JSON array, one object per format (numbers as JSON numbers)");
  app.add_flag("--all", *all, "Include integer, bool and complex dtypes");
  return [json, all]() {
    nlohmann::json rows = nlohmann::json::array();
    if (!*json)
      std::printf("%-20s %4s %3s %3s %5s %12s %12s %12s %10s %10s %4s %4s %3s %-9s\n", "name", "bits", "e", "m", "bias",
                  "max_finite", "min_normal", "min_subnorm", "epsilon", "unit_round", "inf", "nan", "-0", "overflow");
    for (const auto& row : all_dtypes()) {
      if (row.kind == DTypeKind::Float) {
        nlohmann::json j = format_json(format_ref(row.id));
        if (*json) {
          rows.push_back(j);
          continue;
        }
        const FloatFormat& f = row.format;
        // A format without subnormals (float8_e8m0fnu) has none to list: its smallest positive
        // value is its smallest normal, and the column said it twice.
        char subnormal[16] = "-";
        if (f.has_subnormals()) std::snprintf(subnormal, sizeof subnormal, "%.5g", min_subnormal(f));
        std::printf("%-20s %4d %3d %3d %5d %12.5g %12.5g %12s %10.4g %10.4g %4s %4s %3s %-9s\n",
                    std::string(row.name).c_str(), f.total_bits(), f.exponent_bits, f.mantissa_bits, f.bias,
                    max_finite(f), min_normal(f), subnormal, machine_epsilon(f), unit_roundoff(f),
                    f.has_inf() ? "yes" : "-", f.has_nan() ? "yes" : "-", f.has_negative_zero() ? "yes" : "-",
                    j["overflow_default"].get<std::string>().c_str());
      } else if (*all) {
        // The bits that hold a value (int4: 4, stored in a byte as float4_e2m1fn is).
        nlohmann::json j{{"name", row.name}, {"bits", value_bits(row.id)}};
        if (row.kind == DTypeKind::SignedInt || row.kind == DTypeKind::UnsignedInt || row.kind == DTypeKind::Bool) {
          j["min"] = int_min(row.id);
          j["max"] = int_max(row.id);
        }
        if (*json) rows.push_back(j);
        else
          std::printf("%-20s %4d %s\n", std::string(row.name).c_str(), value_bits(row.id),
                      row.kind == DTypeKind::Complex ? "complex (two floats)" : "integer");
      }
    }
    if (*json) std::cout << rows.dump(2) << "\n";
    return kExitOk;
  };
}

}  // namespace pl::cli
