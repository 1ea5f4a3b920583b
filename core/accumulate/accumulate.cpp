#include "core/accumulate/accumulate.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/accumulate/blas.h"
#include "core/accumulate/exact_sum.h"
#include "core/accumulate/multiterm.h"
#include "core/dtype/codec.h"
#include "core/util/names.h"
#include "core/util/number_text.h"

// Built with -ffp-contract=off (core/CMakeLists.txt): TwoSum and TwoProduct are exact only
// if the compiler does not fuse or reassociate them.

namespace pl::experiment {
namespace {

using detail::round_sum;
using detail::two_sum;
using detail::TwoSumResult;

constexpr std::array<std::string_view, 8> kKindNames = {"float64", "sequential", "pairwise", "kahan",
                                                        "chunked", "blas",       "int32",    "multiterm"};

// One emulated accumulator: every addition is rounded once to the format.
class Accumulator {
 public:
  Accumulator(DType format, Rounding r, uint64_t stream_offset) : format_(info(format).format), step_(stream_offset) {
    options_.rounding = r;
  }

  // round(x + y), the exact sum rounded once.
  double add(double x, double y) {
    TwoSumResult s = two_sum(x, y);
    // IEEE 754 6.3: an exact zero sum is +0, except -0 when rounding toward -Inf (unless
    // both operands are +0). The float64 addition above runs in the default mode.
    if (s.hi == 0.0 && options_.rounding == Rounding::Down &&
        !(x == 0.0 && y == 0.0 && !std::signbit(x) && !std::signbit(y)))
      s.hi = -0.0;
    return round_sum(format_, s.hi, s.lo, options_, step_++);
  }
  double sub(double x, double y) { return add(x, -y); }
  double round(double x) { return round_to(format_, x, options_, step_++); }

 private:
  FloatFormat format_;
  CastOptions options_;
  uint64_t step_;
};

double sequential(std::span<const double> a, std::span<const double> b, Accumulator& acc) {
  double s = 0.0;
  for (size_t k = 0; k < a.size(); ++k) s = acc.add(s, a[k] * b[k]);
  return s;
}

// Blocked pairwise summation: sequential leaves, then a balanced tree of rounded sums.
double pairwise(std::span<const double> a, std::span<const double> b, size_t block, Accumulator& acc) {
  if (a.size() <= block) return sequential(a, b, acc);
  // Split at a multiple of the block, as NumPy's pairwise sum splits its blocks.
  const size_t half = ((a.size() / block) / 2) * block;
  const size_t mid = half == 0 ? block : half;
  const double left = pairwise(a.first(mid), b.first(mid), block, acc);
  const double right = pairwise(a.subspan(mid), b.subspan(mid), block, acc);
  return acc.add(left, right);
}

// Kahan's compensated summation, every operation rounded to the accumulator format.
double kahan(std::span<const double> a, std::span<const double> b, Accumulator& acc) {
  double s = 0.0, c = 0.0;
  for (size_t k = 0; k < a.size(); ++k) {
    const double y = acc.sub(acc.round(a[k] * b[k]), c);
    const double t = acc.add(s, y);
    c = acc.sub(acc.sub(t, s), y);
    s = t;
  }
  return s;
}

}  // namespace

std::string_view accum_kind_name(AccumKind k) { return kKindNames[static_cast<int>(k)]; }

std::optional<AccumKind> parse_accum_kind(std::string_view n) { return find_named<AccumKind>(kKindNames, n); }

std::string describe(const Accumulation& a, std::string_view blas_library) {
  const std::string f = short_name(a.format), r = rounding_name(a.rounding);
  switch (a.kind) {
    case AccumKind::Float64: return "f64";
    case AccumKind::Sequential: return f + " sequential " + r;
    case AccumKind::Pairwise: return f + " pairwise(" + std::to_string(a.block) + ") " + r;
    case AccumKind::Kahan: return f + " kahan " + r;
    case AccumKind::Chunked: return f + " chunked(" + std::to_string(a.chunk) + ") -> " + short_name(a.outer) + " " + r;
    case AccumKind::Blas:
      if (a.format == DType::float16) return f + " GEMM library (cuBLAS CUBLAS_COMPUTE_16F)";
      return f + " " + (blas_library.empty() ? std::string("BLAS") : std::string(blas_library)) +
             (a.format == DType::float64 ? " dgemm" : " sgemm");
    case AccumKind::Int32: return "i32 (wrapping) -> f32";
    case AccumKind::Multiterm:
      return f + " multi-term(" + std::to_string(a.block) + " + sum, " + std::to_string(a.extra_bits) +
             " extra bits) " + r;
  }
  return "?";
}

DType result_dtype(const Accumulation& a) {
  if (a.kind == AccumKind::Float64) return DType::float64;
  if (a.kind == AccumKind::Int32) return DType::float32;
  return a.kind == AccumKind::Chunked ? a.outer : a.format;
}

Status check(const Accumulation& a) {
  if (a.kind == AccumKind::Int32)
    return a.format == DType::int32 ? Status{} : Error{"integer accumulation is int32 (i32)"};
  if (a.kind == AccumKind::Float64)
    return a.rounding == Rounding::NearestEven ? Status{}
                                               : Error{"float64 accumulation is hardware round-to-nearest-even only"};
  if (a.kind == AccumKind::Blas) {
    if (a.format == DType::float16)
      return Error{
          "float16 library accumulation (cuBLAS CUBLAS_COMPUTE_16F) runs matrix products on the CUDA backend only"};
    if (a.format != DType::float32 && a.format != DType::float64)
      return Error{"the BLAS library computes in float32 or float64 only"};
    return a.rounding == Rounding::NearestEven ? Status{} : Error{"the BLAS library rounds to nearest even only"};
  }
  if (!is_float(a.format)) return Error{std::string(name(a.format)) + " is not a floating-point format"};
  // A scale format (e8m0: powers of two only) cannot hold a sum: its first negative partial sum
  // would be NaN, and a sweep of such sums would show no error at all (nothing left to compare).
  for (DType t : {a.format, a.kind == AccumKind::Chunked ? a.outer : a.format})
    if (is_float(t) && (!info(t).format.is_signed() || !info(t).format.has_zero()))
      return Error{std::string(name(t)) + " cannot hold a sum: it has no sign and no zero"};
  if (a.format == DType::float64)
    return Error{"use the float64 model for a float64 accumulator (hardware, round-to-nearest-even)"};
  if (a.kind == AccumKind::Pairwise && a.block < 1) return Error{"pairwise block must be at least 1"};
  if (a.kind == AccumKind::Multiterm) return check_multiterm(a);
  if (a.kind == AccumKind::Chunked) {
    if (a.chunk < 1) return Error{"chunk must be at least 1"};
    if (!is_float(a.outer) || a.outer == DType::float64)
      return Error{"the outer accumulator must be a float format narrower than float64"};
  }
  return {};
}

bool is_float16_library(const Accumulation& a) {
  return a.kind == AccumKind::Blas && a.format == DType::float16 && a.rounding == Rounding::NearestEven;
}

Status check_product_model(const Accumulation& a) { return is_float16_library(a) ? Status{} : check(a); }

double wrap_int32(double exact_integer) {
  const auto v = static_cast<int64_t>(exact_integer);
  return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))));
}

double round_exact_sum(const FloatFormat& format, double hi, double lo, const CastOptions& o, uint64_t index) {
  return detail::round_sum(format, hi, lo, o, index);
}

double dot(std::span<const double> a, std::span<const double> b, const Accumulation& acc, uint64_t stream_offset) {
  const size_t n = std::min(a.size(), b.size());
  a = a.first(n);
  b = b.first(n);
  switch (acc.kind) {
    case AccumKind::Float64: {
      double s = 0.0;
      for (size_t k = 0; k < n; ++k) s += a[k] * b[k];
      return s;
    }
    case AccumKind::Sequential: {
      Accumulator x(acc.format, acc.rounding, stream_offset);
      return sequential(a, b, x);
    }
    case AccumKind::Pairwise: {
      Accumulator x(acc.format, acc.rounding, stream_offset);
      return pairwise(a, b, static_cast<size_t>(acc.block), x);
    }
    case AccumKind::Kahan: {
      Accumulator x(acc.format, acc.rounding, stream_offset);
      return kahan(a, b, x);
    }
    case AccumKind::Int32: {
      // Integer products summed exactly (|sum| < 2^53 for any int8 data we accept), then
      // wrapped: wrapping addition is associative modulo 2^32, so one wrap at the end equals
      // wrapping after every addition.
      double s = 0.0;
      for (size_t k = 0; k < n; ++k) {
        if (a[k] != std::nearbyint(a[k]) || b[k] != std::nearbyint(b[k])) return NAN;  // not integers
        s += a[k] * b[k];
      }
      return wrap_int32(s);
    }
    case AccumKind::Multiterm: return multiterm_dot(a, b, acc, stream_offset);
    case AccumKind::Blas: {
      // A 1 x 1 product through the library, so a dot product runs the same code as a GEMM.
      if (acc.format == DType::float64) {
        double c = 0;
        blas::gemm_nt(1, 1, n, a.data(), b.data(), &c);
        return c;
      }
      std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
      float c = 0;
      blas::gemm_nt(1, 1, n, af.data(), bf.data(), &c);
      return c;
    }
    case AccumKind::Chunked: {
      Accumulator inner(acc.format, acc.rounding, stream_offset);
      Accumulator outer(acc.outer, acc.rounding, stream_offset + n);
      double s = 0.0;
      for (size_t k = 0; k < n; k += static_cast<size_t>(acc.chunk)) {
        const size_t len = std::min(n - k, static_cast<size_t>(acc.chunk));
        s = outer.add(s, sequential(a.subspan(k, len), b.subspan(k, len), inner));
      }
      return s;
    }
  }
  return NAN;
}

double unit_roundoff(DType t, Rounding r) {
  return std::ldexp(1.0, (to_nearest(r) ? 0 : 1) - info(t).format.precision());
}

namespace {
double gamma(double m, double u) { return m * u < 1 ? m * u / (1 - m * u) : INFINITY; }
}  // namespace

bool rounds_at_each_addition(AccumKind kind) {
  return kind == AccumKind::Sequential || kind == AccumKind::Blas || kind == AccumKind::Float64;
}

BoundNames bound_names(AccumKind kind) {
  if (rounds_at_each_addition(kind)) return {"gamma_K", "sqrt(K) u", "K u >= 1"};
  return {"worst-case bound", "probabilistic estimate", "its rounding steps' m u >= 1"};
}

std::string gamma_text(double deterministic) {
  if (!std::isfinite(deterministic)) return "none";
  return bound_value_text(deterministic);
}

std::string_view estimate_is_the_bound_text() {
  return "a compensated (Kahan) sum's estimate is its bound: the bound's leading term, 2u (3u with rounded "
         "products), is a fixed number of roundings, not K of them; only its K u^2 term grows with K";
}

std::string bound_value_text(double bound) {
  if (!std::isfinite(bound) || bound <= 0) return shortest_double(bound);
  const std::string exact = exact_decimal(bound);
  char buf[40];
  for (int digits = 4; digits <= 7; ++digits)  // exact where seven digits hold the value itself
    if (exact_digits_text(bound, exact, digits).find("...") == std::string::npos) {
      std::snprintf(buf, sizeof buf, "%.*e", digits - 1, bound);  // (its digits: printf has nothing to round)
      return buf;
    }
  // In a long double, whose range holds a float64's largest rounded up (1.798e+308).
  const long double up = std::strtold(directed_digits(exact, 4, true).c_str(), nullptr);
  std::snprintf(buf, sizeof buf, "%.3Le", up);  // (up has four digits: %.3Le writes them as they are)
  return buf;
}

bool exact_products(const Accumulation& acc, DType a, std::optional<DType> b) {
  if (!is_float(a) || (b && !is_float(*b))) return false;
  return exact_products(acc, info(a).format.precision() + (b ? info(*b).format.precision() : 0));
}

bool exact_products(const Accumulation& acc, int product_bits) {
  return is_float(acc.format) && product_bits <= info(acc.format).format.precision();
}

ErrorBounds with_roundings_after(ErrorBounds sum, size_t steps, double u) {
  if (steps == 0) return sum;
  const double n = static_cast<double>(steps);
  const double grows = std::expm1(n * std::log1p(u));  // (1 + u)^steps - 1, without cancellation
  return {sum.deterministic + (1 + sum.deterministic) * grows,
          std::sqrt(sum.probabilistic * sum.probabilistic + n * u * u)};
}

double accumulation_unit(const Accumulation& a) {
  return a.kind == AccumKind::Float64 ? std::ldexp(1.0, -53) : unit_roundoff(a.format, a.rounding);
}

ErrorBounds accumulation_bounds(const Accumulation& a, size_t k, bool exact_products) {
  const double n = static_cast<double>(k);
  const double u = accumulation_unit(a);
  switch (a.kind) {
    case AccumKind::Float64:
    case AccumKind::Sequential:
    case AccumKind::Blas: return {gamma(n, u), std::sqrt(n) * u};
    case AccumKind::Int32: return {0, 0};  // exact (until it wraps)
    case AccumKind::Pairwise: {
      const double leaves = std::ceil(n / a.block);
      const double depth = std::min(n, double(a.block)) + std::ceil(std::log2(std::max(leaves, 1.0)));
      return {gamma(depth, u), std::sqrt(depth) * u};
    }
    case AccumKind::Kahan: {
      const double sum = 2 * u + n * u * u;
      const double bound = exact_products ? sum : u + sum * (1 + u);
      return {bound, bound};
    }
    case AccumKind::Multiterm: {
      // A block's terms each lose less than one unit of the window, w = 2^(1 - p - extra) of the
      // largest, before the sum is rounded once: one step of relative error at most
      // u + (block + 1) w (1 + u), taken ceil(k / block) times. The estimate takes each source's
      // m units as sqrt(m) of them, as for every other model: the steps' m = steps roundings and
      // the m = steps (block + 1) terms cut to the window.
      const double steps = std::ceil(n / a.block);
      const double window = std::ldexp(1.0, 1 - info(a.format).format.precision() - a.extra_bits);
      const double step_u = u + (a.block + 1) * window * (1 + u);
      return {gamma(steps, step_u), std::sqrt(steps) * u + std::sqrt(steps * (a.block + 1)) * window * (1 + u)};
    }
    case AccumKind::Chunked: {
      // Each term carries (1 + theta) from its chunk, |theta| <= gamma_inner, and (1 + phi) from
      // the outer sum, |phi| <= gamma_outer: the product's distance from 1 is at most
      // gamma_inner + gamma_outer + gamma_inner gamma_outer (Higham's Lemma 3.3 with two u).
      const double inner = std::min(n, double(a.chunk)), outer = std::ceil(n / a.chunk);
      const double uo = unit_roundoff(a.outer, a.rounding);
      const double gi = gamma(inner, u), go = gamma(outer, uo);
      return {gi + go + gi * go, std::sqrt(inner) * u + std::sqrt(outer) * uo};
    }
  }
  return {INFINITY, INFINITY};
}

// Dot2 (Ogita, Rump, Oishi 2005): TwoProduct by fma, TwoSum, errors summed in float64.
DoubleDouble dot_reference(std::span<const double> a, std::span<const double> b) {
  const size_t n = std::min(a.size(), b.size());
  double p = 0.0, err = 0.0;
  for (size_t k = 0; k < n; ++k) {
    const double h = a[k] * b[k];
    const double r = std::fma(a[k], b[k], -h);  // h + r == a[k] * b[k] exactly
    const TwoSumResult s = two_sum(p, h);
    p = s.hi;
    err += s.lo + r;
  }
  const TwoSumResult out = two_sum(p, err);
  return {out.hi, out.lo};
}

}  // namespace pl::experiment
