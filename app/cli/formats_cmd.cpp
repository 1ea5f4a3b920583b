// precision-lab formats [--json] [--all]
#include <cstdio>
#include <iostream>

#include "app/cli/cli.h"
#include "core/dtype/describe.h"
#include "core/dtype/int_convert.h"
#include "core/io/json_text.h"
#include "core/util/number_text.h"

namespace pl::cli {

Runner add_formats(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto all = std::make_shared<bool>(false);
  app.add_flag("--json", *json, "JSON array, one object per format (numbers as JSON numbers)");
  app.add_flag("--all", *all, "Include integer, bool and complex dtypes");
  return [json, all]() {
    nlohmann::json rows = nlohmann::json::array();
    if (!*json)
      std::printf("%-20s %4s %3s %3s %5s %15s %15s %15s %14s %14s %4s %4s %3s %-9s\n", "name", "bits", "e", "m", "bias",
                  "max_finite", "min_normal", "min_subnorm", "epsilon", "unit_round", "inf", "nan", "-0", "overflow");
    for (const auto& row : all_dtypes()) {
      if (row.kind == DTypeKind::Float) {
        nlohmann::json j = format_json(format_ref(row.id));
        if (*json) {
          rows.push_back(j);
          continue;
        }
        const FloatFormat& f = row.format;
        // Each limit by its own leading digits: to nearest, float64's largest would read 1.7977e+308,
        // which overflows float64, and float16's epsilon 0.0009766, above 2^-10.
        auto limit = [](double v) { return leading_digits_text(v, 5); };
        // A format without subnormals (float8_e8m0fnu) has none to list: its smallest positive
        // value is its smallest normal, and the column would say it twice.
        const std::string subnormal = f.has_subnormals() ? limit(min_subnormal(f)) : "-";
        std::printf("%-20s %4d %3d %3d %5d %15s %15s %15s %14s %14s %4s %4s %3s %-9s\n", std::string(row.name).c_str(),
                    f.total_bits(), f.exponent_bits, f.mantissa_bits, f.bias, limit(max_finite(f)).c_str(),
                    limit(min_normal(f)).c_str(), subnormal.c_str(), limit(machine_epsilon(f)).c_str(),
                    limit(unit_roundoff(f)).c_str(), f.has_inf() ? "yes" : "-", f.has_nan() ? "yes" : "-",
                    f.has_negative_zero() ? "yes" : "-", j["overflow_default"].get<std::string>().c_str());
      } else if (*all) {
        // The bits that hold a value (int4: 4, stored in a byte as float4_e2m1fn is).
        nlohmann::json j{{"name", row.name}, {"bits", value_bits(row.id)}};
        if (row.kind == DTypeKind::SignedInt || row.kind == DTypeKind::UnsignedInt || row.kind == DTypeKind::Bool) {
          j["min"] = int_min(row.id);
          j["max"] = int_max(row.id);
        }
        if (*json) rows.push_back(j);
        else
          // (The range, as the JSON gives it; bool's 8 bits are its byte, holding false or true.)
          std::printf(
              "%-20s %4d %s\n", std::string(row.name).c_str(), value_bits(row.id),
              row.kind == DTypeKind::Complex ? "complex (two floats)"
              : row.kind == DTypeKind::Bool
                  ? "bool (false or true, a byte each)"
                  : ("integer, " + std::to_string(int_min(row.id)) + " to " + std::to_string(int_max(row.id))).c_str());
      }
    }
    if (*json) std::cout << rows.dump(2, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return kExitOk;
  };
}

}  // namespace pl::cli
