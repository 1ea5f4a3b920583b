// libFuzzer target: any text where the app takes a spelling -- a dtype (table names, framework
// spellings, custom eXmY formats), a float format, an accumulation model, a number, a slice. Each parser
// must answer a value or an error; and what it accepts must read back from the name the app
// prints for it (result files, setup.json and the window store those names), or a saved setup
// would not mean what was run. A broken read-back aborts with both texts.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/accumulate/accumulation_spec.h"
#include "core/dtype/custom_dtype.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/io/safetensors.h"
#include "core/util/number_text.h"

namespace {

[[noreturn]] void broken(const char* what, const std::string& input, const std::string& printed,
                         const std::string& why) {
  std::fprintf(stderr, "%s: '%s' printed as '%s', which %s\n", what, input.c_str(), printed.c_str(), why.c_str());
  std::abort();
}

void dtype_reads_back(const std::string& text) {
  auto t = pl::parse_dtype(text);
  if (!t) return;
  const std::string printed(pl::name(*t));
  auto again = pl::parse_dtype(printed);
  if (!again) broken("dtype", text, printed, "does not parse: " + again.error());
  if (*again != *t) broken("dtype", text, printed, "names another dtype");
}

void format_reads_back(const std::string& text) {
  auto f = pl::parse_float_format(text);
  if (!f) return;
  auto again = pl::parse_float_format(f->name);
  if (!again) broken("format", text, f->name, "does not parse: " + again.error());
  if (!(again->format == f->format)) broken("format", text, f->name, "names another format");
}

void accumulation_reads_back(const std::string& text) {
  auto a = pl::experiment::parse_accumulation(text);
  if (!a) return;
  const std::string printed = pl::experiment::accumulation_spec(*a);
  auto again = pl::experiment::parse_accumulation(printed);
  if (!again) broken("accumulation", text, printed, "does not parse: " + again.error());
  if (pl::experiment::accumulation_spec(*again) != printed)
    broken("accumulation", text, printed, "prints as '" + pl::experiment::accumulation_spec(*again) + "'");
}

// Every printed form of a number reads back to the same float64, bit for bit.
void number_reads_back(const std::string& text) {
  auto v = pl::parse_number(text);
  if (!v) return;
  for (const std::string& printed : {pl::shortest_double(*v), pl::hex_float(*v), pl::exact_decimal(*v)}) {
    auto again = pl::parse_number(printed);
    if (!again) broken("number", text, printed, "does not parse: " + again.error());
    if (std::bit_cast<uint64_t>(*again) != std::bit_cast<uint64_t>(*v) && !(*v != *v && *again != *again))
      broken("number", text, printed, "reads as another value");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  dtype_reads_back(text);
  format_reads_back(text);
  accumulation_reads_back(text);
  number_reads_back(text);
  (void)pl::io::parse_slice(text);  // a .safetensors operand's "@R0:R1,C0:C1"
  return 0;
}
