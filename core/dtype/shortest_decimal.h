// The shortest decimal text of a value in a given format: what the tables and read-outs print.
#pragma once

#include <string>

#include "core/dtype/device/float_format.h"

namespace pl {

// Shortest decimal that reads back (rounded to nearest-even into `f`) as the same code.
std::string shortest_decimal(const FloatFormat& f, double value);

}  // namespace pl
