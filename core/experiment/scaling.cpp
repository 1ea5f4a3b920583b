#include "core/experiment/scaling.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include "core/dtype/codec.h"
#include "core/dtype/describe.h"
#include "core/util/names.h"

namespace pl::experiment {
namespace {

constexpr std::array<std::string_view, 7> kNames = {
    "none", "per-tensor", "delayed", "per-channel", "per-channel-asymmetric", "mx", "nvfp4"};

float to_f32(double x) { return static_cast<float>(x); }  // round to nearest even

double amax_of(std::span<const double> x) {
  double m = 0;
  for (double v : x)
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  return m;
}

// Rounds one scaled element into the dtype and counts what happened to it.
class ElementRounder {
 public:
  ElementRounder(DType t, const CastOptions& o, bool saturate) : t_(t), o_(o) {
    if (saturate) o_.overflow = Overflow::Saturate;
    if (!is_float(t)) return;
    const FloatFormat& f = info(t).format;
    top_ = max_finite(f);
    if (o_.rounding == Rounding::NearestEven && o_.path == CastPath::Direct &&
        !o_.flush_input_subnormals && !o_.flush_output_subnormals && nearest_fast_path_applies(f))
      nearest_.emplace(f);
  }
  // Symmetric integer range for per-channel/per-tensor int8 ([-127, 127]).
  void symmetric_integers() { lo_ = -static_cast<double>(int_max(t_)); }

  double operator()(double v, uint64_t index, Quantised& q) {
    double r;
    if (nearest_ && (*nearest_)(v, &r)) {
      // Rounded within the format's range: neither saturated nor overflowed.
    } else if (is_float(t_)) {
      // Saturated: rounding with an unbounded exponent would have gone past the largest
      // value (a hair above it that rounds down to it anyway is not counted).
      if (std::fabs(v) > top_) {
        const double step = ulp_at(info(t_).format, top_);
        if (std::nearbyint(std::fabs(v) / step) * step > top_) ++q.saturated;
      }
      r = round_to(info(t_).format, v, o_, index);
    } else {
      r = std::nearbyint(v);  // ties to even
      const double lo = lo_ ? lo_ : static_cast<double>(int_min(t_));
      const double hi = static_cast<double>(int_max(t_));
      if (r < lo || r > hi) ++q.saturated;
      r = std::clamp(r, lo, hi);
    }
    if (r == 0 && v != 0) ++q.flushed;
    return r;
  }
  double max_value() const { return is_float(t_) ? top_ : static_cast<double>(int_max(t_)); }

  // out[i] = (*this)(x[i], i, q) for every i, the common case in vectorised blocks.
  void each(std::span<const double> x, std::span<double> out, Quantised& q) {
    if (!nearest_) {
      for (size_t i = 0; i < x.size(); ++i) out[i] = (*this)(x[i], i, q);
      return;
    }
    constexpr size_t kBlock = 2048;
    uint8_t defer[kBlock];
    for (size_t b0 = 0; b0 < x.size(); b0 += kBlock) {
      const size_t n = std::min(kBlock, x.size() - b0);
      const double* v = x.data() + b0;
      double* r = out.data() + b0;
      const bool any = nearest_->block(v, n, r, defer);
      size_t flushed = 0;
      for (size_t i = 0; i < n; ++i) flushed += (r[i] == 0) & (v[i] != 0) & !defer[i];
      q.flushed += flushed;
      if (any)
        for (size_t i = 0; i < n; ++i)
          if (defer[i]) r[i] = (*this)(v[i], b0 + i, q);
    }
  }

 private:
  DType t_;
  CastOptions o_;
  std::optional<NearestEvenRounder> nearest_;  // the common case, constants worked out once
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

// Transformer Engine's scale from an amax: float32(max / amax), 1 when amax is 0 or not finite.
double te_scale(double max_value, double amax) {
  if (!(amax > 0) || !std::isfinite(amax)) return 1.0;
  const double s = to_f32(max_value / amax);
  return std::isfinite(s) ? s : static_cast<double>(std::numeric_limits<float>::max());
}

// Per-tensor and per-channel symmetric scaling: q = round(x * scale), factor = 1 / scale.
void symmetric(std::span<const double> x, Quantised& q, ElementRounder& round, size_t row0,
               size_t rows, double amax) {
  const double scale = te_scale(round.max_value(), amax);
  const double scale_inv = to_f32(1.0 / scale);
  for (size_t r = row0; r < row0 + rows; ++r) {
    q.row_factor[r] = scale_inv;
    for (size_t c = 0; c < q.cols; ++c) {
      const size_t i = r * q.cols + c;
      q.values[i] = round(x[i] * scale, i, q);
    }
  }
}

void asymmetric(std::span<const double> x, Quantised& q, ElementRounder& round, DType t) {
  const double qmin = static_cast<double>(int_min(t)), qmax = static_cast<double>(int_max(t));
  for (size_t r = 0; r < q.rows; ++r) {
    const auto row = x.subspan(r * q.cols, q.cols);
    double lo = 0, hi = 0;  // the range always includes 0, as PyTorch's observers make it
    for (double v : row)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    const double scale = hi > lo ? (hi - lo) / (qmax - qmin) : 1.0;
    const double zero = std::clamp(qmin - std::nearbyint(lo / scale), qmin, qmax);
    q.row_factor[r] = scale;
    for (size_t c = 0; c < q.cols; ++c) {
      const size_t i = r * q.cols + c;
      q.values[i] = round(x[i] / scale + zero, i, q) - zero;
    }
  }
}

void mx(std::span<const double> x, Quantised& q, ElementRounder& round, DType t) {
  const int emax_elem = info(t).format.emax();
  const size_t block = 32;
  for (size_t r = 0; r < q.rows; ++r)
    for (size_t c0 = 0; c0 < q.cols; c0 += block) {
      const size_t c1 = std::min(q.cols, c0 + block);
      const double amax = amax_of(x.subspan(r * q.cols + c0, c1 - c0));
      // OCP MX 6.3: X = 2^(floor(log2(amax)) - emax_elem), clamped to E8M0's range; a zero
      // block takes the smallest scale.
      const int e = amax > 0 ? std::clamp(std::ilogb(amax) - emax_elem, -127, 127) : -127;
      const double scale = std::ldexp(1.0, e);
      q.block_scales.push_back(scale);
      for (size_t c = c0; c < c1; ++c) {
        const size_t i = r * q.cols + c;
        q.values[i] = round(x[i] / scale, i, q) * scale;  // exact: a power of two
      }
    }
}

void nvfp4(std::span<const double> x, Quantised& q, ElementRounder& round) {
  const FloatFormat& e4m3 = info(DType::float8_e4m3fn).format;
  CastOptions sat;
  sat.overflow = Overflow::Saturate;
  const double amax = amax_of(x);
  q.amax = amax;
  const double enc = te_scale(448.0 * 6.0, amax);  // float32 tensor scale
  const double dec = to_f32(1.0 / enc);
  const size_t block = 16;
  for (size_t r = 0; r < q.rows; ++r) {
    q.row_factor[r] = dec;
    for (size_t c0 = 0; c0 < q.cols; c0 += block) {
      const size_t c1 = std::min(q.cols, c0 + block);
      const double block_amax = amax_of(x.subspan(r * q.cols + c0, c1 - c0));
      const double block_scale = round_to(e4m3, block_amax / 6.0 * enc, sat);  // e4m3, saturated
      q.block_scales.push_back(block_scale);
      for (size_t c = c0; c < c1; ++c) {
        const size_t i = r * q.cols + c;
        // x / (block_scale * dec) in float64; a zero block scale leaves zeros.
        const double v = block_scale > 0 ? x[i] / (block_scale * dec) : 0.0;
        q.values[i] = round(v, i, q) * block_scale;  // exact: 2 bits times 4 bits
      }
    }
  }
}

}  // namespace

std::string_view scaling_name(ScalingKind k) { return kNames[static_cast<int>(k)]; }

std::optional<ScalingKind> parse_scaling(std::string_view n) {
  return find_named<ScalingKind>(kNames, n);
}

int scaling_block(ScalingKind k) {
  return k == ScalingKind::MX ? 32 : k == ScalingKind::NVFP4 ? 16 : 0;
}

std::string check(const Scaling& s, DType t) {
  const std::string n(name(t));
  const bool narrow_float = is_float(t) && info(t).format.total_bits() <= 8 &&
                            t != DType::float8_e8m0fnu;
  switch (s.kind) {
    case ScalingKind::None:
      if (!is_float(t)) return n + " needs a scaling recipe (per-tensor or per-channel)";
      return "";
    case ScalingKind::PerTensor:
    case ScalingKind::PerChannel:
      if (t == DType::float8_e8m0fnu) return "float8_e8m0fnu holds scales, not data";
      if (is_float(t) || t == DType::int8) return "";
      return "symmetric scaling takes a float dtype or int8, not " + n;
    case ScalingKind::PerTensorDelayed:
      if (s.history < 1 || s.history > 1024) return "amax history must hold 1 to 1024 tensors";
      if (!is_float(t) || t == DType::float8_e8m0fnu)
        return "delayed scaling is a float8 recipe: give a float dtype, not " + n;
      return "";
    case ScalingKind::PerChannelAsymmetric:
      if (t == DType::int8 || t == DType::uint8) return "";
      return "asymmetric scaling takes int8 or uint8, not " + n;
    case ScalingKind::MX:
      if (narrow_float) return "";
      return "MX blocks hold float8/float6/float4 elements, not " + n;
    case ScalingKind::NVFP4:
      if (t == DType::float4_e2m1fn) return "";
      return "NVFP4 elements are float4_e2m1fn, not " + n;
  }
  return "unknown scaling";
}

Quantised quantise(std::span<const double> x, size_t rows, size_t cols, DType t,
                   const Scaling& s, const CastOptions& o, double history_amax) {
  Quantised q = empty(rows, cols);
  ElementRounder round(t, o, s.kind != ScalingKind::None);
  if (t == DType::int8) round.symmetric_integers();
  switch (s.kind) {
    case ScalingKind::None:
      round.each(x, q.values, q);
      break;
    case ScalingKind::PerTensor:
      q.amax = amax_of(x);
      symmetric(x, q, round, 0, rows, q.amax);
      break;
    case ScalingKind::PerTensorDelayed:
      q.amax = history_amax;
      symmetric(x, q, round, 0, rows, q.amax);
      break;
    case ScalingKind::PerChannel:
      for (size_t r = 0; r < rows; ++r)
        symmetric(x, q, round, r, 1, amax_of(x.subspan(r * cols, cols)));
      break;
    case ScalingKind::PerChannelAsymmetric: {
      ElementRounder full(t, o, true);  // the whole integer range, zero point included
      asymmetric(x, q, full, t);
      break;
    }
    case ScalingKind::MX: mx(x, q, round, t); break;
    case ScalingKind::NVFP4: nvfp4(x, q, round); break;
  }
  if (std::all_of(q.row_factor.begin(), q.row_factor.end(), [](double f) { return f == 1.0; })) return q;
  q.scaled.resize(q.values.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      q.scaled[r * cols + c] = q.values[r * cols + c] * q.row_factor[r];
  return q;
}

}  // namespace pl::experiment
