// The k-th smallest of non-negative doubles, by their bits: for non-negative doubles (zeros,
// subnormals and infinities included) the bit patterns order as the values do, so a radix
// selection can narrow the candidates a byte at a time -- count the next byte, keep the one bin
// the rank falls in -- with two linear passes a byte and no data-dependent branches, then
// finish with std::nth_element on the few left.
//
// Why not std::nth_element alone: the error statistics' percentiles select among the members
// of one error key (sign, exponent and four fraction bits alike), 10^5 to 10^6 values at 4096^2,
// where nth_element's partitioning took 4-8 ms of each update (on an H100 machine). (A
// key's members do not all share its 16 leading bits: a negative error whose |e| sits on the
// key's upper edge belongs to it -- error_element.h -- so every byte is read.)
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pl::experiment {

inline double select_nonnegative(std::span<const double> values, size_t rank) {
  constexpr size_t kSmall = 4096;  // few enough for nth_element
  std::vector<double> kept;        // the candidates once narrowed (values until then)
  std::span<const double> now = values;
  for (int shift = 56; shift >= 0 && now.size() > kSmall; shift -= 8) {
    std::array<size_t, 256> count{};
    for (double x : now) ++count[(std::bit_cast<uint64_t>(x) >> shift) & 0xFF];
    size_t bin = 0;
    while (rank >= count[bin]) rank -= count[bin++];
    if (count[bin] == now.size()) continue;  // every candidate shares this byte
    std::vector<double> next;
    next.reserve(count[bin]);
    for (double x : now)
      if (((std::bit_cast<uint64_t>(x) >> shift) & 0xFF) == bin) next.push_back(x);
    kept.swap(next);
    now = kept;
  }
  if (now.data() != kept.data()) kept.assign(now.begin(), now.end());
  std::nth_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(rank), kept.end());
  return kept[rank];
}

}  // namespace pl::experiment
