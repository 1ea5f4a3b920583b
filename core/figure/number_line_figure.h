// One format's number line around an explored value (the float explorer): the representable
// values as points, the one the value rounds to, the rounding interval and the value itself.
// The axis counts ulps of the format from the rounded value, so float64's neighbours read as
// plainly as float4's; the subtitle and the CSV give the values themselves.
#pragma once

#include <string>

#include "core/dtype/neighbourhood.h"
#include "core/figure/figure.h"

namespace pl::figure {

Figure number_line_figure(const FloatFormat& f, const std::string& format_name, const Neighbourhood& n);

}  // namespace pl::figure
