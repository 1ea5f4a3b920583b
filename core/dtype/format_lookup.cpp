#include "core/dtype/format_lookup.h"

#include "core/dtype/custom_dtype.h"
#include "core/util/edit_distance.h"
#include "core/util/printable.h"

#include <algorithm>
#include <cctype>
// GCC 12 at -O1 (the sanitizer build) warns that libstdc++'s own regex automaton may use an
// uninitialised std::function (a known false positive of its move constructor).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <sstream>

namespace pl {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Framework module prefixes users paste along with the name.
std::string strip_prefix(std::string s) {
  for (std::string_view p : {"torch.", "numpy.", "np.", "jax.numpy.", "jnp.", "ml_dtypes.", "tf.dtypes.experimental.",
                             "tf.dtypes.", "tf.", "dtypes."}) {
    if (s.rfind(p, 0) == 0) return s.substr(p.size());
  }
  return s;
}

std::string valid_names_message() {
  std::ostringstream os;
  os << "valid names:";
  for (const auto& row : all_dtypes()) os << ' ' << row.name;
  return os.str();
}

constexpr const char* kCustomFormats = " and custom float formats such as e5m7, e4m3b11:fnuz";

// e<E>m<M>[b<bias>][:ieee|:fn|:fnuz|:finite] (':' may also be '_' or '-'): nothing when the text
// is not such a spelling, an error when it is one the codec cannot represent.
std::optional<Expected<FloatFormat>> parse_custom_spelling(const std::string& key) {
  static const std::regex kCustom(R"(e(\d+)m(\d+)(?:b(-?\d+))?(?:[:_-](ieee|fn|fnuz|finite))?)");
  std::smatch match;
  if (!std::regex_match(key, match, kCustom)) return std::nullopt;
  // As many digits as were typed: bound them before converting (std::stoi throws past int's
  // range) and before shifting (a bias of 2^(e-1) - 1 for e = 0 would shift by -1).
  auto number = [](const std::string& digits) { return digits.size() > 7 ? 9999999L : std::stol(digits); };
  const long e = number(match[1]), m = number(match[2]);
  if (e < 1 || e > 11 || m > 52)
    return Error{"invalid custom format '" + key + "': exponent bits must be 1..11 and mantissa bits 0..52"};
  // A bias of more than 7 significant digits is refused as typed, with its sign, before it is
  // converted (std::stol throws past long's range).
  if (match[3].matched) {
    const std::string typed = match[3].str();
    const size_t first = typed.find_first_not_of("-0");
    if (first != std::string::npos && typed.size() - first > 7)
      return Error{"invalid custom format '" + key + "': a bias of " + typed +
                   " puts its range far outside float64's, which the codec uses"};
  }
  const long bias = match[3].matched ? std::stol(match[3]) : default_custom_bias(static_cast<int>(e));
  const Specials s = match[4].matched ? *parse_custom_specials(match[4].str()) : Specials::IEEE;
  return make_custom_format(static_cast<int>(e), static_cast<int>(m), static_cast<int>(bias), s);
}

// "half" -> float16 after the extra spellings NumPy/PyTorch use.
const char* extra_alias(std::string_view s) {
  static const std::pair<const char*, const char*> kExtra[] = {
      {"double", "float64"}, {"single", "float32"}, {"float_", "float64"}, {"cfloat", "complex64"},
      {"short", "int16"},    {"long", "int64"},     {"int", "int32"},
  };
  for (auto& [from, to] : kExtra)
    if (s == from) return to;
  return nullptr;
}

}  // namespace

const char* specials_name(Specials s) {
  switch (s) {
    case Specials::IEEE: return "ieee";
    case Specials::FN: return "fn";
    case Specials::FNUZ: return "fnuz";
    case Specials::None: return "finite";
    case Specials::E8M0: return "e8m0";
  }
  return "?";
}

int default_custom_bias(int exponent_bits) { return (1 << (exponent_bits - 1)) - 1; }

std::optional<Specials> parse_custom_specials(std::string_view text) {
  for (Specials s : {Specials::IEEE, Specials::FN, Specials::FNUZ, Specials::None})
    if (text == specials_name(s)) return s;
  return std::nullopt;
}

std::vector<std::string> accepted_names(DType t) {
  const auto& row = info(t);
  std::vector<std::string> out{std::string(row.name)};
  std::istringstream aliases{std::string(row.aliases)};
  for (std::string a; aliases >> a;) out.push_back(a);
  const auto& fw = framework_names(t);
  for (std::string_view n : {fw.torch, fw.numpy, fw.jax, fw.tf})
    if (!n.empty()) out.emplace_back(n);
  return out;
}

std::string closest_dtype_name(std::string_view text) {
  std::string key = strip_prefix(lower(text));
  std::string best;
  size_t best_d = ~size_t{0};
  for (const auto& row : all_dtypes()) {
    for (const auto& n : accepted_names(row.id)) {
      size_t d = edit_distance(key, strip_prefix(lower(n)));
      if (d < best_d) best_d = d, best = std::string(row.name);
    }
  }
  return best;
}

Expected<DType> parse_dtype(std::string_view text) {
  // Refused by length before the did-you-mean search (a 10 MB string would take it seconds);
  // the longest spelling of any dtype or custom format is far shorter.
  constexpr size_t kLongestName = 64;
  // (Said as empty: the nearest name to "" means nothing, "float32:" would be asked about int8.)
  if (text.empty()) return Error{"a dtype name is empty; " + valid_names_message() + kCustomFormats};
  if (text.size() > kLongestName)
    return Error{"'" + printable(text, 40) + "' (" + std::to_string(text.size()) + " characters) is not a dtype name"};
  std::string key = strip_prefix(lower(text));
  if (const char* a = extra_alias(key)) key = a;
  for (const auto& row : all_dtypes())
    for (const auto& n : accepted_names(row.id))
      if (strip_prefix(lower(n)) == key) return row.id;
  if (auto custom = parse_custom_spelling(lower(text))) {
    if (!*custom) return Error{custom->error()};
    return custom_dtype(**custom);  // (a spelling of a table format, "e5m10", is its row)
  }
  return Error{"unknown dtype '" + printable(text) + "'; did you mean '" + closest_dtype_name(text) + "'? " +
               valid_names_message() + kCustomFormats};
}

Expected<FloatFormat> make_custom_format(int e, int m, int bias, Specials s) {
  auto fail = [](const std::string& why) { return Error{"invalid custom format: " + why}; };
  if (e < 1 || e > 11) return fail("exponent bits must be 1..11");
  if (m < 0 || m > 52) return fail("mantissa bits must be 0..52");
  if ((s == Specials::IEEE || s == Specials::FN) && m < 1)
    return fail("ieee and fn formats need at least one mantissa bit to encode NaN");
  if (s == Specials::E8M0 && m != 0) return fail("e8m0-style formats have no mantissa");
  FloatFormat f{e, m, bias, s};
  if (f.total_bits() > 64) return fail("more than 64 bits");
  if (f.emax() > 1023 || f.emin() - m < -1074)
    return fail("its range (2^" + std::to_string(f.emin() - m) + " .. 2^" + std::to_string(f.emax()) +
                ") does not fit in float64, which the codec uses");
  return f;
}

FormatRef format_ref(DType t) { return {t, info(t).format, std::string(info(t).name)}; }

std::vector<FormatRef> table_float_formats() {
  std::vector<FormatRef> out;
  for (const auto& row : all_dtypes())
    if (row.kind == DTypeKind::Float) out.push_back(format_ref(row.id));
  return out;
}

Expected<FormatRef> parse_float_format(std::string_view text) {
  if (auto custom = parse_custom_spelling(lower(text))) {
    if (!*custom) return Error{custom->error()};
    for (const auto& row : all_dtypes())  // a spelling of a table format is that row, as parse_dtype has it
      if (row.kind == DTypeKind::Float && row.format == **custom) return format_ref(row.id);
    return FormatRef{std::nullopt, **custom, custom_format_name(**custom)};
  }
  auto t = parse_dtype(text);
  if (!t) return Error{t.error()};
  if (!is_float(*t))
    return Error{
        "'" + std::string(name(*t)) + "' is not a floating-point format; " +
        "float formats: float64 float32 tf32 float16 bfloat16 float8_* float6_* float4_e2m1fn or a custom eXmY"};
  return format_ref(*t);
}

}  // namespace pl
