// Built with -fno-trapping-math (GCC will not vectorise the counts' comparisons otherwise) and
// for AVX-512 and AVX2 as well (PL_CLONES); it reorders no arithmetic.
#include "core/experiment/scan/fused_scores.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "core/dtype/codec.h"
#include "core/dtype/describe.h"
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
  p.cast = o;
  if (c.scaling.kind != ScalingKind::None) p.cast.overflow = Overflow::Saturate;  // as quantise's rounder
  if (p.is_float) {
    p.format = info(c.dtype).format;
    p.nearest.emplace(p.format);
    p.overflow[0] = decode(p.format, encode(p.format, std::numeric_limits<double>::max(), p.cast).code);
    p.overflow[1] = decode(p.format, encode(p.format, -std::numeric_limits<double>::max(), p.cast).code);
    p.top = max_finite(p.format);
    p.step = ulp_at(p.format, p.top);
    p.has_zero = p.format.has_zero();
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
        const int e = mx_scale_exponent(c.dtype, block_amax[b]);
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

// One candidate over elements [b, e) of the run (e - b <= kSumBlock).
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
        for (size_t b = b0; b < b1; ++b)
          for (size_t i = 0; i < k; ++i)
            parts[b * k + i] = score_block(plans[i], x.data(), b * kSumBlock, std::min(n, (b + 1) * kSumBlock), cols, buf);
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
