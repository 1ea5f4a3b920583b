// The answer a scenario's exact checks ask for, computed by the app's own code: a promotion
// engine's outcome, a codec cast, an integer conversion, a running sum, a published GPU peak.
// Each answer is a short text so that the scenario file, the reference script and the screen all spell it alike:
// a dtype name ("float32"), "ExceptionType: message", or a number in its shortest decimal
// spelling ("1.0205078125", "inf", "-56").
#pragma once

#include <atomic>
#include <string>

#include "core/scenario/scenario.h"
#include "core/util/expected.h"

namespace pl::scenario {

// The answer of a Promote, Cast, IntCast, RunningSum, Api or Peak check. Errors: a bad parameter (an
// unknown dtype, framework, op or key), named; "cancelled" once `cancel` is set (a running sum of
// up to 1e8 steps, some seconds, looks at it between its stretches of steps).
Expected<std::string> evaluate_probe(const Check& c, const std::atomic<bool>* cancel = nullptr);

// The check's parameters, checked as evaluate_probe reads them, without its work: a running sum
// takes one step, whatever its count (reading a scenario file runs no long loop).
Status check_probe(const Check& c);

// Whether two answers agree: numbers as numbers (so "65504" and "65504.0" agree; NaN agrees
// with NaN; -0 and 0 differ), anything else as text.
bool same_answer(const std::string& a, const std::string& b);

}  // namespace pl::scenario
