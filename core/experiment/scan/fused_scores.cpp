// Built with -fno-trapping-math (GCC will not vectorise the counts' comparisons otherwise) and
// for AVX-512 and AVX2 as well (PL_CLONES); it reorders no arithmetic.
#include "core/experiment/scan/fused_scores.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "core/dtype/codec.h"
#include "core/dtype/describe.h"
#include "core/experiment/scan/code_tally.h"
#include "core/experiment/scan/error_lanes.h"
#include "core/quantise/array_counts.h"
#include "core/quantise/scaling.h"
#include "core/util/parallel.h"
#include "core/util/target_clones.h"

namespace pl::experiment {
namespace {

// What a scale does to the elements it covers: s = x * times, or x / over when over is set, or 0
// where `zeros` (a block whose scale is 0); then q(x) = round(s) * back * the row's factor. The
// order of the operations is quantise()'s: its arrays hold round(s), then round(s) * back, then
// that times the row factor (a factor of 1 leaves every bit as it is). A group's elements there
// are x / scale + z with z = 0, which makes a -0 +0: the sign of a zero, which no figure here
// reads (the errors take |q(x) - x|, the counts x == 0), so the sum is left out.
struct Step {
  double times = 1, over = 0, back = 1;
  bool zeros = false;
};

// One candidate over the run: a Step for each `width` elements along a row (the row's last may
// be shorter), row-major, and how its scaled elements are rounded.
struct Plan {
  size_t width = 0, per_row = 1;
  std::vector<Step> steps;
  std::vector<double> row_factor;
  bool is_float = false;
  FloatFormat format{};
  std::optional<NearestEvenRounder> nearest;
  CastOptions cast;            // with a scaled recipe's saturation
  double overflow[2] = {};     // what a finite value past the largest becomes, by sign
  double top = 0, step = 0;    // the largest finite and its ulp: the saturated count
  double lo = 0, hi = 0;       // an integer's range
  bool has_zero = true;
  bool divides = false;        // x / over (NVFP4's and a group's steps), not x * times
  // The register pass's rounding (NearestEvenRounder's): the quantum's exponent is
  // max(e, emin) - mantissa_bits. Rounding with an unbounded exponent takes |s| past the largest
  // (count_scaled's test, and settle_overflows') exactly when |s| is past the midpoint above
  // the largest, or on it where nearest-even rounds up: when |s| > `past`.
  int emin = 0, mantissa_bits = 0;
  double past = 0;  // |s| > past: the saturated
  bool symmetric = true;  // overflow[1] is -overflow[0] (or both are NaN), as the register pass takes
  int element_emax = 0;   // MX's scale exponents
  // Blocks of a power-of-two width, kErrorLanes elements or more, that tile every row, with one
  // row factor for all rows (MX, NVFP4 and groups of 8, 16, ...): element i's Step is
  // i >> width_shift, and every vector of kErrorLanes elements lies in one block.
  bool vector_steps = false;
  int width_shift = 0;
};

double max_value(DType t) { return is_float(t) ? max_finite(info(t).format) : static_cast<double>(int_max(t)); }

size_t plan_width(const Candidate& c, size_t cols) {
  switch (c.scaling.kind) {
    case ScalingKind::MX:
    case ScalingKind::NVFP4: return static_cast<size_t>(scaling_block(c.scaling.kind));
    case ScalingKind::Group: return static_cast<size_t>(c.scaling.group);
    default: return cols;
  }
}

size_t blocks_in(size_t cols, size_t width) { return (cols + width - 1) / width; }

// Row r's amaxes for every width asked (each a multiple of the smallest or the whole row) from
// one read of the row: a wider block's amax is the largest of the narrow blocks it is made of
// (a maximum, the same value taken either way).
void row_amaxes(std::span<const double> row, size_t r, std::map<size_t, std::vector<double>>& amaxes) {
  if (amaxes.empty()) return;
  const size_t cols = row.size(), w0 = amaxes.begin()->first, n0 = blocks_in(cols, w0);
  const double* fine = amaxes.begin()->second.data() + r * n0;
  block_amaxes(row, w0, amaxes.begin()->second.data() + r * n0);
  for (auto& [width, a] : amaxes) {
    const size_t n = blocks_in(cols, width);
    double* out = a.data() + r * n;
    if (width == w0) continue;
    if (width % w0 != 0 && width != cols) {
      block_amaxes(row, width, out);
      continue;
    }
    const size_t per = width == cols ? n0 : width / w0;
    for (size_t j = 0; j < n; ++j) {
      double top = 0;
      for (size_t k = j * per; k < std::min(n0, (j + 1) * per); ++k) top = std::max(top, fine[k]);
      out[j] = top;
    }
  }
}

bool needs_block_amax(ScalingKind k) {
  return k == ScalingKind::PerChannel || k == ScalingKind::MX || k == ScalingKind::NVFP4 || k == ScalingKind::Group;
}

Plan make_plan(const Candidate& c, size_t rows, size_t cols, const CastOptions& o) {
  Plan p;
  p.width = std::min(plan_width(c, cols), cols);
  p.per_row = blocks_in(cols, p.width);
  p.steps.resize(rows * p.per_row);
  p.row_factor.assign(rows, 1.0);
  p.is_float = is_float(c.dtype);
  p.divides = c.scaling.kind == ScalingKind::NVFP4 || c.scaling.kind == ScalingKind::Group;
  const bool one_factor = c.scaling.kind == ScalingKind::MX || p.divides;
  p.vector_steps =
      one_factor && p.width < cols && p.width % kErrorLanes == 0 && std::has_single_bit(p.width) && cols % p.width == 0;
  p.width_shift = std::countr_zero(p.width);
  p.cast = o;
  if (c.scaling.kind != ScalingKind::None) p.cast.overflow = Overflow::Saturate;  // as quantise's rounder
  if (p.is_float) {
    p.format = info(c.dtype).format;
    p.nearest.emplace(p.format);
    p.overflow[0] = decode(p.format, encode(p.format, std::numeric_limits<double>::max(), p.cast).code);
    p.overflow[1] = decode(p.format, encode(p.format, -std::numeric_limits<double>::max(), p.cast).code);
    p.symmetric = p.overflow[1] == -p.overflow[0] || (std::isnan(p.overflow[0]) && std::isnan(p.overflow[1]));
    p.top = max_finite(p.format);
    p.element_emax = p.format.emax();
    p.step = ulp_at(p.format, p.top);
    p.has_zero = p.format.has_zero();
    p.emin = p.format.emin();
    p.mantissa_bits = p.format.mantissa_bits;
    const double mid = p.top + p.step / 2;  // (exact: the step is the largest's ulp)
    const bool mid_rounds_up = static_cast<uint64_t>(p.top / p.step) % 2 == 1;
    p.past = mid_rounds_up ? std::nextafter(mid, 0.0) : mid;
  } else {  // the symmetric range [-qmax, qmax] every integer recipe here takes
    p.hi = static_cast<double>(int_max(c.dtype));
    p.lo = -p.hi;
  }
  return p;
}

// Row r's steps from the amax of each of its blocks (of the plan's width).
void fill_steps(const Candidate& c, Plan& p, size_t r, const double* block_amax, double tensor_amax) {
  Step* steps = p.steps.data() + r * p.per_row;
  switch (c.scaling.kind) {
    case ScalingKind::None: break;
    case ScalingKind::PerTensor:
    case ScalingKind::PerChannel: {
      const double amax = c.scaling.kind == ScalingKind::PerTensor ? tensor_amax : block_amax[0];
      const double scale = amax_scale(max_value(c.dtype), amax);
      steps[0].times = scale;
      p.row_factor[r] = amax_scale_inverse(scale);
      break;
    }
    case ScalingKind::MX:
      for (size_t b = 0; b < p.per_row; ++b) {
        const int e = mx_scale_exponent(p.element_emax, block_amax[b]);
        steps[b].times = pow2_bits(-e);  // (|e| <= 127: normal doubles, as std::ldexp gives)
        steps[b].back = pow2_bits(e);
      }
      break;
    case ScalingKind::NVFP4: {
      const double encode = amax_scale(448.0 * 6.0, tensor_amax);
      const double decode = amax_scale_inverse(encode);
      p.row_factor[r] = decode;
      for (size_t b = 0; b < p.per_row; ++b) {
        const double scale = nvfp4_block_scale(block_amax[b], encode);
        steps[b] = Step{.times = 1, .over = scale * decode, .back = scale, .zeros = !(scale > 0)};
      }
      break;
    }
    case ScalingKind::Group:
      for (size_t b = 0; b < p.per_row; ++b) {
        const double scale = group_scale(block_amax[b], p.hi);
        steps[b] = Step{.times = 1, .over = scale, .back = scale, .zeros = !(scale > 0)};
      }
      break;
    default: break;  // (fused_pass_takes refuses the others)
  }
}

// The stretches of [b, e) that one Step covers, walked without a division a stretch (MX's
// blocks make 128 stretches of a block of elements). Always inlined: the loops over a stretch
// must be compiled for each of PL_CLONES's targets with the function they are in.
class Stretches {
 public:
  Stretches(size_t b, size_t e, size_t cols, const Plan& p)
      : i_(b), e_(e), cols_(cols), width_(p.width), per_row_(p.per_row), row_(b / cols), col_(b % cols),
        block_(col_ / width_) {}
  // The next stretch [i0, i1), its Step's index and its row; false when there is none.
  [[gnu::always_inline]] bool next(size_t& i0, size_t& i1, size_t& step, size_t& row) {
    if (i_ >= e_) return false;
    const size_t block_end = std::min(cols_, (block_ + 1) * width_);
    i0 = i_;
    i1 = std::min(e_, i_ + (block_end - col_));
    step = row_ * per_row_ + block_;
    row = row_;
    col_ += i1 - i0;
    i_ = i1;
    if (col_ == cols_) {
      col_ = 0, block_ = 0, ++row_;
    } else {
      ++block_;
    }
    return true;
  }

 private:
  size_t i_, e_, cols_, width_, per_row_, row_, col_, block_;
};

// s = each Step's scaling of x over [b, e), into s[0, e - b).
PL_CLONES void scale_elements(const Plan& p, const double* __restrict x, size_t b, size_t e, size_t cols,
                              double* __restrict s) {
  Stretches walk(b, e, cols, p);
  for (size_t i0, i1, k, row; walk.next(i0, i1, k, row);) {
    const Step st = p.steps[k];
    const double* __restrict from = x + i0;
    double* __restrict to = s + (i0 - b);
    const size_t m = i1 - i0;
    if (st.zeros) {
      for (size_t j = 0; j < m; ++j) to[j] = 0;
    } else if (st.over != 0) {
      for (size_t j = 0; j < m; ++j) to[j] = from[j] / st.over;
    } else {
      for (size_t j = 0; j < m; ++j) to[j] = from[j] * st.times;
    }
  }
}

// q = r * back * the row's factor over [b, e) (r and q indexed from b). Returns the zeros in r.
PL_CLONES size_t dequantise(const Plan& p, const double* __restrict r, size_t b, size_t e, size_t cols,
                            double* __restrict q) {
  size_t zeros = 0;
  Stretches walk(b, e, cols, p);
  for (size_t i0, i1, k, row; walk.next(i0, i1, k, row);) {
    const double back = p.steps[k].back, factor = p.row_factor[row];
    const double* __restrict from = r + (i0 - b);
    double* __restrict to = q + (i0 - b);
    for (size_t j = 0; j < i1 - i0; ++j) {
      to[j] = from[j] * back * factor;
      zeros += static_cast<size_t>(from[j] == 0);
    }
  }
  return zeros;
}

// round_integers in scaling.cpp: nearest even, clamped to [lo, hi], the out-of-range counted.
PL_CLONES size_t integers(const double* s, size_t n, double lo, double hi, double* r) {
  size_t saturated = 0;
  for (size_t i = 0; i < n; ++i) {
    const double v = std::nearbyint(s[i]);
    saturated += v < lo || v > hi;
    r[i] = v < lo ? lo : hi < v ? hi : v;  // std::clamp's choice (a NaN stays NaN)
  }
  return saturated;
}

struct ScaledCounts {
  size_t saturated = 0, zeros = 0;
};

// quantise()'s counts before rounding: the zeros, and the saturated: |s| past the largest finite
// where rounding with an unbounded exponent would not come back down to it (`step` the
// largest's ulp, a power of two, so the product with its inverse is scaling.cpp's quotient). A
// loop the compiler vectorises: many MX blocks hold an element scaled past the largest (a block's
// amax scales into [2^emax, 2^(emax+1)), which goes past the largest finite).
PL_CLONES ScaledCounts count_scaled(const double* s, size_t n, double top, double step, double inverse_step) {
  size_t saturated = 0, zeros = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = std::fabs(s[i]);
    saturated += static_cast<size_t>((a > top) & (std::nearbyint(a * inverse_step) * step > top));
    zeros += static_cast<size_t>(s[i] == 0);
  }
  return {saturated, zeros};
}

// What NearestEvenRounder::block left to the codec, for s finite: a rounded value past the
// largest, which becomes what the codec makes of the largest double of its sign (round_each's
// shortcut). Returns how many s are Inf or NaN: those the codec itself takes.
PL_CLONES size_t settle_overflows(const double* s, size_t n, double largest, double up, double down, double* r) {
  size_t left = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool finite = std::fabs(s[i]) <= DBL_MAX;
    r[i] = (finite & (std::fabs(r[i]) > largest)) ? (s[i] < 0 ? down : up) : r[i];
    left += static_cast<size_t>(!finite);
  }
  return left;
}

struct Buffers {
  std::vector<double> scaled, rounded, copy;
  std::vector<uint8_t> defer;
  Buffers() : scaled(kSumBlock), rounded(kSumBlock), copy(kSumBlock), defer(kSumBlock) {}
};

// The register pass: each element stays in registers from its scaling to the error sums,
// kErrorLanes at a time, one candidate over a sub-block of kSubBlock elements and then the next
// while the sub-block is in the core's first cache. Its arithmetic gives the staged functions'
// bits, lane by lane, by equivalent steps: nearest-even on |s| with the sign put back, an
// integer's rounding as (|s| + 2^52) - 2^52 below 2^52 (nearbyint's answer there), and one
// comparison with `past` for both the saturated count and the overflow fix-up. The sums are
// error_lanes.h's, in its order. What it cannot take -- an error sum that is not finite (an Inf
// or a NaN in x, or an overflow to NaN) -- it leaves to the staged functions for the whole block,
// and a format whose overflow is not symmetric for every block.
constexpr size_t kSubBlock = 512;
static_assert(kSumBlock % kSubBlock == 0 && kSubBlock % kErrorLanes == 0);

struct LaneStep {  // a Step and its row's factor in each lane
  Lanes times, over, back, factor;
  LaneMask zeros;
};

// A Step in lane l. For a plan that divides, s = (x / over) * times with one of the two set to 1
// (exact), as scale_elements divides where `over` is set and multiplies elsewhere; its Steps'
// `times` are all 1 (fill_steps), so lane_copy leaves the product out.
void set_lane(LaneStep& ls, size_t l, const Plan& p, const Step& st, double factor) {
  const bool divide = p.divides && st.over != 0;
  ls.times[l] = divide ? 1.0 : st.times;
  ls.over[l] = divide ? st.over : 1.0;
  ls.back[l] = st.back;
  ls.factor[l] = factor;
  ls.zeros[l] = st.zeros ? -1 : 0;
}

LaneStep every_lane(const Plan& p, const Step& st, double factor) {
  const bool divide = p.divides && st.over != 0;
  const Lanes zero{};
  return {zero + (divide ? 1.0 : st.times), zero + (divide ? st.over : 1.0), zero + st.back, zero + factor,
          LaneMask{} + (st.zeros ? -1ll : 0ll)};
}

// One candidate's over a block, carried from sub-block to sub-block. The two counts share a
// lane's 64 bits, the saturated in the low 32 and the flushed in the high (a lane takes at most
// kSumBlock / kErrorLanes elements): on AVX2 each count of its own would take two of the sixteen
// vector registers, and the loop would keep its sums in memory.
struct LaneSums {
  ErrorLanes errors;
  LaneMask counts{};
};

constexpr int kFlushedShift = 32;
static_assert(kSumBlock / kErrorLanes < (1ull << kFlushedShift));

// One vector's copies: q(x) = round(s) * back * the row's factor, and what the counts read.
// Where x is an Inf or a NaN, so is q - x whatever q is, and the error sums are not finite. A
// finite x that scales past the largest double needs no check: only a scaled recipe can take it
// there, and it saturates, so the codec makes of the Inf what it makes of any value past the
// largest, `overflow`, as here (the staged functions ask the codec).
struct LaneCopy {
  Lanes q;
  LaneMask past, flushed;  // -1 where true
};

// The rounding works on |s| and gives the sign back at the end: nearest-even is symmetric, and
// so is what a finite value past the largest becomes (make_plan checks).
template <bool kFloat, bool kDivides>
[[gnu::always_inline]] inline LaneCopy lane_copy(const Plan& p, Lanes x, const LaneStep& st) {
  const Lanes zero{};
  LaneCopy c;
  Lanes s = kDivides ? x / st.over : x * st.times;
  s = lanes_of(bits_of(s) & ~st.zeros);
  const Lanes a = abs_of(s);
  const LaneMask sign = bits_of(s) & (1ll << 63);
  Lanes rounded;  // |round(s)|, past the largest made what the plan says
  if constexpr (kFloat) {
    c.past = a > p.past;
    // The quantum's biased exponent is max(that of s, emin's) - mantissa_bits; down and up are
    // 2^-q and 2^q (NearestEvenRounder's arithmetic on |s|).
    const LaneMask biased = bits_of(a) >> 52;
    const LaneMask floor = LaneMask{} + (p.emin + 1023);
    const LaneMask qb = select(biased > floor, biased, floor);
    const Lanes down = lanes_of((2046 + p.mantissa_bits - qb) << 52);
    const Lanes up = lanes_of((qb - p.mantissa_bits) << 52);
    const Lanes magic = zero + 6755399441055744.0;  // 1.5 * 2^52: integers are its ulps
    const Lanes y = ((a * down + magic) - magic) * up;
    rounded = select(c.past, zero + p.overflow[0], y);
  } else {
    const Lanes big = zero + 4503599627370496.0;  // 2^52: from here on every double is whole
    const Lanes whole = select(a < big, (a + big) - big, a);
    const Lanes hi = zero + p.hi;  // the range is [-hi, hi]
    c.past = whole > hi;
    rounded = select(c.past, hi, whole);
  }
  // The flushed: zero after rounding, less zero before (a zero stays zero, so the difference is
  // -1 or 0; GCC would take the lanes of the two comparisons' conjunction apart one by one).
  c.flushed = (rounded == zero) - (a == zero);
  const Lanes r = lanes_of(bits_of(rounded) | sign);
  c.q = r * st.back * st.factor;
  return c;
}

template <bool kFloat, bool kDivides>
[[gnu::always_inline]] inline void lane_step(const Plan& p, Lanes x, const LaneStep& st, LaneSums& sums) {
  const LaneCopy c = lane_copy<kFloat, kDivides>(p, x, st);
  sums.counts -= c.past;
  sums.counts -= c.flushed << kFlushedShift;
  sums.errors.add(c.q, x);
}

// Elements [b, e) of the run (b - the block's start a multiple of kErrorLanes) into `sums`.
template <bool kFloat, bool kDivides>
[[gnu::always_inline]] inline void lanes_over(const Plan& p, const double* x, size_t b, size_t e, size_t cols,
                                              LaneSums& into) {
  LaneSums sums = into;  // (a local copy: stores through `into` could alias x and force reloads)
  if (p.vector_steps) {  // (b is a multiple of kErrorLanes, and so is every row: no partial vector)
    const double factor = p.row_factor[0];
    for (size_t i = b; i < e; i += kErrorLanes)
      lane_step<kFloat, kDivides>(p, load_lanes(x + i), every_lane(p, p.steps[i >> p.width_shift], factor), sums);
    into = sums;
    return;
  }
  LaneStep partial{};  // the lanes of a vector that stretches share, filled as they come
  Stretches walk(b, e, cols, p);
  for (size_t i0, i1, k, row; walk.next(i0, i1, k, row);) {
    const Step& st = p.steps[k];
    const double factor = p.row_factor[row];
    size_t i = i0;
    while (i < i1 && ((i - b) % kErrorLanes != 0 || i1 - i < kErrorLanes)) {
      set_lane(partial, (i - b) % kErrorLanes, p, st, factor);
      if (++i, (i - b) % kErrorLanes == 0) lane_step<kFloat, kDivides>(p, load_lanes(x + i - kErrorLanes), partial, sums);
    }
    if (i < i1) {
      const LaneStep whole = every_lane(p, st, factor);
      for (; i + kErrorLanes <= i1; i += kErrorLanes) lane_step<kFloat, kDivides>(p, load_lanes(x + i), whole, sums);
      for (; i < i1; ++i) set_lane(partial, (i - b) % kErrorLanes, p, st, factor);
    }
  }
  if (const size_t left = (e - b) % kErrorLanes; left != 0) {  // padded with zeros in steps of zeros
    Lanes xv{};
    for (size_t l = 0; l < kErrorLanes; ++l) {
      if (l < left) {
        xv[l] = x[e - left + l];
      } else {
        partial.times[l] = partial.over[l] = partial.back[l] = partial.factor[l] = 1;
        partial.zeros[l] = -1;
      }
    }
    lane_step<kFloat, kDivides>(p, xv, partial, sums);
  }
  into = sums;
}

PL_CLONES void lanes_for(const Plan& p, const double* x, size_t b, size_t e, size_t cols, LaneSums& sums) {
  if (p.is_float) {
    if (p.divides) lanes_over<true, true>(p, x, b, e, cols, sums);
    else lanes_over<true, false>(p, x, b, e, cols, sums);
  } else {
    if (p.divides) lanes_over<false, true>(p, x, b, e, cols, sums);
    else lanes_over<false, false>(p, x, b, e, cols, sums);
  }
}

// The block's score from the register pass, or nothing where it leaves the block to the stages.
std::optional<FusedScore> lane_score(const Plan& p, const LaneSums& sums) {
  if (!p.symmetric) return std::nullopt;
  FusedScore out;
  out.errors = sums.errors.fold();
  if (!std::isfinite(out.errors.e2)) return std::nullopt;
  for (size_t l = 0; l < kErrorLanes; ++l) {
    const long long counts = sums.counts[l];
    out.saturated += static_cast<size_t>(counts & 0xffffffffll);
    if (p.has_zero) out.flushed += static_cast<size_t>(counts >> kFlushedShift);
  }
  return out;
}

// The staged functions: one candidate over elements [b, e) of the run (e - b <= kSumBlock).
FusedScore score_block(const Plan& p, const double* x, size_t b, size_t e, size_t cols, Buffers& buf) {
  const size_t n = e - b;
  double* s = buf.scaled.data();
  double* r = buf.rounded.data();
  double* q = buf.copy.data();
  scale_elements(p, x, b, e, cols, s);
  FusedScore out;
  size_t zeros_before = 0;
  if (p.is_float) {
    const ScaledCounts c = count_scaled(s, n, p.top, p.step, 1 / p.step);
    out.saturated = c.saturated;
    zeros_before = c.zeros;
    if (p.nearest->block(s, n, r, buf.defer.data()) && settle_overflows(s, n, p.top, p.overflow[0], p.overflow[1], r))
      for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(s[i])) r[i] = decode(p.format, encode(p.format, s[i], p.cast).code);
  } else {
    zeros_before = count_zeros({s, n});
    out.saturated = integers(s, n, p.lo, p.hi, r);
  }
  const size_t zeros_after = dequantise(p, r, b, e, cols, q);
  if (p.has_zero) out.flushed = zeros_after - zeros_before;
  out.errors = block_errors(q, x + b, n);
  return out;
}

// A tally's pairs (code_tally.h), each a row of one element with its own block amax, their
// errors weighted by their counts and summed in lanes of eight folded in order. Nothing where a
// copy is not finite.
template <bool kFloat>
std::optional<FusedScore> weighted_score(const Plan& p, const CodeTally& t) {
  const size_t n = t.values.size();
  const Lanes zero{};
  Lanes e2{}, max_abs{}, max_rel{}, saturated{}, flushed{};
  for (size_t i = 0; i < n; i += kErrorLanes) {
    LaneStep st{};
    Lanes w{};
    for (size_t l = 0; l < kErrorLanes; ++l) {
      if (i + l < n) {
        set_lane(st, l, p, p.steps[i + l], p.row_factor[i + l]);
        w[l] = t.counts[i + l];
      } else {  // padding: a zero in a step of zeros, counted no times
        st.times[l] = st.over[l] = st.back[l] = st.factor[l] = 1;
        st.zeros[l] = -1;
      }
    }
    const Lanes x = load_lanes(t.values.data() + i, n - i, 0.0);
    const LaneCopy c = lane_copy<kFloat, false>(p, x, st);
    const Lanes d = abs_of(c.q - x), ax = abs_of(x);
    e2 += d * d * w;
    max_abs = select(d > max_abs, d, max_abs);
    const Lanes rel = select(ax > zero, d / ax, zero);
    max_rel = select(rel > max_rel, rel, max_rel);
    saturated += select(c.past, w, zero);
    flushed += select(c.flushed, w, zero);
  }
  FusedScore out;
  double saturated_total = 0, flushed_total = 0;
  for (size_t l = 0; l < kErrorLanes; ++l) {
    out.errors.e2 += e2[l];
    out.errors.max_abs = std::max<double>(out.errors.max_abs, max_abs[l]);
    out.errors.max_rel = std::max<double>(out.errors.max_rel, max_rel[l]);
    saturated_total += saturated[l];
    flushed_total += flushed[l];
  }
  if (!std::isfinite(out.errors.e2)) return std::nullopt;
  out.saturated = static_cast<size_t>(saturated_total);
  if (p.has_zero) out.flushed = static_cast<size_t>(flushed_total);
  return out;
}

}  // namespace

bool fused_pass_takes(const Candidate& c, const CastOptions& o) {
  if (o.rounding != Rounding::NearestEven || o.path != CastPath::Direct || o.flush_input_subnormals ||
      o.flush_output_subnormals)
    return false;
  switch (c.scaling.kind) {
    case ScalingKind::None:
    case ScalingKind::PerTensor:
    case ScalingKind::PerChannel:
    case ScalingKind::MX:
    case ScalingKind::NVFP4: break;
    case ScalingKind::Group: return info(c.dtype).kind == DTypeKind::SignedInt && value_bits(c.dtype) <= 16;
    default: return false;
  }
  if (is_float(c.dtype)) return nearest_fast_path_applies(info(c.dtype).format);
  // The integers whose range is symmetric, [-qmax, qmax]: groups' signed ones, and int8 and int4
  // scaled per tensor or per channel (scaling.cpp's symmetric_int).
  if (c.scaling.kind == ScalingKind::Group) return true;
  return c.scaling.kind != ScalingKind::None && (c.dtype == DType::int8 || c.dtype == DType::int4);
}

std::vector<FusedScore> fused_scores(std::span<const double> x, size_t rows, size_t cols, double tensor_amax,
                                     std::span<const Candidate> candidates, const CastOptions& o) {
  const size_t k = candidates.size();
  std::vector<Plan> plans;
  plans.reserve(k);
  // Each block width's amaxes (a row's, MX's 32, NVFP4's 16, a group's), read once for every
  // candidate that takes them.
  std::map<size_t, std::vector<double>> amaxes;
  for (const Candidate& c : candidates) {
    plans.push_back(make_plan(c, rows, cols, o));
    if (needs_block_amax(c.scaling.kind)) amaxes[plans.back().width].resize(rows * plans.back().per_row);
  }
  parallel_for(
      rows, 0,
      [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r) {
          const std::span<const double> row = x.subspan(r * cols, cols);
          row_amaxes(row, r, amaxes);
          for (size_t i = 0; i < k; ++i) {
            const Plan& p = plans[i];
            const auto found = amaxes.find(p.width);
            const double* block_amax = found == amaxes.end() ? nullptr : found->second.data() + r * p.per_row;
            fill_steps(candidates[i], plans[i], r, block_amax, tensor_amax);
          }
        }
      },
      rows_worth_a_thread(cols));

  const size_t n = rows * cols, blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<FusedScore> parts(blocks * k);
  parallel_for(
      blocks, 0,
      [&](size_t b0, size_t b1) {
        Buffers buf;
        std::vector<LaneSums> sums(k);
        for (size_t b = b0; b < b1; ++b) {
          const size_t begin = b * kSumBlock, end = std::min(n, begin + kSumBlock);
          std::fill(sums.begin(), sums.end(), LaneSums{});
          for (size_t sub = begin; sub < end; sub += kSubBlock)
            for (size_t i = 0; i < k; ++i)
              if (plans[i].symmetric) lanes_for(plans[i], x.data(), sub, std::min(end, sub + kSubBlock), cols, sums[i]);
          for (size_t i = 0; i < k; ++i) {
            const std::optional<FusedScore> lane = lane_score(plans[i], sums[i]);
            parts[b * k + i] = lane ? *lane : score_block(plans[i], x.data(), begin, end, cols, buf);
          }
        }
      },
      4);
  std::vector<FusedScore> total(k);
  for (size_t b = 0; b < blocks; ++b)
    for (size_t i = 0; i < k; ++i) {
      const FusedScore& p = parts[b * k + i];
      total[i].errors.add(p.errors);
      total[i].saturated += p.saturated;
      total[i].flushed += p.flushed;
    }
  return total;
}

}  // namespace pl::experiment

namespace pl::experiment {

std::vector<std::optional<FusedScore>> tallied_scores(const CodeTally& t, double tensor_amax,
                                                      std::span<const Candidate> candidates, const CastOptions& o) {
  const size_t n = t.values.size();
  std::vector<std::optional<FusedScore>> out;
  for (const Candidate& c : candidates) {
    Plan p = make_plan(c, n, 1, o);  // each pair a row of one element: its own MX block
    for (size_t i = 0; i < n; ++i) fill_steps(c, p, i, &t.block_amax[i], tensor_amax);
    if (!p.symmetric || p.divides) out.emplace_back();
    else out.push_back(p.is_float ? weighted_score<true>(p, t) : weighted_score<false>(p, t));
  }
  return out;
}

}  // namespace pl::experiment
