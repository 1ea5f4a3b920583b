// Counts and maxima over a run of doubles, in loops the compiler vectorises: the quantisation
// recipes and the checkpoint scan run them over every element of every candidate, where scalar
// loops (a compare, a set and a conditional move an element) would cost as much as the rounding.
#pragma once

#include <cstddef>
#include <span>

namespace pl::experiment {

size_t count_zeros(std::span<const double> v);             // x == 0 (either sign)
size_t count_past(std::span<const double> v, double top);  // |x| > top: an Inf counts, a NaN not
double finite_amax(std::span<const double> v);             // the largest finite |x|; 0 when none
// finite_amax of each run of `block` elements of `row` (the last may be shorter), into out[0 ..).
// One call a row: a call a 16- or 32-element block cost more than the maximum itself.
void block_amaxes(std::span<const double> row, size_t block, double* out);

}  // namespace pl::experiment
