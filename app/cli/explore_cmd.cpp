// precision-lab explore VALUE [--format F]... [--rounding MODE] [--saturate|--no-saturate]
//                     [--radius N] [--json] [--out DIR]
// The float explorer on the command line: for each format, what VALUE rounds to, its
// neighbours and the gaps to them, the ulp, and the rounding interval (every real number that
// rounds to the same bits); --out writes each format's number line as PNG/SVG/PDF/CSV, and explore.json.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "core/dtype/describe.h"
#include "core/dtype/format_lookup.h"
#include "core/dtype/neighbourhood.h"
#include "core/export/experiment_export.h"
#include "core/figure/number_line_figure.h"
#include "core/io/json_text.h"
#include "core/util/number_text.h"

namespace pl::cli {
namespace {

struct ExploreArgs {
  std::string value, rounding = "rne", out;
  std::vector<std::string> formats;
  bool saturate = false, no_saturate = false, json = false, force = false;
  int radius = 8;
};

std::string code_text(const FloatFormat& f, std::optional<uint64_t> code) {
  if (!code) return "none";
  const CodeReport r = describe_code(f, *code);
  return display_value(r) + " (" + r.bits_hex + ")";
}

// A gap or an ulp by its own digits, and as the power of two it is: 2^-27 is
// 7.450580596923828125e-09, not its shortest decimal (float16's ulp 2^-24 read
// 5.960464477539063e-08, rounded up).
std::string spacing_text(double g) {
  const std::string power = power_of_two_text(g);
  return float64_text(g) + (power.empty() ? "" : " = " + power);
}

std::string gap_text(double g) { return std::isfinite(g) ? "  gap " + spacing_text(g) : ""; }

constexpr size_t kMaxIntervalChars = 170;  // two ends of up to ~80 digits each print whole (float64 near 1: ~60)

void print_text(const FormatRef& ref, const Neighbourhood& n) {
  const FloatFormat& f = ref.format;
  std::printf("%s\n", ref.name.c_str());
  std::printf("  rounds to  %s%s\n", code_text(f, n.rounded.code).c_str(),
              n.rounded.flags.nan_to_zero ? "  (NaN: the format has none; the zero of its sign)"
              : std::isnan(n.x)           ? ""
              : n.rounded.flags.overflow  ? "  (overflow)"
              : n.rounded.flags.inexact   ? ""
                                          : "  (exact)");
  std::printf("  below      %s%s\n", code_text(f, n.below).c_str(), gap_text(n.gap_below).c_str());
  std::printf("  above      %s%s\n", code_text(f, n.above).c_str(), gap_text(n.gap_above).c_str());
  // (No ulp for a NaN x, or one that rounds to Inf or NaN: the spacing is a finite value's.)
  std::printf("  ulp        %s\n", std::isfinite(n.ulp) ? spacing_text(n.ulp).c_str()
                                   : std::isnan(n.x)    ? "none (x is not a number)"
                                                        : "none (x rounds to inf or nan)");
  if (n.interval) {
    // Every digit, unless an end runs to hundreds of them (a float64 subnormal's midpoint has
    // ~750): then 21 significant digits, and --json keeps every one.
    const std::string exact = interval_text(*n.interval);
    const bool long_ends = exact.size() > kMaxIntervalChars;
    std::printf("  interval   %s%s\n",
                long_ends ? interval_text(*n.interval, 21, decode(f, n.rounded.code)).c_str() : exact.c_str(),
                long_ends ? "  (ends to 21 digits; --json has every digit)" : "");
    std::printf("             %s\n", n.interval->rule.c_str());
  } else {
    std::printf("  interval   none (%s)\n", no_interval_text(f, n).c_str());
  }
}

int run_explore(ExploreArgs a) {
  a.value = restore_value(a.value);
  auto x = parse_number_expression(a.value);
  if (!x) {
    std::fprintf(stderr, "error: %s\n", x.error().c_str());
    return kExitBadInput;
  }
  Rounding rounding;
  if (!parse_rounding(a.rounding.c_str(), &rounding)) {
    std::fprintf(stderr, "error: unknown rounding '%s' (%s)\n", a.rounding.c_str(), rounding_names().c_str());
    return kExitBadInput;
  }
  const Overflow overflow = a.saturate      ? Overflow::Saturate
                            : a.no_saturate ? Overflow::NonSaturating
                                            : Overflow::FormatDefault;
  std::vector<FormatRef> formats = a.formats.empty() ? table_float_formats() : std::vector<FormatRef>{};
  for (const auto& name : a.formats) {
    auto f = parse_float_format(name);
    if (!f) {
      std::fprintf(stderr, "error: --format: %s\n", f.error().c_str());
      return kExitBadInput;
    }
    // Named twice (under any of its names), a format's section would be printed twice, and --out
    // would write one set of files for the two, each over the other.
    if (std::any_of(formats.begin(), formats.end(), [&](const FormatRef& g) { return g.name == f->name; })) {
      std::fprintf(stderr, "error: --format: '%s' names %s twice\n", name.c_str(), f->name.c_str());
      return kExitBadInput;
    }
    formats.push_back(*f);
  }
  // A folder it may not write is refused before anything is printed.
  if (const int st = !a.out.empty() ? output_problem(a.out, a.force) : 0) return st;
  nlohmann::json out = nlohmann::json::array();
  std::vector<figure::Figure> figures;
  if (!a.json)
    std::printf(
        "x = %s  (float64 %s), rounding %s%s, overflow %s\n\n", a.value.c_str(), float64_text(*x).c_str(),
        rounding_name(rounding),
        rounding == Rounding::Stochastic ? " (\"rounds to\" is one draw, seed 0; the interval: every x that may)" : "",
        overflow_name(overflow));
  for (size_t i = 0; i < formats.size(); ++i) {
    const Neighbourhood n = neighbourhood(formats[i].format, *x, rounding, overflow, a.radius);
    out.push_back(to_json(formats[i].format, formats[i].name, n));
    if (!a.json) print_text(formats[i], n), std::printf(i + 1 < formats.size() ? "\n" : "");
    if (!a.out.empty()) figures.push_back(figure::number_line_figure(formats[i].format, formats[i].name, n));
  }
  if (a.json) std::cout << out.dump(2, ' ', false, io::kReplaceInvalidUtf8) << "\n";
  if (!a.out.empty()) {
    // The number lines and explore.json, as the window's export writes them.
    const nlohmann::json record = explore_record(a.value, rounding, overflow, out);
    if (const int status = write_output(a.out, a.force,
                                        [&](const std::string& dir) {
                                          auto s = exporting::save_figures(figures, dir);
                                          if (s) s = exporting::save_json(dir, "explore.json", record);
                                          return s;
                                        });
        status != kExitOk)
      return status;
    std::fprintf(a.json ? stderr : stdout, "%swrote %zu number lines (PNG, SVG, PDF, CSV) and explore.json into %s\n",
                 a.json ? "" : "\n", figures.size(), a.out.c_str());
  }
  return kExitOk;
}

}  // namespace

Runner add_explore(CLI::App& app) {
  auto a = std::make_shared<ExploreArgs>();
  app.add_option("value", a->value,
                 "Decimal, hex-float (0x1.8p+3), nan, inf, -inf, -0, or A/B or A*B of two (in float64)")
      ->required();
  app.add_option("--format", a->formats,
                 "A float format (repeatable; default: every float of the table), "
                 "or a custom eXmY[bBIAS][:ieee|fn|fnuz|finite]");
  add_rounding_option(app, &a->rounding, "the rounding whose interval is shown");
  auto* sat = app.add_flag("--saturate", a->saturate, "Overflow clamps to max finite");
  app.add_flag("--no-saturate", a->no_saturate,
               "Overflow to Inf, or NaN where there is no Inf (fp6/fp4 and :finite formats have neither and "
               "still clamp)")
      ->excludes(sat);
  app.add_option("--radius", a->radius, "Representable values each side on the number line (0-64)")
      ->check(CLI::Range(0, 64));
  app.add_flag("--json", a->json, "One JSON object per format");
  app.add_option("--out", a->out,
                 "Write each format's number line (PNG, SVG, PDF, CSV) and explore.json (the --json objects, "
                 "with x, the rounding and the overflow) into this folder (whole or not at all; an existing folder "
                 "must be empty)");
  app.add_flag("--force", a->force, "replace a non-empty --out folder as a whole");
  return [a]() { return run_explore(*a); };
}

}  // namespace pl::cli
