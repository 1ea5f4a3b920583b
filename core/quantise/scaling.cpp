#include "core/quantise/scaling.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <utility>

#include "core/dtype/codec.h"
#include "core/dtype/describe.h"
#include "core/quantise/amax.h"
#include "core/quantise/array_counts.h"
#include "core/util/names.h"
#include "core/util/parallel.h"

namespace pl::experiment {
namespace {

constexpr std::array<std::string_view, kScalingKindCount> kNames = {
    "none", "per-tensor", "delayed", "per-channel",     "per-channel-asymmetric",
    "mx",   "nvfp4",      "group",   "group-asymmetric"};

// In kNames' order (the recipes above, said for a reader).
constexpr std::array<std::string_view, kScalingKindCount> kSummaries = {
    "no scale: each value rounded into the dtype as it is",
    "one scale for the whole tensor, from its own amax (Transformer Engine's current scaling)",
    "one scale for the whole tensor, from the largest amax of the tensors drawn before it (16 unless a "
    "file sets the history; Transformer Engine's delayed scaling)",
    "one scale per row (output channel for weights, token for activations), symmetric",
    "a scale and a zero point per row, the row's range including 0 (PyTorch's MinMax observer; integer "
    "dtypes)",
    "blocks of 32 along K share a power-of-two (e8m0) scale (OCP Microscaling v1.0)",
    "blocks of 16 along K share a float8_e4m3fn scale, times a float32 scale for the tensor (NVIDIA NVFP4)",
    "groups of G along K share a float16 scale, symmetric (AWQ's and GPTQ's weight-only int4)",
    "groups of G along K share a float16 scale and a zero point (asymmetric weight-only integers)"};

float to_f32(double x) { return static_cast<float>(x); }  // round to nearest even

// fn(r) for every row r in [0, rows), rows of `cols` elements split between the cores. Every
// recipe's steps are per row (or per element), so splitting changes no bit: only the time.
// (Left on one core, a 4096^2 operand's recipe would take far longer than its rounding, which
// runs on all of them.)
template <typename Fn>
void each_row(size_t rows, size_t cols, Fn&& fn) {
  parallel_for(
      rows, 0,
      [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r) fn(r);
      },
      rows_worth_a_thread(cols));
}

// Rounds a whole array of scaled values into the dtype in place, and counts what happened to
// them. Every recipe below first writes each element's scaled value, then rounds them all in
// one call -- round_each's fast paths on the CPU (vectorised nearest-even, roundtrip_f64.h's
// element in the other modes), or the device's kernel when a RoundArray is given -- and then
// applies what follows the rounding (a block scale, a zero point). Element i draws stochastic
// index i, its place in the row-major tensor.
class ArrayRounder {
 public:
  ArrayRounder(DType t, const CastOptions& o, bool saturate, const RoundArray* device) : t_(t), o_(o), device_(device) {
    if (saturate) o_.overflow = Overflow::Saturate;
    if (is_float(t)) top_ = max_finite(info(t).format);
  }
  // Symmetric integer range for per-channel/per-tensor int8 ([-127, 127]).
  void symmetric_integers() { lo_ = -static_cast<double>(int_max(t_)); }
  double max_value() const { return is_float(t_) ? top_ : static_cast<double>(int_max(t_)); }

  // out[i] = round(in[i]) for every i (in and out the same array, or apart), counting into q:
  // saturated (clamped to the dtype's range) and flushed (nonzero, or NaN in a format without
  // one, rounded to zero). Each core takes its share in blocks that stay in its cache: the counts
  // before and after and the rounding read each block there, so the array crosses memory once
  // each way. (Before: a copy, a count, the rounding and a second count, each a pass over the
  // whole array -- about three times the traffic.)
  void round(std::span<const double> in, std::span<double> out, Quantised& q) const {
    // A zero stays zero in every mode and dtype that has one, so the flushed are the new zeros
    // (e8m0 has none to flush to: a zero becomes NaN there).
    const bool has_zero = !is_float(t_) || info(t_).format.has_zero();
    if (is_float(t_) && device_ && *device_) {
      round_on_device(in, out, q, has_zero);
      return;
    }
    add(counted(in.size(),
                [&](size_t begin, size_t end, Counts& c) {
                  for (size_t b0 = begin; b0 < end; b0 += kBlock) {
                    const size_t b1 = std::min(end, b0 + kBlock);
                    const auto from = in.subspan(b0, b1 - b0);
                    const auto to = out.subspan(b0, b1 - b0);
                    if (is_float(t_)) {
                      count_before(from, c);
                      // (A block is under parallel_for's smallest chunk: round_each runs it on this core.)
                      round_each(info(t_).format, from, to, o_, b0);
                    } else {
                      round_integers(from, to, c);
                    }
                    if (has_zero) c.zeros_after += count_zeros(to);
                  }
                }),
        has_zero, q);
  }
  void round(std::span<double> v, Quantised& q) const { round(v, v, q); }

 private:
  static constexpr size_t kBlock = 16384;  // 128 KB of doubles a block: in L2
  struct Counts {
    size_t saturated = 0, zeros_before = 0, zeros_after = 0;
  };

  // fn(begin, end, counts) for each core's share of [0, n); the shares' counts summed.
  template <typename Fn>
  static Counts counted(size_t n, Fn&& fn) {
    std::mutex lock;
    Counts total;
    parallel_for(n, 0, [&](size_t begin, size_t end) {
      Counts c;
      fn(begin, end, c);
      const std::lock_guard hold(lock);
      total.saturated += c.saturated, total.zeros_before += c.zeros_before, total.zeros_after += c.zeros_after;
    });
    return total;
  }
  // The counts into q: the saturated, and the flushed as the new zeros.
  static void add(const Counts& c, bool has_zero, Quantised& q) {
    q.saturated += c.saturated;
    if (has_zero) q.flushed += c.zeros_after - c.zeros_before;
  }

  // Saturated: rounding with an unbounded exponent would have gone past the largest value (a hair
  // above it that rounds down to it anyway is not counted). With the zeros before rounding.
  void count_before(std::span<const double> v, Counts& c) const {
    c.zeros_before += count_zeros(v);
    if (count_past(v, top_) == 0) return;  // (nearly always: the slow test below only when needed)
    const double step = ulp_at(info(t_).format, top_), top = top_;
    for (double x : v)
      if (std::fabs(x) > top) c.saturated += std::nearbyint(std::fabs(x) / step) * step > top;
  }
  // Integers round to nearest even and clamp to [lo, hi].
  void round_integers(std::span<const double> in, std::span<double> out, Counts& c) const {
    const double lo = lo_ ? lo_ : static_cast<double>(int_min(t_));
    const double hi = static_cast<double>(int_max(t_));
    for (size_t i = 0; i < in.size(); ++i) {
      c.zeros_before += in[i] == 0;
      const double r = std::nearbyint(in[i]);  // ties to even
      c.saturated += r < lo || r > hi;
      out[i] = std::clamp(r, lo, hi);
    }
  }
  // The device rounds the whole array in one call (round_each's contract); the CPU does it when
  // the device cannot, and q says why.
  void round_on_device(std::span<const double> in, std::span<double> out, Quantised& q, bool has_zero) const {
    if (in.data() != out.data())  // (on every core, as the counting passes below)
      parallel_for(in.size(), 0,
                   [&](size_t b, size_t e) { std::copy(in.begin() + b, in.begin() + e, out.begin() + b); });
    Counts c =
        counted(out.size(), [&](size_t b, size_t e, Counts& share) { count_before(out.subspan(b, e - b), share); });
    if (auto done = (*device_)(info(t_).format, o_, out); !done) {
      q.device_error = done.error();
      round_each(info(t_).format, out, out, o_);
    } else {
      q.on_device = true;
    }
    c.zeros_after = counted(out.size(), [&](size_t b, size_t e, Counts& share) {
                      for (size_t i = b; i < e; ++i) share.zeros_after += out[i] == 0;
                    }).zeros_after;
    add(c, has_zero, q);
  }

  DType t_;
  CastOptions o_;
  const RoundArray* device_;
  double top_ = 0, lo_ = 0;
};

Quantised empty(size_t rows, size_t cols) {
  Quantised q;
  q.rows = rows;
  q.cols = cols;
  q.values.resize(rows * cols);
  q.row_factor.assign(rows, 1.0);
  return q;
}

// Per-tensor and per-channel symmetric scaling: q = round(x * scale), factor = 1 / scale. Writes
// x * scale for the rows given; the caller rounds every row at once.
void scale_symmetric(std::span<const double> x, Quantised& q, const ArrayRounder& round, size_t row0, size_t rows,
                     double amax) {
  const double scale = amax_scale(round.max_value(), amax);
  const double scale_inv = amax_scale_inverse(scale);
  for (size_t r = row0; r < row0 + rows; ++r) {
    q.row_factor[r] = scale_inv;
    for (size_t c = 0; c < q.cols; ++c) q.values[r * q.cols + c] = x[r * q.cols + c] * scale;
  }
}

// One amax and scale for the whole tensor (per-tensor current or delayed scaling).
void scale_tensor(std::span<const double> x, Quantised& q, const ArrayRounder& round, double amax) {
  each_row(q.rows, q.cols, [&](size_t r) { scale_symmetric(x, q, round, r, 1, amax); });
}

// The finite values' [min, max], widened to include 0 as PyTorch's MinMax observers make it: what
// the asymmetric recipes map onto the integer range.
std::pair<double, double> range_with_zero(std::span<const double> v) {
  double lo = 0, hi = 0;
  for (double x : v)
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  return {lo, hi};
}

// The flushed of an asymmetric recipe: nonzero values whose code is the zero point (the rounder
// counted the codes that are 0, which stand for -z times the scale, not for zero).
size_t flushed_after_zero_point(std::span<const double> x, const Quantised& q) {
  std::mutex lock;
  size_t flushed = 0;
  parallel_for(x.size(), 0, [&](size_t b, size_t e) {
    size_t mine = 0;
    for (size_t i = b; i < e; ++i) mine += x[i] != 0 && q.values[i] == 0;
    const std::lock_guard hold(lock);
    flushed += mine;
  });
  return flushed;
}

void asymmetric(std::span<const double> x, Quantised& q, const ArrayRounder& round, DType t) {
  const double qmin = static_cast<double>(int_min(t)), qmax = static_cast<double>(int_max(t));
  std::vector<double> zero(q.rows);
  each_row(q.rows, q.cols, [&](size_t r) {
    const auto row = x.subspan(r * q.cols, q.cols);
    const auto [lo, hi] = range_with_zero(row);
    const double scale = hi > lo ? (hi - lo) / (qmax - qmin) : 1.0;
    zero[r] = std::clamp(qmin - std::nearbyint(lo / scale), qmin, qmax);
    q.row_factor[r] = scale;
    for (size_t c = 0; c < q.cols; ++c) q.values[r * q.cols + c] = x[r * q.cols + c] / scale + zero[r];
  });
  round.round(q.values, q);
  each_row(q.rows, q.cols, [&](size_t r) {
    for (size_t c = 0; c < q.cols; ++c) q.values[r * q.cols + c] -= zero[r];
  });
  q.flushed = flushed_after_zero_point(x, q);
}

// Multiplies every block of `block` elements along the rows by its scale (row-major blocks,
// as q.block_scales holds them): exact, the products of the block recipes below.
void times_block_scales(Quantised& q, size_t block) {
  const size_t per_row = (q.cols + block - 1) / block;
  each_row(q.rows, q.cols, [&](size_t r) {
    for (size_t c0 = 0, b = r * per_row; c0 < q.cols; c0 += block, ++b)
      for (size_t c = c0; c < std::min(q.cols, c0 + block); ++c) q.values[r * q.cols + c] *= q.block_scales[b];
  });
}

void mx(std::span<const double> x, Quantised& q, const ArrayRounder& round, DType t) {
  const size_t block = 32, per_row = (q.cols + block - 1) / block;
  q.block_scales.resize(q.rows * per_row);
  each_row(q.rows, q.cols, [&](size_t r) {
    block_amaxes(x.subspan(r * q.cols, q.cols), block, q.block_scales.data() + r * per_row);
    for (size_t c0 = 0, b = r * per_row; c0 < q.cols; c0 += block, ++b) {
      const size_t c1 = std::min(q.cols, c0 + block);
      const double amax = q.block_scales[b];
      const int e = mx_scale_exponent(t, amax);
      const double scale = std::ldexp(1.0, e);
      q.block_scales[b] = scale;
      // x / scale, as the product with 1 / scale (a power of two, exactly), which rounds the same
      // real number once: the same bits, without a division an element.
      const double inverse = std::ldexp(1.0, -e);
      for (size_t c = c0; c < c1; ++c) q.values[r * q.cols + c] = x[r * q.cols + c] * inverse;
    }
  });
  round.round(q.values, q);
  times_block_scales(q, block);
}

void nvfp4(std::span<const double> x, Quantised& q, const ArrayRounder& round, double given_amax) {
  const double amax = given_amax > 0 ? given_amax : tensor_amax(x);
  q.amax = amax;
  const double enc = amax_scale(448.0 * 6.0, amax);  // float32 tensor scale
  const double dec = amax_scale_inverse(enc);
  const size_t block = 16, per_row = (q.cols + block - 1) / block;
  q.block_scales.resize(q.rows * per_row);
  each_row(q.rows, q.cols, [&](size_t r) {
    q.row_factor[r] = dec;
    block_amaxes(x.subspan(r * q.cols, q.cols), block, q.block_scales.data() + r * per_row);
    for (size_t c0 = 0, b = r * per_row; c0 < q.cols; c0 += block, ++b) {
      const size_t c1 = std::min(q.cols, c0 + block);
      const double block_amax = q.block_scales[b];
      const double block_scale = nvfp4_block_scale(block_amax, enc);
      q.block_scales[b] = block_scale;
      // x / (block_scale * dec) in float64; a zero block scale leaves zeros.
      for (size_t c = c0; c < c1; ++c)
        q.values[r * q.cols + c] = block_scale > 0 ? x[r * q.cols + c] / (block_scale * dec) : 0.0;
    }
  });
  round.round(q.values, q);
  times_block_scales(q, block);  // exact: 2 bits times 4 bits
}

// A group's scale as GPTQ / AWQ store it: float16, nearest even, saturating at 65504.
double float16_scale(double v) {
  CastOptions sat;
  sat.overflow = Overflow::Saturate;
  return round_to(info(DType::float16).format, v, sat);
}

// Group-wise integers: each group of `size` elements along a row shares a float16 scale (and,
// asymmetric, a zero point); block_scales holds the scales, row-major.
void group(std::span<const double> x, Quantised& q, const ArrayRounder& round, DType t, size_t size, bool asymmetric) {
  const double qmin = asymmetric ? static_cast<double>(int_min(t)) : -static_cast<double>(int_max(t));
  const double qmax = static_cast<double>(int_max(t));
  const size_t per_row = (q.cols + size - 1) / size;
  q.block_scales.resize(q.rows * per_row);
  std::vector<double> zero(asymmetric ? q.rows * per_row : 0);
  each_row(q.rows, q.cols, [&](size_t r) {
    for (size_t c0 = 0, b = r * per_row; c0 < q.cols; c0 += size, ++b) {
      const size_t c1 = std::min(q.cols, c0 + size);
      const auto g = x.subspan(r * q.cols + c0, c1 - c0);
      double scale = 0, z = 0;
      if (asymmetric) {
        const auto [lo, hi] = range_with_zero(g);
        scale = float16_scale((hi - lo) / (qmax - qmin));
        z = scale > 0 ? std::clamp(qmin - std::nearbyint(lo / scale), qmin, qmax) : 0;
        zero[b] = z;
      } else {
        scale = group_scale(amax_of(g), qmax);
      }
      q.block_scales[b] = scale;
      for (size_t c = c0; c < c1; ++c) q.values[r * q.cols + c] = scale > 0 ? x[r * q.cols + c] / scale + z : 0.0;
    }
  });
  round.round(q.values, q);
  if (asymmetric) {
    each_row(q.rows, q.cols, [&](size_t r) {
      for (size_t c0 = 0, b = r * per_row; c0 < q.cols; c0 += size, ++b)
        for (size_t c = c0; c < std::min(q.cols, c0 + size); ++c) q.values[r * q.cols + c] -= zero[b];
    });
    q.flushed = flushed_after_zero_point(x, q);
  }
  times_block_scales(q, size);  // exact: an integer of at most 16 bits times a float16
}

}  // namespace

double amax_scale(double max_value, double amax) {
  if (!(amax > 0) || !std::isfinite(amax)) return 1.0;
  const double s = to_f32(max_value / amax);
  return std::isfinite(s) ? s : static_cast<double>(std::numeric_limits<float>::max());
}

double amax_scale_inverse(double scale) { return to_f32(1.0 / scale); }

int mx_scale_exponent(DType elements, double block_amax) {
  return mx_scale_exponent(info(elements).format.emax(), block_amax);
}

double nvfp4_block_scale(double block_amax, double tensor_encode) {
  // round_to's arithmetic with its constants worked out once: the scan asks for one scale every
  // 16 elements.
  static const FloatFormat e4m3 = info(DType::float8_e4m3fn).format;
  static const NearestEvenRounder nearest(e4m3);
  const double v = block_amax / 6.0 * tensor_encode;
  if (double fast; nearest(v, &fast)) return fast;
  CastOptions sat;
  sat.overflow = Overflow::Saturate;
  return round_to(e4m3, v, sat);
}

double group_scale(double group_amax, double qmax) { return float16_scale(group_amax / qmax); }

std::string_view scaling_name(ScalingKind k) { return kNames[static_cast<int>(k)]; }

std::string_view scaling_summary(ScalingKind k) { return kSummaries[static_cast<int>(k)]; }

std::optional<ScalingKind> parse_scaling(std::string_view n) { return find_named<ScalingKind>(kNames, n); }

int scaling_block(ScalingKind k) { return k == ScalingKind::MX ? 32 : k == ScalingKind::NVFP4 ? 16 : 0; }

bool is_group(ScalingKind k) { return k == ScalingKind::Group || k == ScalingKind::GroupAsymmetric; }

Expected<Scaling> parse_scaling_spec(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  auto kind = parse_scaling(name);
  if (!kind) return Error{"no recipe '" + std::string(name) + "' (recipes: " + scaling_names() + ")"};
  Scaling s;
  s.kind = *kind;
  if (colon == std::string_view::npos) return s;
  const std::string_view block = text.substr(colon + 1);
  int n = 0;
  const auto [rest, ec] = std::from_chars(block.data(), block.data() + block.size(), n);
  if (ec != std::errc{} || rest != block.data() + block.size())
    return Error{"block '" + std::string(block) + "' is not a whole number"};
  if (is_group(*kind)) {
    if (n < 2 || n > kMaxGroup) return Error{"a group holds 2 to 65536 elements, not " + std::string(block)};
    s.group = n;
    return s;
  }
  // A recipe without blocks takes no number at all, not even its block size of 0 (delayed's
  // history is the file's own key, not a number here).
  if (scaling_block(*kind) == 0) return Error{std::string(name) + " has no blocks"};
  if (n != scaling_block(*kind))
    return Error{std::string(name) + " blocks hold " + std::to_string(scaling_block(*kind)) + " elements"};
  return s;
}

std::string scaling_spec(const Scaling& s) {
  std::string out(scaling_name(s.kind));
  if (is_group(s.kind)) out.append(":").append(std::to_string(s.group));
  return out;
}

std::string out_of_range_outcome(DType t, const Scaling& s, const CastOptions& o) {
  if (!is_float(t)) return "clamped";
  CastOptions as_rounded = o;
  if (s.kind != ScalingKind::None) as_rounded.overflow = Overflow::Saturate;  // as ArrayRounder does
  const FloatFormat& f = info(t).format;
  const double beyond = 4 * max_finite(f);  // finite past every format narrower than float64
  const double v = std::isfinite(beyond)                        ? round_to(f, beyond, as_rounded)
                   : overflow_saturates(f, as_rounded.overflow) ? max_finite(f)
                                                                : std::numeric_limits<double>::infinity();
  return std::isnan(v) ? "to NaN" : std::isinf(v) ? "to Inf" : "to the largest finite";
}

std::string scaling_names(std::string_view separator) { return join_names(kNames, separator); }

// The integers asymmetric per-channel scaling takes: PyTorch's quint8/qint8 and the four-bit ones.
static bool in_8_bits_or_less(DType t) { return is_integer(t) && value_bits(t) <= 8; }
// The integers symmetric per-tensor and per-channel scaling take, in [-qmax, qmax].
static bool symmetric_int(DType t) { return t == DType::int8 || t == DType::int4; }

Status check(const Scaling& s, DType t) {
  const std::string n(name(t));
  const bool narrow_float = is_float(t) && info(t).format.total_bits() <= 8 && t != DType::float8_e8m0fnu;
  switch (s.kind) {
    case ScalingKind::None:
      if (!is_float(t)) {
        // The recipes this dtype takes, from the checks below: int16 takes only the groups.
        std::string takes;
        for (size_t k = 1; k < kScalingKindCount; ++k) {
          Scaling other;
          other.kind = static_cast<ScalingKind>(k);
          if (check(other, t)) takes += (takes.empty() ? "" : ", ") + std::string(kNames[k]);
        }
        if (takes.empty())
          return Error{"no scaling recipe takes " + n +
                       ": give a float dtype, or an integer of at most 16 bits with a recipe (int8, uint8, int4, "
                       "uint4, int16, uint16)"};
        return Error{n + " needs a scaling recipe (" + takes + ")"};
      }
      return {};
    case ScalingKind::PerTensor:
    case ScalingKind::PerChannel:
      if (t == DType::float8_e8m0fnu) return Error{"float8_e8m0fnu holds scales, not data"};
      if (is_float(t) || symmetric_int(t)) return {};
      return Error{"symmetric scaling takes a float dtype, int8 or int4, not " + n};
    case ScalingKind::PerTensorDelayed:
      if (s.history < 1 || s.history > 1024) return Error{"amax history must hold 1 to 1024 tensors"};
      if (!is_float(t) || t == DType::float8_e8m0fnu)
        return Error{"delayed scaling is a float8 recipe: give a float dtype, not " + n};
      return {};
    case ScalingKind::PerChannelAsymmetric:
      if (in_8_bits_or_less(t)) return {};
      return Error{"asymmetric scaling takes int8, uint8, int4 or uint4, not " + n};
    case ScalingKind::MX:
      if (narrow_float) return {};
      return Error{"the MX recipe takes float8/float6/float4 elements (MXINT8 is not modelled), not " + n};
    case ScalingKind::NVFP4:
      if (t == DType::float4_e2m1fn) return {};
      return Error{"NVFP4 elements are float4_e2m1fn, not " + n};
    case ScalingKind::Group:
      if (s.group < 2 || s.group > kMaxGroup) return Error{"a group holds 2 to 65536 elements"};
      if (info(t).kind == DTypeKind::SignedInt && value_bits(t) <= 16) return {};
      return Error{"symmetric groups take a signed integer dtype of at most 16 bits (int4, int8), not " + n};
    case ScalingKind::GroupAsymmetric:
      if (s.group < 2 || s.group > kMaxGroup) return Error{"a group holds 2 to 65536 elements"};
      if (is_integer(t) && value_bits(t) <= 16) return {};
      return Error{"asymmetric groups take an integer dtype of at most 16 bits (int4, uint4, int8, uint8), not " + n};
  }
  return Error{"unknown scaling"};
}

Quantised quantise(std::span<const double> x, size_t rows, size_t cols, DType t, const Scaling& s, const CastOptions& o,
                   double history_amax, const RoundArray* device) {
  Quantised q = empty(rows, cols);
  ArrayRounder round(t, o, s.kind != ScalingKind::None, device);
  if (symmetric_int(t) || s.kind == ScalingKind::Group) round.symmetric_integers();
  switch (s.kind) {
    case ScalingKind::None: round.round(x.first(q.values.size()), q.values, q); break;
    case ScalingKind::PerTensor:
      q.amax = s.tensor_amax > 0 ? s.tensor_amax : tensor_amax(x);
      scale_tensor(x, q, round, q.amax);
      round.round(q.values, q);
      break;
    case ScalingKind::PerTensorDelayed:
      q.amax = history_amax;
      scale_tensor(x, q, round, q.amax);
      round.round(q.values, q);
      break;
    case ScalingKind::PerChannel:
      each_row(rows, cols, [&](size_t r) { scale_symmetric(x, q, round, r, 1, amax_of(x.subspan(r * cols, cols))); });
      round.round(q.values, q);
      break;
    case ScalingKind::PerChannelAsymmetric: {
      const ArrayRounder full(t, o, true, device);  // the whole integer range, zero point included
      asymmetric(x, q, full, t);
      break;
    }
    case ScalingKind::MX: mx(x, q, round, t); break;
    case ScalingKind::NVFP4: nvfp4(x, q, round, s.tensor_amax); break;
    case ScalingKind::Group: group(x, q, round, t, static_cast<size_t>(s.group), false); break;
    case ScalingKind::GroupAsymmetric: {
      const ArrayRounder full(t, o, true, device);  // the whole integer range, zero point included
      group(x, q, full, t, static_cast<size_t>(s.group), true);
      break;
    }
  }
  if (std::all_of(q.row_factor.begin(), q.row_factor.end(), [](double f) { return f == 1.0; })) return q;
  q.scaled.resize(q.values.size());
  each_row(rows, cols, [&](size_t r) {
    for (size_t c = 0; c < cols; ++c) q.scaled[r * cols + c] = q.values[r * cols + c] * q.row_factor[r];
  });
  return q;
}

}  // namespace pl::experiment
