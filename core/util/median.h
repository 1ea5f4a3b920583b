// The median of timing samples (the upper one of the middle two for an even count), as every
// benchmark in the project reports it. 0 for no samples.
#pragma once

#include <algorithm>
#include <vector>

namespace pl {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The first quartile, the median and the third (nearest rank, as median()); zeros for none.
struct Quartiles {
  double q1 = 0, median = 0, q3 = 0;
};
inline Quartiles quartiles(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 4], v[v.size() / 2], v[(3 * v.size()) / 4]};
}

}  // namespace pl
