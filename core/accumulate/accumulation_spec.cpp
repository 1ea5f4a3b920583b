#include "core/accumulate/accumulation_spec.h"

#include <charconv>
#include <sstream>
#include <vector>

#include "core/dtype/format_lookup.h"
#include "core/util/printable.h"

namespace pl::experiment {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);) out.push_back(part);
  return out;
}

// How each model is written after its format; a model missing here fails the test
// AccumulationSpec.TheGrammarNamesEveryModel.
constexpr std::pair<AccumKind, std::string_view> kModelSyntax[] = {{AccumKind::Sequential, "sequential"},
                                                                   {AccumKind::Pairwise, "pairwise[:BLOCK]"},
                                                                   {AccumKind::Kahan, "kahan"},
                                                                   {AccumKind::Chunked, "chunked[:N]"},
                                                                   {AccumKind::Multiterm, "multiterm[:BLOCK[:EXTRA]]"}};

}  // namespace

std::string accumulation_grammar(bool with_int32) {
  std::string g = with_int32 ? "f64 | i32 | f32:blas | f64:blas" : "f64 | f32:blas | f64:blas";
  for (const auto& [kind, syntax] : kModelSyntax) g.append(" | FMT:").append(syntax);
  g.append(", optionally ending in a rounding (");
  for (int r = 0; r < kRoundingCount; ++r)
    g.append(r ? "|" : "").append(":").append(rounding_name(static_cast<Rounding>(r)));
  return g.append("); FMT: a float dtype or a custom format (e6m9, e4m3b9:fnuz)");
}

Expected<Accumulation> parse_accumulation(const std::string& spec) {
  auto fail = [&](const std::string& why) -> Expected<Accumulation> {
    return Error{"accumulation '" + printable(spec) + "': " + why};
  };
  // The longest model ("e11m52b1023:finite:multiterm:4096:52:stochastic") is far shorter; a
  // longer text is refused before any part is looked up.
  if (spec.size() > 128) return fail("is " + std::to_string(spec.size()) + " characters long, not a model");
  // "bfloat16:" read as bfloat16: an empty part is a typo, not a default.
  if (!spec.empty() && (spec.front() == ':' || spec.back() == ':' || spec.find("::") != std::string::npos))
    return fail("has an empty part between its colons");
  std::vector<std::string> parts = split(spec, ':');
  if (parts.empty()) return fail("empty");
  Accumulation a;
  if (parts.size() > 1 && parse_rounding(parts.back().c_str(), &a.rounding))
    parts.pop_back();  // a trailing rounding mode
  // (Two of them: the first would be read as a size, "'rtz' is not a size".)
  if (Rounding second; parts.size() > 1 && parse_rounding(parts.back().c_str(), &second))
    return fail("gives two roundings: give one, at the end");
  // A custom format's specials follow a ':' too ("e4m3b9:fnuz:kahan"); no model has their names.
  if (parts.size() > 1 && parse_custom_specials(parts[1])) {
    parts[0] += ":" + parts[1];
    parts.erase(parts.begin() + 1);
  }
  auto format = parse_dtype(parts[0]);
  if (!format) return fail(format.error());
  if (*format == DType::int32) {
    if (parts.size() > 1) return fail("int32 accumulation takes no model (i32)");
    a.kind = AccumKind::Int32;
    a.format = DType::int32;
    return a;
  }
  if (*format == DType::float64 && !(parts.size() == 2 && parts[1] == "blas")) {
    if (parts.size() > 1) return fail("float64 accumulation takes no model but blas (f64 alone is the in-order loop)");
    a.kind = AccumKind::Float64;
    a.format = DType::float64;
  } else {
    a.format = *format;
    const auto kind = parse_accum_kind(parts.size() > 1 ? parts[1] : "sequential");
    if (!kind || *kind == AccumKind::Float64) return fail("not a model: " + accumulation_grammar());
    a.kind = *kind;
    if (a.kind == AccumKind::Multiterm) a.block = 16;  // an MMA step's K for 16-bit inputs
    // Digits alone: strtol would also take " 8" and "+8".
    auto number = [&](const std::string& text, long low, long high, long* out) {
      const char* last = text.data() + text.size();
      const auto [end, ec] = std::from_chars(text.data(), last, *out);
      return ec == std::errc{} && end == last && !text.empty() && *out >= low && *out <= high;
    };
    if (parts.size() > 2) {
      long n = 0;
      if (!number(parts[2], 1, 1 << 24, &n)) return fail("'" + parts[2] + "' is not a size in [1, 2^24]");
      if (a.kind == AccumKind::Pairwise || a.kind == AccumKind::Multiterm) a.block = static_cast<int>(n);
      else if (a.kind == AccumKind::Chunked) a.chunk = static_cast<int>(n);
      else return fail("only pairwise, chunked and multiterm take a size");
    }
    if (parts.size() > 3 && a.kind == AccumKind::Multiterm) {
      long extra = 0;
      if (!number(parts[3], 0, 63, &extra)) return fail("'" + parts[3] + "' is not a number of extra bits");
      a.extra_bits = static_cast<int>(extra);
    } else if (parts.size() > 3) {
      return fail("too many ':' parts");
    }
    if (parts.size() > 4) return fail("too many ':' parts");
  }
  // A GEMM library's float16 accumulation is a valid model for matrix products on a device
  // that has one (CUDA); each experiment's own check decides whether it can run it.
  if (auto st = check_product_model(a); !st) return fail(st.error());
  return a;
}

std::string accumulation_spec(const Accumulation& a) {
  std::string s(short_name(a.format));
  switch (a.kind) {
    case AccumKind::Float64: return "f64";
    case AccumKind::Sequential: s += ":sequential"; break;
    case AccumKind::Pairwise: s += ":pairwise:" + std::to_string(a.block); break;
    case AccumKind::Kahan: s += ":kahan"; break;
    case AccumKind::Chunked: s += ":chunked:" + std::to_string(a.chunk); break;
    case AccumKind::Blas: s += ":blas"; break;
    case AccumKind::Int32: return "i32";
    case AccumKind::Multiterm: s += ":multiterm:" + std::to_string(a.block) + ":" + std::to_string(a.extra_bits); break;
  }
  if (a.rounding != Rounding::NearestEven) s += std::string(":") + rounding_name(a.rounding);
  return s;
}

}  // namespace pl::experiment
