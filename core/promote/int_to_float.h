// What an integer operand loses when promotion turns it into a float: frameworks promote by
// category (a float dtype beats an integer dtype whatever their widths), so int32 + float32
// computes in float32, where 16777217 is 16777216. One sentence for every engine's rule text.
#pragma once

#include <string>

#include "core/dtype/dtype.h"

namespace pl::promote {

// "float32 holds every integer only up to 2^24 = 16777216, so larger int32 values are
// rounded (16777217 becomes 16777216)", "... and int32 values from 65520 up become inf", or
// "every int8 value converts to float16 exactly". `from` an integer or bool dtype, `to` a
// float dtype; empty for any other pair.
std::string int_to_float_loss(DType from, DType to);

// Whether every value of `from` (an integer or bool dtype) converts to the float dtype `to`
// exactly; false for any other pair.
bool int_to_float_exact(DType from, DType to);

}  // namespace pl::promote
