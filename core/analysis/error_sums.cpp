#include "core/analysis/error_sums.h"

#include <limits>

#include "core/util/target_clones.h"

namespace pl::experiment::error_sums {
namespace {

// Elements [i, i + kLanes) into the lanes; finite is the measure's mask (all bits set or none).
inline void reduce_lanes(LaneSums& s, Vd r, Vd ref, Vd e, Vd rel, Vi finite, Vd ulps, Vd top, BitsCap cap) {
  const Vd zero{}, one = splat(1.0), inf = splat(INFINITY), big = splat(std::numeric_limits<double>::max());
  e = select(finite, e, zero);
  rel = select(finite, rel, zero);
  ulps = select(finite, ulps, zero);
  const Vd a = select(finite, ref, zero);
  const Vd abs_r = std::bit_cast<Vd>(std::bit_cast<Vi>(r) & 0x7fffffffffffffff);
  const Vd abs_ref = std::bit_cast<Vd>(std::bit_cast<Vi>(ref) & 0x7fffffffffffffff);
  s.count += finite;  // -1 per element (masks), negated when folded
  s.saturated += finite & (abs_r == top) & (abs_ref > top);
  s.flushed += finite & (r == 0) & (ref != 0);
  s.sum_abs += e;
  s.sum_sq += e * e;
  s.sum_ref_sq += a * a;
  s.sum_rel += rel;
  s.sum_ulp += ulps;
  const Vi capped = finite & (rel <= splat(cap.smallest));
  const Vi between = finite & (rel > splat(cap.smallest)) & (rel < one);
  const Vi rb = std::bit_cast<Vi>(rel);
  s.bits += select(capped, splat(cap.cap), select(between, -LaneSums::exponent_of(rb), zero));
  s.mantissas *= select(between, std::bit_cast<Vd>((rb & 0x000fffffffffffff) | 0x3ff0000000000000), one);
  s.max_abs = vmax(s.max_abs, e);
  s.max_rel = vmax(s.max_rel, rel);
  s.max_ulp = vmax(s.max_ulp, ulps);
  s.min_pos_rel = vmin(s.min_pos_rel, select(rel > 0, rel, inf));
  s.min_pos_ulp = vmin(s.min_pos_ulp, select(ulps > 0, ulps, inf));
  s.top_rel = vmax(s.top_rel, select(rel <= big, rel, zero));
  s.top_ulp = vmax(s.top_ulp, select(ulps <= big, ulps, zero));
}

}  // namespace

PL_CLONES void reduce_block(const double* result, const double* reference, size_t n, const double* e, const double* rel,
                            const double* ulps, const int64_t* finite, double top, BitsCap cap, LaneSums& out) {
  LaneSums s = out;  // a local: kept in registers
  const Vd t = splat(top);
  size_t i = 0;
  auto mask = [](const int64_t* p) {
    Vi v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  for (; i + kLanes <= n; i += kLanes)
    reduce_lanes(s, load(result + i), load(reference + i), load(e + i), load(rel + i), mask(finite + i), load(ulps + i),
                 t, cap);
  if (i < n) {  // the last few, padded with elements that are not finite (they add nothing)
    double pad[5][kLanes]{};
    int64_t f[kLanes]{};
    for (size_t j = 0; i + j < n; ++j) {
      pad[0][j] = result[i + j], pad[1][j] = reference[i + j], pad[2][j] = e[i + j];
      pad[3][j] = rel[i + j], pad[4][j] = ulps[i + j], f[j] = finite[i + j];
    }
    reduce_lanes(s, load(pad[0]), load(pad[1]), load(pad[2]), load(pad[3]), mask(f), load(pad[4]), t, cap);
  }
  s.renormalise();
  out = s;
}

}  // namespace pl::experiment::error_sums
