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

}  // namespace pl
