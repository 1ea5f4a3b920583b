// Turning what a user typed into a dtype or a float format: canonical names,
// aliases, framework spellings (torch.float16, np.half, jnp.bfloat16, ...),
// and run-time custom formats such as "e5m7" or "e4m3b11:fnuz".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl {

// A float format the codec can use: a table row, or a custom format.
struct FormatRef {
  std::optional<DType> dtype;  // empty for a custom format
  FloatFormat format;
  std::string name;  // canonical name, or the normalised custom spelling
};

// Any dtype of the table. The error lists the valid names and suggests the closest.
Expected<DType> parse_dtype(std::string_view text);

// A float format: a Float row of the table, or a custom spelling:
//   e<E>m<M>[b<bias>][:ieee|:fn|:fnuz|:finite]
// bias defaults to 2^(E-1) - 1 and specials to ieee ("finite": every code is a number).
Expected<FormatRef> parse_float_format(std::string_view text);

// A custom spelling's bias when it gives none: 2^(E-1) - 1, IEEE's (exponent_bits in 1..11).
int default_custom_bias(int exponent_bits);

// Checks that a custom format is one the codec represents exactly in float64.
Expected<FloatFormat> make_custom_format(int exponent_bits, int mantissa_bits, int bias, Specials specials);

FormatRef format_ref(DType t);
std::vector<FormatRef> table_float_formats();      // every Float row of the dtype table, in its order
std::vector<std::string> accepted_names(DType t);  // canonical, aliases and framework spellings
std::string closest_dtype_name(std::string_view text);
const char* specials_name(Specials s);
// The specials a custom spelling may end in ("ieee", "fn", "fnuz", "finite"); nullopt otherwise.
std::optional<Specials> parse_custom_specials(std::string_view text);

}  // namespace pl
