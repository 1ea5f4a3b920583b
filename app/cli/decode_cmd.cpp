// precision-lab decode --format FORMAT [--json] BITS...
#include <charconv>
#include <cstdio>
#include <iostream>

#include "app/cli/cli.h"
#include "core/dtype/describe.h"
#include "core/io/json_text.h"

namespace pl::cli {
namespace {

// 0x... hex, 0b... binary, or decimal. A code past 64 bits is well formed, only too wide for
// every format, and is said to be so.
Expected<uint64_t> parse_bits(const std::string& s) {
  int base = 10;
  std::string_view d = s;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) base = 16, d.remove_prefix(2);
  else if (d.size() > 2 && d[0] == '0' && (d[1] == 'b' || d[1] == 'B')) base = 2, d.remove_prefix(2);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), v, base);
  if (ec == std::errc::result_out_of_range && end == d.data() + d.size())
    return Error{s + " has more than 64 bits: no format's codes are that wide"};
  if (ec != std::errc() || end != d.data() + d.size() || d.empty())
    return Error{"malformed bit pattern '" + s + "' (use 0x.. hex, 0b.. binary or decimal)"};
  return v;
}

}  // namespace

Runner add_decode(CLI::App& app) {
  auto format = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto bits = std::make_shared<std::vector<std::string>>();
  app.add_option("--format", *format, "Float format of the codes")->required();
  app.add_flag("--json", *json, "One JSON object per code");
  app.add_option("bits", *bits, "Codes: 0x3c00, 0b00111100, or decimal")->required();
  return [format, json, bits]() {
    auto ref = parse_float_format(*format);
    if (!ref) {
      std::fprintf(stderr, "error: %s\n", ref.error().c_str());
      return kExitBadInput;
    }
    std::vector<uint64_t> codes;
    for (const auto& b : *bits) {
      auto c = parse_bits(b);
      if (!c) {
        std::fprintf(stderr, "error: %s\n", c.error().c_str());
        return kExitBadInput;
      }
      if (*c & ~ref->format.code_mask()) {
        std::fprintf(stderr, "error: %s does not fit %s, whose codes have %d bits (at most %s)\n", b.c_str(),
                     ref->name.c_str(), ref->format.total_bits(),
                     describe_code(ref->format, ref->format.code_mask()).bits_hex.c_str());
        return kExitBadInput;
      }
      codes.push_back(*c);
    }
    nlohmann::json out = nlohmann::json::array();
    for (uint64_t c : codes) {
      CodeReport r = describe_code(ref->format, c);
      if (*json) {
        nlohmann::json j = to_json(r);
        j["format"] = ref->name;
        out.push_back(j);
      } else {
        std::printf("%s = %s  %-9s %s\n", r.bits_hex.c_str(), r.bits_binary.c_str(), value_class_name(r.value_class),
                    display_value(r).c_str());
      }
    }
    if (*json) std::cout << out.dump(2, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    return kExitOk;
  };
}

}  // namespace pl::cli
