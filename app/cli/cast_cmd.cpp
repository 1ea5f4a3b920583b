// precision-lab cast --to FORMAT [--rounding MODE] [--saturate|--no-saturate] [--seed N]
//                    [--path direct|via-float32] [--daz] [--ftz] [--json] VALUE...
#include <cmath>
#include <cstdio>
#include <iostream>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "core/dtype/codec.h"
#include "core/dtype/describe.h"
#include "core/dtype/framework_cast_paths.h"
#include "core/dtype/int_convert.h"
#include "core/io/json_text.h"
#include "core/util/number_text.h"

namespace pl::cli {
namespace {

struct CastArgs {
  std::string to, rounding = "rne", path;
  bool saturate = false, no_saturate = false, daz = false, ftz = false, json = false;
  std::string int_overflow = "wrap";
  uint64_t seed = 0;
  // The options only a float target reads, and those only an integer target reads.
  std::vector<const CLI::Option*> float_only, int_only;
  const CLI::Option* seed_option = nullptr;
  std::vector<std::string> values;
};

std::string flags_text(const CastFlags& f) {
  std::string s;
  auto add = [&](bool on, const char* n) {
    if (on) s += s.empty() ? n : std::string(", ") + n;
  };
  add(f.inexact, "inexact");
  add(f.overflow, "overflow");
  add(f.saturated, "saturated");
  add(f.underflow, "underflow");
  add(f.nan_to_zero, "nan->zero (format has no NaN)");
  add(f.to_nan, "->nan (no code for the value)");
  add(f.flushed_input, "input flushed (DAZ)");
  add(f.flushed_output, "result flushed (FTZ)");
  return s.empty() ? "exact" : s;
}

// The fields of a format's code, high to low: "sign | exponent 5 bits | mantissa 10 bits";
// float8_e8m0fnu has no sign and no mantissa ("exponent 8 bits; no sign, no mantissa"), and a
// one-bit field is "1 bit".
std::string layout_text(const FloatFormat& f) {
  const auto bits = [](int n) { return std::to_string(n) + (n == 1 ? " bit" : " bits"); };
  std::string s = f.is_signed() ? "sign | " : "";
  s += "exponent " + bits(f.exponent_bits);
  if (f.mantissa_bits > 0) s += " | mantissa " + bits(f.mantissa_bits);
  if (!f.is_signed() || f.mantissa_bits == 0)
    s += std::string("; no ") + (f.is_signed() ? "mantissa" : f.mantissa_bits > 0 ? "sign" : "sign, no mantissa");
  return s;
}

void print_text(const FormatRef& ref, const CastOptions& o, const std::string& input, const CastReport& r,
                const CastReport* via) {
  const FloatFormat& f = ref.format;
  std::printf("input      %s  (float64 %s)\n", input.c_str(), float64_text(r.input).c_str());
  // What the policy does here, asked of the codec: a value of x's sign one ulp past the largest
  // finite, rounded as x is (toward zero it stays the largest finite whatever the policy; fp4 has
  // neither Inf nor NaN to go to).
  const double sign = std::signbit(r.input) ? -1.0 : 1.0, top = max_finite(f), past_top = top + ulp_at(f, top);
  const ExactValue beyond = std::isfinite(past_top) ? ExactValue{sign * past_top, 0, 1} : beyond_float64(sign < 0);
  const double past = decode(f, encode_exact(f, beyond, o).code);
  std::printf("format     %s  rounding %s, overflow %s (one ulp past the largest finite: %s), path %s\n",
              ref.name.c_str(), rounding_name(o.rounding), overflow_name(o.overflow), shortest_double(past).c_str(),
              cast_path_name(o.path));
  const std::string& shown = display_value(r.result);
  std::printf("value      %s\n", shown.c_str());
  if (shown != r.result.value_exact) std::printf("exact      %s\n", r.result.value_exact.c_str());
  if (r.result.value_shortest != r.result.value_exact)
    std::printf("shortest   %s  (shortest decimal that reads back to these bits)\n", r.result.value_shortest.c_str());
  std::printf("bits       %s  = %s  (%s)\n", r.result.bits_hex.c_str(), r.result.bits_binary.c_str(),
              layout_text(f).c_str());
  std::printf("class      %s", value_class_name(r.result.value_class));
  if (f.is_signed()) std::printf("  sign %llu", (unsigned long long)r.result.fields.sign);
  std::printf("  exponent field %llu", (unsigned long long)r.result.fields.exponent);
  if (f.mantissa_bits > 0) std::printf("  mantissa field %llu", (unsigned long long)r.result.fields.mantissa);
  std::printf("\n");
  if (const auto why = no_finite_error(r)) std::printf("error      none finite: %s\n", why->c_str());
  else
    // (Relative to 0 there is no relative error; "nan" would read as a failure of the cast.)
    std::printf("abs error  %s\nrel error  %s\nulp error  %s  (signed: value - x, in ulps of the format at x)\n",
                shortest_double(r.abs_error).c_str(),
                r.input == 0 ? "-  (relative to 0: none)" : shortest_double(r.rel_error).c_str(),
                shortest_double(r.ulp_error).c_str());
  std::printf("flags      %s\n", flags_text(r.flags).c_str());
  if (const std::string who = past_largest_note(ref.dtype, r); !who.empty())
    std::printf("frameworks past the largest finite: %s\n", who.c_str());
  if (const std::string who = nan_note(ref.dtype, r); !who.empty()) std::printf("frameworks nan: %s\n", who.c_str());
  if (via) {
    std::printf("note       through float32 first it becomes %s (%s): double rounding\n",
                display_value(via->result).c_str(), via->result.bits_hex.c_str());
    if (ref.dtype) {
      if (const std::string who = cast_path_attribution(*ref.dtype); !who.empty())
        std::printf("           from float64 to %s: %s\n", std::string(name(*ref.dtype)).c_str(), who.c_str());
    }
  }
}

int cast_to_int(const CastArgs& a, DType to, const std::vector<double>& xs) {
  const IntOverflow mode = parse_int_overflow(a.int_overflow).value_or(IntOverflow::Wrap);  // (checked by the parser)
  if (auto st = check_int_cast(to, mode); !st) {
    std::fprintf(stderr, "error: %s\n", st.error().c_str());
    return kExitBadInput;
  }
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < xs.size(); ++i) {
    IntResult r = float_to_int(to, xs[i], mode);
    std::string v = int_bits_to_string(to, r.bits);
    if (a.json) {
      out.push_back({{"input", a.values[i]},
                     {"value", v},
                     {"bits", r.bits},
                     {"out_of_range", r.out_of_range},
                     {"nan_input", r.nan_input},
                     {"inexact", r.inexact},
                     {"mode", a.int_overflow}});
    } else {
      // (A NaN is no value out of range: said as what it is.)
      std::printf("%s -> %s %s  (%s%s%s)\n", a.values[i].c_str(), std::string(name(to)).c_str(), v.c_str(),
                  mode == IntOverflow::Saturate ? "saturating" : "C cast, x86-64",
                  r.nan_input      ? ", NaN input"
                  : r.out_of_range ? ", out of range"
                                   : "",
                  r.inexact ? ", truncated toward zero" : "");
    }
  }
  if (a.json) std::cout << out.dump(2, ' ', false, io::kReplaceInvalidUtf8) << "\n";
  return kExitOk;
}

int run_cast(CastArgs a) {
  for (auto& v : a.values) v = restore_value(v);
  std::vector<double> xs;
  for (const auto& v : a.values) {
    auto x = parse_number_expression(v);
    if (!x) {
      std::fprintf(stderr, "error: %s\n", x.error().c_str());
      return kExitBadInput;
    }
    xs.push_back(*x);
  }
  const auto t = parse_dtype(a.to);
  const bool to_int = t && (is_integer(*t) || *t == DType::bool_);
  const Expected<FormatRef> ref = to_int ? Expected<FormatRef>(Error{""}) : parse_float_format(a.to);
  if (!to_int && !ref) {  // the target first: a misspelt one is no reason to blame an option
    std::fprintf(stderr, "error: %s\n", ref.error().c_str());
    return kExitBadInput;
  }
  // Options the target's cast does not read are refused, never ignored: an integer target
  // truncates toward zero as a C cast does, and takes --int-overflow alone.
  for (const CLI::Option* o : to_int ? a.float_only : a.int_only) {
    if (o->count() == 0) continue;
    if (to_int && o->get_name().find("saturate") != std::string::npos)
      std::fprintf(stderr, "error: %s is for float targets: a cast to %s takes --int-overflow saturate (or wrap)\n",
                   o->get_name().c_str(), a.to.c_str());
    else if (to_int)
      std::fprintf(stderr, "error: %s is for float targets: a cast to %s %s\n", o->get_name().c_str(), a.to.c_str(),
                   *t == DType::bool_ ? "is true for every nonzero value" : "truncates toward zero, as a C cast does");
    else std::fprintf(stderr, "error: %s is for integer targets, not %s\n", o->get_name().c_str(), a.to.c_str());
    return kExitBadInput;
  }
  if (to_int) return cast_to_int(a, *t, xs);
  CastOptions o;
  if (!parse_rounding(a.rounding.c_str(), &o.rounding)) {
    std::fprintf(stderr, "error: unknown rounding '%s' (%s)\n", a.rounding.c_str(), rounding_names().c_str());
    return kExitBadInput;
  }
  o.overflow = a.saturate ? Overflow::Saturate : a.no_saturate ? Overflow::NonSaturating : Overflow::FormatDefault;
  o.flush_input_subnormals = a.daz;
  o.flush_output_subnormals = a.ftz;
  o.seed = a.seed;
  if (a.seed_option->count() > 0 && o.rounding != Rounding::Stochastic) {
    std::fprintf(stderr, "error: --seed is for --rounding stochastic (the %s rounding draws nothing)\n",
                 rounding_name(o.rounding));
    return kExitBadInput;
  }
  if (!a.path.empty() && !parse_cast_path(a.path.c_str(), &o.path)) return kExitBadInput;  // (the parser refused it)
  // The route through float32 is for formats narrower than it (narrows_through_float32): to a
  // wider one a cast rounds once whatever the route, so "path via-float32" above a float64 never
  // narrowed (1e300, not inf) would say what did not happen. (To float32 itself both routes are one.)
  if (o.path == CastPath::ViaFloat32 && !narrows_through_float32(ref->format, o.path) &&
      ref->dtype != DType::float32) {
    std::fprintf(stderr,
                 "error: --path via-float32 is for formats narrower than float32; a cast to %s rounds once, "
                 "directly\n",
                 a.to.c_str());
    return kExitBadInput;
  }
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < xs.size(); ++i) {
    CastReport r = describe_cast(ref->format, xs[i], o, i);
    // Show the framework route too when the user did not pick one and it differs.
    CastOptions via_o = o;
    via_o.path = CastPath::ViaFloat32;
    CastReport via = describe_cast(ref->format, xs[i], via_o, i);
    bool show_via = a.path.empty() && via.result.code != r.result.code;
    if (a.json) {
      nlohmann::json j = to_json(r, a.values[i]);
      j["format"] = ref->name;
      j["rounding"] = rounding_name(o.rounding);
      j["overflow"] = overflow_name(o.overflow);
      j["path"] = cast_path_name(o.path);
      if (show_via) j["via_float32"] = to_json(via.result);
      if (const std::string who = past_largest_note(ref->dtype, r); !who.empty()) j["frameworks_past_largest"] = who;
      if (const std::string who = nan_note(ref->dtype, r); !who.empty()) j["frameworks_nan"] = who;
      out.push_back(j);
    } else {
      if (i) std::printf("\n");
      print_text(*ref, o, a.values[i], r, show_via ? &via : nullptr);
    }
  }
  if (a.json) std::cout << out.dump(2, ' ', false, io::kReplaceInvalidUtf8) << "\n";
  return kExitOk;
}

}  // namespace

Runner add_cast(CLI::App& app) {
  auto a = std::make_shared<CastArgs>();
  app.add_option("--to", a->to,
                 "Target format: a dtype name (float16, torch.bfloat16, int8, ...) "
                 "or a custom float eXmY[bBIAS][:ieee|fn|fnuz|finite]")
      ->required();
  auto* rounding = add_rounding_option(app, &a->rounding, "the rounding of the cast");
  auto* sat = app.add_flag("--saturate", a->saturate, "Clamp overflow (and Inf) to max finite");
  auto* no_sat =
      app.add_flag("--no-saturate", a->no_saturate,
                   "Overflow to Inf, or NaN where there is no Inf (fp6/fp4 and :finite formats have neither and "
                   "still clamp)")
          ->excludes(sat);
  a->seed_option = app.add_option("--seed", a->seed, "Seed of the stochastic-rounding stream");
  auto* path = add_cast_path_option(
      app, &a->path,
      "direct: one rounding (NumPy, ml_dtypes 0.7); via-float32: through float32 first (PyTorch, ml_dtypes 0.6; "
      "their float8_e8m0fnu casts differ from it: docs/numerics.md)");
  auto* daz = app.add_flag("--daz", a->daz, "Read subnormal inputs as zero");
  auto* ftz = app.add_flag("--ftz", a->ftz, "Flush subnormal results to zero");
  a->float_only = {rounding, sat, no_sat, a->seed_option, path, daz, ftz};
  a->int_only = {
      add_int_overflow_option(app, &a->int_overflow, "integer targets: wrap as a C cast on x86-64, or saturate")};
  app.add_flag("--json", a->json, "One JSON object per value (keys: input, value, bits, ...)");
  app.add_option("values", a->values,
                 "Decimal, hex-float (0x1.8p+3), nan, inf, -inf, -0, or A/B or A*B of two (in float64)")
      ->required();
  return [a]() { return run_cast(*a); };
}

}  // namespace pl::cli
