#include "core/dtype/framework_cast_paths.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/dtype/describe.h"

namespace pl {
namespace {

constexpr CastPath kVia = CastPath::ViaFloat32, kOnce = CastPath::Direct;
constexpr PastLargest kInf = PastLargest::Inf, kNaN = PastLargest::NaN, kTop = PastLargest::Largest;
constexpr NaNBecomes kOtherSign = NaNBecomes::ZeroOtherSign;

// Recorded with torch 2.15.0, numpy 2.4.6 and ml_dtypes 0.6.0 and 0.7.0 (PyPI), and with Debian
// 12's python3-torch 1.13.1 and python3-numpy 1.24.2. PyTorch builds c10::Half, BFloat16 and the
// Float8 types from float, and ml_dtypes 0.6.0 converts a double through float, where 0.7.0
// rounds it once; NumPy's own npy_double_to_half rounds once. Past the largest: each a value
// three quarters of a spacing past it, then +inf. A NaN stays one except where the format has
// none: ml_dtypes gives the zero of the other sign there (+NaN becomes -0).
constexpr FrameworkCastPath kPaths[] = {
    {"PyTorch", "2.15", DType::float16, kVia, kInf, kInf},
    {"PyTorch", "2.15", DType::bfloat16, kVia, kInf, kInf},
    {"PyTorch", "2.15", DType::float8_e4m3fn, kVia, kTop, kTop},
    {"PyTorch", "2.15", DType::float8_e5m2, kVia, kInf, kInf},
    {"PyTorch", "2.15", DType::float8_e4m3fnuz, kVia, kNaN, kNaN},
    {"PyTorch", "2.15", DType::float8_e5m2fnuz, kVia, kNaN, kNaN},
    {"PyTorch", "1.13", DType::float16, kVia, kInf, kInf},
    {"PyTorch", "1.13", DType::bfloat16, kVia, kInf, kInf},
    {"NumPy", "2.4", DType::float16, kOnce, kInf, kInf},
    {"NumPy", "1.24", DType::float16, kOnce, kInf, kInf},
    {"ml_dtypes", "0.6.0", DType::bfloat16, kVia, kInf, kInf},
    {"ml_dtypes", "0.6.0", DType::float8_e4m3fn, kVia, kNaN, kNaN},
    {"ml_dtypes", "0.6.0", DType::float8_e5m2, kVia, kInf, kInf},
    {"ml_dtypes", "0.6.0", DType::float8_e4m3fnuz, kVia, kNaN, kNaN},
    {"ml_dtypes", "0.6.0", DType::float8_e5m2fnuz, kVia, kNaN, kNaN},
    {"ml_dtypes", "0.6.0", DType::float8_e4m3, kVia, kInf, kInf},
    {"ml_dtypes", "0.6.0", DType::float8_e3m4, kVia, kInf, kInf},
    {"ml_dtypes", "0.6.0", DType::float6_e2m3fn, kVia, kTop, kTop, kOtherSign},
    {"ml_dtypes", "0.6.0", DType::float6_e3m2fn, kVia, kTop, kTop, kOtherSign},
    {"ml_dtypes", "0.6.0", DType::float4_e2m1fn, kVia, kTop, kTop, kOtherSign},
    {"ml_dtypes", "0.7.0", DType::bfloat16, kOnce, kInf, kInf},
    {"ml_dtypes", "0.7.0", DType::float8_e4m3fn, kOnce, kNaN, kNaN},
    {"ml_dtypes", "0.7.0", DType::float8_e5m2, kOnce, kInf, kInf},
    {"ml_dtypes", "0.7.0", DType::float8_e4m3fnuz, kOnce, kNaN, kNaN},
    {"ml_dtypes", "0.7.0", DType::float8_e5m2fnuz, kOnce, kNaN, kNaN},
    {"ml_dtypes", "0.7.0", DType::float8_e4m3, kOnce, kInf, kInf},
    {"ml_dtypes", "0.7.0", DType::float8_e3m4, kOnce, kInf, kInf},
    {"ml_dtypes", "0.7.0", DType::float6_e2m3fn, kOnce, kTop, kTop, kOtherSign},
    {"ml_dtypes", "0.7.0", DType::float6_e3m2fn, kOnce, kTop, kTop, kOtherSign},
    {"ml_dtypes", "0.7.0", DType::float4_e2m1fn, kOnce, kTop, kTop, kOtherSign},
};

// What a framework does past the largest, in words: "gives inf", "saturates to the largest
// finite, inf too".
std::string overflow_words(const FrameworkCastPath& p) {
  if (p.past_largest == PastLargest::Largest)
    return p.inf == PastLargest::Largest
               ? "saturates to the largest finite, inf too"
               : std::string("saturates to the largest finite, and gives ") + past_largest_name(p.inf) + " for inf";
  std::string s = std::string("gives ") + past_largest_name(p.past_largest);
  if (p.inf != p.past_largest && p.inf != PastLargest::Inf)
    s += std::string(", and ") + (p.inf == PastLargest::Largest ? "the largest finite" : past_largest_name(p.inf)) +
         " for inf";
  return s;
}

// Who does what with a cast into `to`, one sentence per thing done: the rows `keep` takes,
// grouped by `key` (what `words` says, with the framework where each keeps a sentence of its
// own), in the table's order; each group's frameworks once, their releases joined ("PyTorch
// 2.15 and 1.13, ml_dtypes 0.6.0"), and the verb `words` gives in the singular ("rounds once")
// made plural for more than one ("round once").
template <typename Key, typename Words, typename Keep = bool (*)(const FrameworkCastPath&)>
std::string attribution(
    DType to, Key key, Words words, const char* separator, Keep keep = [](const FrameworkCastPath&) { return true; }) {
  struct Group {
    std::string key, subject, words;
    std::string_view last_framework;
    bool plural = false;
  };
  std::vector<Group> groups;
  for (const FrameworkCastPath& p : kPaths) {
    if (p.to != to || !keep(p)) continue;
    const std::string k = key(p);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.key == k; });
    if (g == groups.end()) {
      groups.push_back({k, std::string(p.framework) + " " + std::string(p.release), words(p), p.framework});
      continue;
    }
    if (p.framework == g->last_framework) g->subject += " and " + std::string(p.release);
    else g->subject += ", " + std::string(p.framework) + " " + std::string(p.release);
    g->last_framework = p.framework;
    g->plural = true;
  }
  std::string s;
  for (Group& g : groups) {
    if (g.plural) g.words.erase(g.words.find(' ') - 1, 1);  // "gives" -> "give"
    s += (s.empty() ? "" : separator) + g.subject + " " + g.words;
  }
  return s;
}

}  // namespace

std::span<const FrameworkCastPath> framework_cast_paths() { return kPaths; }

const char* nan_becomes_name(NaNBecomes n) {
  switch (n) {
    case NaNBecomes::NaN: return "nan";
    case NaNBecomes::Zero: return "zero";
    case NaNBecomes::ZeroOtherSign: return "zero-other-sign";
  }
  return "?";
}

const char* past_largest_name(PastLargest p) {
  switch (p) {
    case PastLargest::Inf: return "inf";
    case PastLargest::NaN: return "nan";
    case PastLargest::Largest: return "largest";
  }
  return "?";
}

std::string cast_path_attribution(DType to) {
  return attribution(
      to, [](const FrameworkCastPath& p) { return std::string(cast_path_name(p.path)); },
      [](const FrameworkCastPath& p) {
        return std::string(p.path == kVia ? "rounds twice, through float32" : "rounds once");
      },
      "; ");
}

std::string overflow_attribution(DType to, const char* separator) {
  // Each framework keeps a sentence of its own ("PyTorch 2.15 and 1.13 give inf; NumPy 2.4 and
  // 1.24 give inf").
  return attribution(
      to, [](const FrameworkCastPath& p) { return std::string(p.framework) + ": " + overflow_words(p); }, overflow_words,
      separator);
}

std::string past_largest_note(std::optional<DType> to, const CastReport& r, const char* separator) {
  if (!to) return {};
  // Where rounding to nearest even overflows, whatever the cast asked for: rounding up takes
  // float16's 65505 past 65504, but every framework's cast rounds it to 65504.
  const bool past = std::isinf(r.input) || describe_cast(info(*to).format, r.input, CastOptions{}).flags.overflow;
  return past ? overflow_attribution(*to, separator) : std::string();
}

std::string nan_note(std::optional<DType> to, const CastReport& r, const char* separator) {
  if (!to || !std::isnan(r.input) || info(*to).format.has_nan()) return {};
  // Only the frameworks whose zero is not the codec's.
  return attribution(
      *to, [](const FrameworkCastPath&) { return std::string(); },
      [](const FrameworkCastPath&) {
        return std::string("gives the zero of the other sign (+nan becomes -0, -nan +0)");
      },
      separator, [](const FrameworkCastPath& p) { return p.nan == NaNBecomes::ZeroOtherSign; });
}

}  // namespace pl
