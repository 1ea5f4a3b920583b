// The CPU GEMM: every accumulation model's sums, eight output columns at a time in SIMD lanes
// where the model allows, each lane bit for bit the scalar model's (accumulate.cpp).
//
// Sections, in order (search for "// ----"):
//   in-order lanes          nearest-even sums in the lanes, the branch-free rounding
//   Kahan lanes             compensated sums, every step rounded as the model rounds it
//   float32 lanes           the float32 accumulator on float32 hardware (fused or not)
//   narrow lanes            float16/bfloat16-like accumulators on float32 lanes (narrow_lanes.h)
//   operand checks          what the fast paths need of the operands' magnitudes
//   lane drivers            K in chunks or pairwise blocks, sums stored, lanes to redo
//   tiles                   R rows x eight columns for each lane kind
//   int32                   int8 products summed exactly into int32
//   public                  narrow_format, gemm
#include "core/accumulate/gemm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>

#include "core/accumulate/blas.h"
#include "core/accumulate/exact_sum.h"
#include "core/accumulate/multiterm.h"
#include "core/accumulate/narrow_lanes.h"
#include "core/dtype/round_nearest.h"
#include "core/util/parallel.h"
#include "core/util/target_clones.h"

#if PL_HAVE_F16C_KERNEL
#include <cpuid.h>
#endif

// Built with -ffp-contract=off (core/CMakeLists.txt), as accumulate.cpp: exact_sum.h's TwoSum.

namespace pl::experiment {
namespace {

// ---- in-order lanes ----------------------------------------------------------------

// Columns computed together: eight independent accumulators, stored next to each other so
// the compiler can run them as SIMD lanes (one addition is a chain of dependent steps; eight
// chains keep the pipelines busy).
constexpr size_t kLanes = 8;

// The in-order models with round-to-nearest-even into formats round_nearest.h handles:
// the same additions as dot(), eight columns at a time.
bool lanes_apply(const Accumulation& acc) {
  if (acc.rounding != Rounding::NearestEven) return false;
  if (acc.kind == AccumKind::Sequential || acc.kind == AccumKind::Kahan || acc.kind == AccumKind::Pairwise)
    return nearest_fast_path_applies(info(acc.format).format);
  if (acc.kind == AccumKind::Chunked)
    return nearest_fast_path_applies(info(acc.format).format) && nearest_fast_path_applies(info(acc.outer).format);
  return false;
}

inline double add_rne(const FloatFormat& f, double x, double y) {
  static const CastOptions rne;
  const detail::TwoSumResult s = detail::two_sum(x, y);
  return detail::round_sum(f, s.hi, s.lo, rne, 0);
}

// One format's constants for the branch-free rounding below.
struct LaneFormat {
  int64_t emin, mantissa_bits;
  double largest;
  explicit LaneFormat(const FloatFormat& f)
      : emin(f.emin()),
        mantissa_bits(f.mantissa_bits),
        largest((1.0 + static_cast<double>(f.max_finite_mantissa()) * pow2_bits(-f.mantissa_bits)) *
                pow2_bits(f.emax())) {}
};

// round(hi + lo) to the format for a TwoSum pair: exactly round_sum() and
// round_nearest_even_fast() (rounding to odd, scale to the quantum, round with 1.5 * 2^52, scale
// back), without branches so that the lanes vectorise. `bad` is set when the value leaves the
// fast path's domain (not finite, or past the largest finite number); the value is then
// meaningless and the caller has the general code redo the element.
inline double round_pair(double hi, double lo, const LaneFormat& f, uint64_t& bad) {
  constexpr double kMagic = 6755399441055744.0;  // 1.5 * 2^52
  const uint64_t hb = round_to_odd_bits<uint64_t>(hi, lo);
  const int64_t biased = static_cast<int64_t>((hb >> 52) & 0x7ff);
  const int64_t e = biased - 1023;
  const int64_t q = (e > f.emin ? e : f.emin) - f.mantissa_bits;
  const double to_unit = std::bit_cast<double>(static_cast<uint64_t>(1023 - q) << 52);
  const double from_unit = std::bit_cast<double>(static_cast<uint64_t>(1023 + q) << 52);
  const double h = std::bit_cast<double>(hb);
  const double v = std::copysign((h * to_unit + kMagic) - kMagic, h) * from_unit;
  bad |= static_cast<uint64_t>(biased == 0x7ff) | static_cast<uint64_t>(!(std::fabs(v) <= f.largest));
  return v;
}

// round(x + y), the exact sum (TwoSum) rounded once: Accumulator::add on the fast path.
inline double add_round(double x, double y, const LaneFormat& f, uint64_t& bad) {
  const double hi = x + y;
  return round_pair(hi, two_sum_error(x, y, hi), f, bad);
}

// s[r][t] = round(s[r][t] + a_r[k] * panel[k][t]) for k in [k0, k1), rows r < R; R rows share
// each panel load and give the CPU R * 8 independent chains (one chain is ~30 dependent
// operations long). A lane marked in `bad` is recomputed by the general code.
template <size_t R>
PL_CLONES void lanes_run(const double* const* a_rows, const double* panel, size_t k0, size_t k1, const LaneFormat f,
                         double (*s)[kLanes], uint64_t (*bad)[kLanes]) {
  double acc[R][kLanes];
  uint64_t flag[R][kLanes];
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kLanes; ++t) acc[r][t] = s[r][t], flag[r][t] = bad[r][t];
  for (size_t k = k0; k < k1; ++k) {
    const double* p = panel + k * kLanes;
    for (size_t r = 0; r < R; ++r) {
      const double av = a_rows[r][k];
      for (size_t t = 0; t < kLanes; ++t) acc[r][t] = add_round(acc[r][t], av * p[t], f, flag[r][t]);
    }
  }
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kLanes; ++t) s[r][t] = acc[r][t], bad[r][t] = flag[r][t];
}

// ---- Kahan lanes -------------------------------------------------------------------

// Kahan's compensated sum (accumulate.cpp's kahan()) in the lanes, every operation rounded to
// the format as there: y = round(round(a b) - c), t = round(s + y), c = round(round(t - s) - y),
// s = t -- five roundings a product, each the one the general code makes (a subtraction is the
// addition of the negated operand, as Accumulator::sub). One call covers all of K (Kahan is not
// chunked), so the compensation starts at zero here.
template <size_t R>
PL_CLONES void lanes_run_kahan(const double* const* a_rows, const double* panel, size_t k0, size_t k1,
                               const LaneFormat f, double (*s)[kLanes], uint64_t (*bad)[kLanes]) {
  double sum[R][kLanes], comp[R][kLanes] = {};
  uint64_t flag[R][kLanes];
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kLanes; ++t) sum[r][t] = s[r][t], flag[r][t] = bad[r][t];
  for (size_t k = k0; k < k1; ++k) {
    const double* p = panel + k * kLanes;
    for (size_t r = 0; r < R; ++r) {
      const double av = a_rows[r][k];
      for (size_t t = 0; t < kLanes; ++t) {
        uint64_t& b = flag[r][t];
        const double y = add_round(round_pair(av * p[t], 0.0, f, b), -comp[r][t], f, b);
        const double next = add_round(sum[r][t], y, f, b);
        comp[r][t] = add_round(add_round(next, -sum[r][t], f, b), -y, f, b);
        sum[r][t] = next;
      }
    }
  }
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kLanes; ++t) s[r][t] = sum[r][t], bad[r][t] = flag[r][t];
}

// ---- float32 lanes -----------------------------------------------------------------

// The float32 accumulator on float32 hardware. The model adds the exact product and rounds the
// sum once to float32 (nearest even, subnormals as IEEE). When every product is a normal float32
// number (operands of few enough significant bits, magnitudes that keep every product inside
// float32's normal range -- float32_products_exact() checks both on the data), one IEEE float32
// multiply and one float32 addition per product are that: the product is exact. When the
// operands are float32 numbers whose products are not (kFused), one fused multiply-add is: it
// rounds a b + s once. The lanes then run on the CPU's own float32 arithmetic. A lane whose sum
// ends up not finite is redone by the general code (an Inf or NaN, once there, stays).
template <size_t R, bool kFused>
PL_CLONES void lanes_run_f32(const float* const* a_rows, const float* panel, size_t k0, size_t k1, float (*s)[kLanes]) {
  float acc[R][kLanes];
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kLanes; ++t) acc[r][t] = s[r][t];
  for (size_t k = k0; k < k1; ++k) {
    const float* p = panel + k * kLanes;
    for (size_t r = 0; r < R; ++r) {
      const float av = a_rows[r][k];
      for (size_t t = 0; t < kLanes; ++t)
        acc[r][t] =
            kFused ? __builtin_fmaf(av, p[t], acc[r][t]) : acc[r][t] + av * p[t];  // no contraction: -ffp-contract=off
    }
  }
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kLanes; ++t) s[r][t] = acc[r][t];
}

// Kahan's compensated sum on float32 hardware, for float32 operands: kahan() rounds the
// product to the format first (one IEEE float32 multiply: exact, or rounded once as the model
// rounds it), and each of its other operations is one IEEE float32 addition or subtraction,
// rounded once to nearest even -- the model itself. (Contraction is off, and nothing lets the
// compiler reassociate: the compensation survives.)
template <size_t R>
PL_CLONES void lanes_run_f32_kahan(const float* const* a_rows, const float* panel, size_t k0, size_t k1,
                                   float (*s)[kLanes]) {
  float sum[R][kLanes], comp[R][kLanes] = {};
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kLanes; ++t) sum[r][t] = s[r][t];
  for (size_t k = k0; k < k1; ++k) {
    const float* p = panel + k * kLanes;
    for (size_t r = 0; r < R; ++r) {
      const float av = a_rows[r][k];
      for (size_t t = 0; t < kLanes; ++t) {
        const float y = av * p[t] - comp[r][t];
        const float next = sum[r][t] + y;
        comp[r][t] = (next - sum[r][t]) - y;
        sum[r][t] = next;
      }
    }
  }
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kLanes; ++t) s[r][t] = sum[r][t];
}

// ---- narrow lanes ------------------------------------------------------------------

static_assert(kLanes == kNarrowLanes);

// What Kahan's steps over k products, each at most `product_max` in magnitude, must watch so that
// no overflow goes unseen (narrow_kahan_steps has the proof): nothing when K (P + 2u) + u < L, t
// alone when P + 3u <= L, else y and t. P bounds each product rounded to the format -- rounding
// moves a value by at most 2^-p of it, or half the smallest quantum; 2^(1-p) also covers the
// float64 product of the two maxima --, u is the quantum of L's binade. The sums start at zero:
// Kahan's lanes are never chunked. Inf or NaN operands make product_max Inf: y and t.
KahanWatch kahan_watch(const FloatFormat& f, double product_max, size_t k) {
  const int p = f.precision();
  const double largest = static_cast<double>(LaneFormat(f).largest);
  const double top_quantum = std::ldexp(1.0, f.emax() - (p - 1));
  const double product = product_max * (1 + std::ldexp(1.0, 1 - p)) + std::ldexp(1.0, f.emin() - (p - 1));
  constexpr double kMargin = 1 + 0x1p-40;  // for this float64 arithmetic's roundings
  if ((static_cast<double>(k) * (product + 2 * top_quantum) + top_quantum) * kMargin < largest)
    return KahanWatch::kNothing;
  if ((product + 3 * top_quantum) * kMargin <= largest) return KahanWatch::kT;
  return KahanWatch::kYAndT;
}

bool narrow_lanes_apply(const FloatFormat& f) {
  return nearest_fast_path_applies(f) && f.mantissa_bits >= 1 && f.precision() <= 22 && f.emin() >= -126 &&
         f.emax() <= 127;
}

// Kahan's narrow kernel adds values of the format through float32 alone (narrow_sum_of_values):
// innocuous for formats of at most 11 bits, as every narrow dtype of the table is.
bool kahan_lanes_apply(const FloatFormat& f) { return narrow_lanes_apply(f) && f.precision() <= 11; }

// The narrow kernel (narrow_lanes.h's narrow_kernel: sequential or Kahan's steps, of each kind
// of products) for each way to the format; float16 runs on the CPU's own float16 conversion
// when it has one (gemm_f16c.cpp).
template <size_t R, typename Round, bool kKahan, Products kP>
PL_CLONES void lanes_run_narrow(const OperandOf<kP>* const* a_rows, const OperandOf<kP>* panel, size_t k0, size_t k1,
                                const NarrowFormat f, float (*s)[kLanes], uint32_t (*bad)[kLanes]) {
  narrow_kernel<R, kKahan, kP>(a_rows, panel, k0, k1, Round(f), f, s, bad);
}

bool has_f16c() {
#if PL_HAVE_F16C_KERNEL
  // F16C from CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports does not know "f16c".
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
  }();
  return yes;
#else
  return false;
#endif
}

// narrow_add (narrow_lanes.h) with the format's rounding (the generic one for float16 too: F16C
// only speeds up the products' steps).
template <size_t R>
PL_CLONES void narrow_add_lanes(float (*x)[kLanes], const float (*y)[kLanes], const NarrowFormat f,
                                uint32_t (*bad)[kLanes]) {
  if (f.on_bits) narrow_add<R>(x, y, RoundOnBits(f), f, bad);
  else narrow_add<R>(x, y, RoundScaled(f), f, bad);
}

template <size_t R, bool kKahan, Products kP>
void run_narrow(const OperandOf<kP>* const* a_rows, const OperandOf<kP>* panel, size_t k0, size_t k1,
                const NarrowFormat f, float (*s)[kLanes], uint32_t (*bad)[kLanes]) {
#if PL_HAVE_F16C_KERNEL
  if (f.is_float16 && has_f16c()) {
    if constexpr (kP == Products::kOfFloat64Operands)
      lanes_run_narrow_f16c(R, kKahan, a_rows, panel, k0, k1, f, s, bad);
    else lanes_run_narrow_f16c(R, kKahan, kP, a_rows, panel, k0, k1, f, s, bad);
    return;
  }
#endif
  if (f.on_bits) lanes_run_narrow<R, RoundOnBits, kKahan, kP>(a_rows, panel, k0, k1, f, s, bad);
  else lanes_run_narrow<R, RoundScaled, kKahan, kP>(a_rows, panel, k0, k1, f, s, bad);
}

// ---- operand checks ----------------------------------------------------------------

struct Magnitudes {
  double min_nonzero = INFINITY, max = 0;
  int max_bits = 0;  // significant bits of the widest value
};

// From the bit patterns (frexp and ldexp per value cost more than the kernel's packing): the
// significant bits of a normal value are its 53-bit significand's less its trailing zeros; of a
// subnormal one, from its highest set bit to its lowest.
Magnitudes magnitudes(std::span<const double> x) {
  Magnitudes m;
  uint64_t min_bits = ~uint64_t{0}, max_bits = 0;  // of |x|: the order of the values
  for (double v : x) {
    const uint64_t b = std::bit_cast<uint64_t>(v) & 0x7fffffffffffffffull;
    if (b >= 0x7ff0000000000000ull) return {0, INFINITY, 64};  // Inf or NaN
    if (b == 0) continue;
    min_bits = std::min(min_bits, b);
    max_bits = std::max(max_bits, b);
    const uint64_t fraction = b & 0x000fffffffffffffull;
    const int bits = (b >> 52) != 0 ? 53 - std::countr_zero(fraction | (uint64_t{1} << 52))
                                    : std::bit_width(fraction) - std::countr_zero(fraction);
    m.max_bits = std::max(m.max_bits, bits);
  }
  if (max_bits != 0) m.min_nonzero = std::bit_cast<double>(min_bits), m.max = std::bit_cast<double>(max_bits);
  return m;
}

// Whether v, converted to float32 as f, lost something: v is not a float32 number (a NaN
// counts as one). Branch-free, so that the loops calling it vectorise.
inline uint8_t not_float32(double v, float f) { return static_cast<uint8_t>((static_cast<double>(f) != v) & (v == v)); }

// Every value is a float32 number (an Inf or NaN included: the lanes hand what it leads to
// to the general code).
bool float32_numbers(std::span<const double> x) {
  uint8_t inexact = 0;
  for (double v : x) inexact |= not_float32(v, static_cast<float>(v));
  return inexact == 0;
}

// Whether the CPU fuses a multiply and an add (the fused float32 lanes need it to be fast; any
// CPU gets the right result, through libm's fmaf where it has none).
bool has_fma() {
#if defined(__x86_64__)
  static const bool yes = __builtin_cpu_supports("fma");
  return yes;
#else
  return true;
#endif
}

// Every product a_ik * b_jk is a normal float32 number (or zero): at most 24 significant bits,
// magnitude within [2^-126, 2^128). (ma, mb: the operands' magnitudes.)
bool float32_products_exact(const Magnitudes& ma, const Magnitudes& mb) {
  if (ma.max == 0 || mb.max == 0) return true;
  return ma.max_bits + mb.max_bits <= 24 && ma.min_nonzero * mb.min_nonzero >= 0x1p-126 && ma.max * mb.max < 0x1p127;
}

// ---- lane drivers ------------------------------------------------------------------

// The lanes' sums into out (row r's first column at out[r]), and redo[r] the mask of the lanes
// where needs_redo(r, t, sum) holds.
template <size_t R, typename Lane, typename NeedsRedo>
void store_lanes(const Lane (*s)[kLanes], NeedsRedo needs_redo, double* const* out, uint64_t* redo) {
  for (size_t r = 0; r < R; ++r) {
    redo[r] = 0;
    for (size_t t = 0; t < kLanes; ++t) {
      out[r][t] = static_cast<double>(s[r][t]);
      if (needs_redo(r, t, out[r][t])) redo[r] |= uint64_t{1} << t;
    }
  }
}

// The order along K both lane kinds share: chunks of `chunk` products (all of K when not
// chunked), each summed by run(c0, c1, s) into zeroed lanes s, then added into the outer
// accumulator. out[r] points at row r's first column; redo[r] gets a mask of the lanes the
// general code must redo, those where needs_redo(r, t, total) holds.
template <size_t R, typename Lane, typename Run, typename NeedsRedo>
void chunked_lanes(size_t k, const Accumulation& acc, Run run, NeedsRedo needs_redo, double* const* out,
                   uint64_t* redo) {
  const FloatFormat& outer = info(acc.outer).format;
  const size_t chunk = acc.kind == AccumKind::Chunked ? static_cast<size_t>(acc.chunk) : k;
  // Float32 chunk sums into a float32 outer accumulator: each step is one IEEE float32
  // addition, rounded once to nearest even -- add_rne's result, without its general code.
  const bool float32_outer = std::is_same_v<Lane, float> && acc.outer == DType::float32;
  double total[R][kLanes] = {};
  for (size_t c0 = 0; c0 < k; c0 += chunk) {
    const size_t c1 = std::min(k, c0 + chunk);
    Lane s[R][kLanes] = {};
    run(c0, c1, s);
    for (size_t r = 0; r < R; ++r)
      for (size_t t = 0; t < kLanes; ++t)
        total[r][t] = acc.kind != AccumKind::Chunked ? static_cast<double>(s[r][t])
                      : float32_outer
                          ? static_cast<double>(static_cast<float>(total[r][t]) + static_cast<float>(s[r][t]))
                          : add_rne(outer, total[r][t], s[r][t]);
  }
  store_lanes<R>(total, needs_redo, out, redo);
}

// Blocked pairwise summation (accumulate.cpp's pairwise()) in the lanes: K split as there --
// sequential leaves of at most `block` products, each summed by run(k0, k1, s) into zeroed
// lanes s, the two halves split at a multiple of the block -- and the halves' sums added by
// combine(s, right) (s[r][t] = left + right, rounded as Accumulator::add rounds; a whole
// block of lanes at once, so that it can vectorise).
template <size_t R, typename Lane, typename Run, typename Combine>
void pairwise_lanes(size_t k0, size_t k1, size_t block, const Run& run, const Combine& combine, Lane (*s)[kLanes]) {
  const size_t n = k1 - k0;
  if (n <= block) {
    for (size_t r = 0; r < R; ++r)
      for (size_t t = 0; t < kLanes; ++t) s[r][t] = 0;
    run(k0, k1, s);
    return;
  }
  const size_t half = ((n / block) / 2) * block;
  const size_t mid = half == 0 ? block : half;
  Lane right[R][kLanes];
  pairwise_lanes<R, Lane>(k0, k0 + mid, block, run, combine, s);
  pairwise_lanes<R, Lane>(k0 + mid, k1, block, run, combine, right);
  combine(s, right);
}

// x[r][t] = round(x[r][t] + y[r][t]) on the float64 lanes, `bad` marked as lanes_run marks it.
template <size_t R>
PL_CLONES void add_lanes(double (*x)[kLanes], const double (*y)[kLanes], const LaneFormat f, uint64_t (*bad)[kLanes]) {
  for (size_t r = 0; r < R; ++r)
    for (size_t t = 0; t < kLanes; ++t) x[r][t] = add_round(x[r][t], y[r][t], f, bad[r][t]);
}

// ---- tiles -------------------------------------------------------------------------

// Columns j0 .. j0 + kLanes - 1 of R rows from a packed panel (panel[k][t] = B[j0 + t][k]),
// in order along K, emulated (lanes_run): a lane that left the fast path is redone.
template <size_t R>
void lanes(const double* const* a_rows, const double* panel, size_t k, const Accumulation& acc, double* const* out,
           uint64_t* redo) {
  const LaneFormat inner(info(acc.format).format);
  uint64_t bad[R][kLanes] = {};
  auto needs_redo = [&](size_t r, size_t t, double) { return bad[r][t] != 0; };
  if (acc.kind == AccumKind::Pairwise) {
    double s[R][kLanes];
    pairwise_lanes<R, double>(
        0, k, static_cast<size_t>(acc.block),
        [&](size_t c0, size_t c1, double(*x)[kLanes]) { lanes_run<R>(a_rows, panel, c0, c1, inner, x, bad); },
        [&](double(*x)[kLanes], const double(*y)[kLanes]) { add_lanes<R>(x, y, inner, bad); }, s);
    store_lanes<R>(s, needs_redo, out, redo);
    return;
  }
  const bool kahan = acc.kind == AccumKind::Kahan;
  chunked_lanes<R, double>(
      k, acc,
      [&](size_t c0, size_t c1, double(*s)[kLanes]) {
        if (kahan) lanes_run_kahan<R>(a_rows, panel, c0, c1, inner, s, bad);
        else lanes_run<R>(a_rows, panel, c0, c1, inner, s, bad);
      },
      needs_redo, out, redo);
}

// As lanes(), on float32 hardware (lanes_run_f32's conditions hold; `fused` when the products
// are not float32 numbers): a sum that is not finite is redone. A pairwise sum's halves are
// added in float32 too: one IEEE addition, rounded once to nearest even, as Accumulator::add
// rounds their exact sum.
template <size_t R>
void lanes_f32(const float* const* a_rows, const float* panel, size_t k, const Accumulation& acc, bool fused,
               double* const* out, uint64_t* redo) {
  auto run = [&](size_t c0, size_t c1, float(*x)[kLanes]) {
    if (fused) lanes_run_f32<R, true>(a_rows, panel, c0, c1, x);
    else lanes_run_f32<R, false>(a_rows, panel, c0, c1, x);
  };
  if (acc.kind == AccumKind::Pairwise) {
    float s[R][kLanes];
    pairwise_lanes<R, float>(
        0, k, static_cast<size_t>(acc.block), run,
        [](float(*x)[kLanes], const float(*y)[kLanes]) {
          for (size_t r = 0; r < R; ++r)
            for (size_t t = 0; t < kLanes; ++t) x[r][t] += y[r][t];
        },
        s);
    store_lanes<R>(
        s, [](size_t, size_t, double total) { return !std::isfinite(total); }, out, redo);
    return;
  }
  const bool kahan = acc.kind == AccumKind::Kahan;
  chunked_lanes<R, float>(
      k, acc,
      [&](size_t c0, size_t c1, float(*s)[kLanes]) {
        if (kahan) lanes_run_f32_kahan<R>(a_rows, panel, c0, c1, s);
        else run(c0, c1, s);
      },
      [](size_t, size_t, double total) { return !std::isfinite(total); }, out, redo);
}

// As lanes(), on float32 lanes for a narrow accumulator (lanes_run_narrow's conditions hold), for
// products of the kind kP.
// A pairwise sum's halves, two values of the format, are added on the same lanes (narrow_add:
// Accumulator::add's rounding); a sum past the format's range is redone.
template <size_t R, Products kP>
void lanes_narrow(const OperandOf<kP>* const* a_rows, const OperandOf<kP>* panel, size_t k, const Accumulation& acc,
                  const NarrowFormat& inner, double* const* out, uint64_t* redo) {
  uint32_t bad[R][kLanes] = {};
  auto run = [&](size_t c0, size_t c1, float(*s)[kLanes]) {
    run_narrow<R, false, kP>(a_rows, panel, c0, c1, inner, s, bad);
  };
  auto needs_redo = [&](size_t r, size_t t, double) { return bad[r][t] != 0; };
  if (acc.kind == AccumKind::Pairwise) {
    float s[R][kLanes];
    pairwise_lanes<R, float>(
        0, k, static_cast<size_t>(acc.block), run,
        [&](float(*x)[kLanes], const float(*y)[kLanes]) { narrow_add_lanes<R>(x, y, inner, bad); }, s);
    store_lanes<R>(s, needs_redo, out, redo);
    return;
  }
  if (acc.kind == AccumKind::Kahan) {
    auto kahan = [&](size_t c0, size_t c1, float(*s)[kLanes]) {
      run_narrow<R, true, kP>(a_rows, panel, c0, c1, inner, s, bad);
    };
    chunked_lanes<R, float>(k, acc, kahan, needs_redo, out, redo);
    return;
  }
  chunked_lanes<R, float>(k, acc, run, needs_redo, out, redo);
}

Expected<std::vector<double>> blas_gemm(const GemmShape& s, std::span<const double> a, std::span<const double> b,
                                        DType format) {
  if (format == DType::float64) {
    std::vector<double> c(s.m * s.n);
    blas::gemm_nt(s.m, s.n, s.k, a.data(), b.data(), c.data());
    return c;
  }
  // Float32 scratch left uninitialised (every element is written before it is read).
  using Floats = std::unique_ptr<float[]>;
  auto to_float = [](std::span<const double> x) -> Expected<Floats> {
    Floats f(new float[x.size()]);
    // Converted and checked in one branch-free loop (it vectorises), split between the threads;
    // the first value that is not a float32 number is looked for only when there is one.
    std::atomic<bool> any_inexact{false};
    parallel_for(x.size(), 0, [&](size_t b, size_t e) {
      uint8_t inexact = 0;
      for (size_t i = b; i < e; ++i) {
        f[i] = static_cast<float>(x[i]);
        inexact |= not_float32(x[i], f[i]);
      }
      if (inexact) any_inexact = true;
    });
    if (any_inexact)
      for (size_t i = 0; i < x.size(); ++i)
        if (not_float32(x[i], f[i]))
          return Error{"the float32 BLAS product needs float32 inputs, but " + std::to_string(x[i]) +
                       " is not a float32 number (use an emulated model)"};
    return f;
  };
  auto af = to_float(a);
  if (!af) return Error{af.error()};
  auto bf = to_float(b);
  if (!bf) return Error{bf.error()};
  Floats cf(new float[s.m * s.n]);
  blas::gemm_nt(s.m, s.n, s.k, af->get(), bf->get(), cf.get());
  std::vector<double> c(s.m * s.n);
  parallel_for(c.size(), 0, [&](size_t b, size_t e) {
    std::copy(cf.get() + b, cf.get() + e, c.begin() + static_cast<std::ptrdiff_t>(b));
  });
  return c;
}

// ---- int32 -------------------------------------------------------------------------

// int8 x int8 -> int32: dgemm is exact on integers while every partial sum stays below 2^53
// (checked from the operands' largest magnitudes), then each sum wraps to int32.
Expected<std::vector<double>> int32_gemm(const GemmShape& s, std::span<const double> a, std::span<const double> b) {
  double max_a = 0, max_b = 0;
  for (double v : a) {
    if (v != std::nearbyint(v)) return Error{"int32 accumulation needs integer operands (integer dtypes with a recipe)"};
    max_a = std::max(max_a, std::fabs(v));
  }
  for (double v : b) {
    if (v != std::nearbyint(v)) return Error{"int32 accumulation needs integer operands (integer dtypes with a recipe)"};
    max_b = std::max(max_b, std::fabs(v));
  }
  if (max_a * max_b * static_cast<double>(s.k) >= 0x1p53)
    return Error{"integer sums could exceed 2^53: too large for the exact int32 emulation"};
  std::vector<double> c(s.m * s.n);
  blas::gemm_nt(s.m, s.n, s.k, a.data(), b.data(), c.data());
  for (double& v : c) v = wrap_int32(v);
  return c;
}

}  // namespace

// ---- public ------------------------------------------------------------------------

NarrowFormat narrow_format(const FloatFormat& f) {
  NarrowFormat n;
  n.emin = static_cast<int32_t>(f.emin());
  n.mantissa_bits = static_cast<int32_t>(f.mantissa_bits);
  n.largest = static_cast<float>(LaneFormat(f).largest);
  n.on_bits = f.emin() == -126;
  n.is_float16 = f.mantissa_bits == 10 && f.emin() == -14 && f.emax() == 15 && n.largest == 65504.0f;
  return n;
}

namespace {

// How gemm() runs a model: on lanes of eight columns or not, and with which products and
// accumulator arithmetic (each choice below is the fastest that gives the model's bits).
struct LanePlan {
  size_t blocks = 0;  // groups of kLanes columns run on lanes (0: none)
  bool hardware_f32 = false, narrow = false, fused = false, float_lanes = false;
  Products products = Products::kOfFloat64Operands;
  NarrowFormat inner{};
};

LanePlan plan_lanes(const GemmShape& s, std::span<const double> a, std::span<const double> b, const Accumulation& acc) {
  LanePlan p;
  const bool use_lanes = lanes_apply(acc);
  // Lanes: B's columns packed eight at a time ([k][t]) once, shared by every row.
  p.blocks = use_lanes ? s.n / kLanes : 0;
  // When the products are all exact float32 numbers, a float32 accumulator runs on float32
  // hardware (lanes_run_f32) and a narrow one on float32 lanes (lanes_run_narrow); the
  // operands are then packed as floats.
  const Magnitudes ma = use_lanes ? magnitudes(a) : Magnitudes{}, mb = use_lanes ? magnitudes(b) : Magnitudes{};
  const bool exact_products = use_lanes && float32_products_exact(ma, mb);
  // Float32 operands whose products are not float32 numbers: still float32 hardware, each
  // product fused into its addition; Kahan rounds its products itself, with a plain multiply.
  const bool kahan = acc.kind == AccumKind::Kahan;
  const bool float32_operands = use_lanes && !exact_products && float32_numbers(a) && float32_numbers(b);
  p.fused = float32_operands && !kahan && has_fma();
  p.hardware_f32 = acc.format == DType::float32 && (exact_products || p.fused || (float32_operands && kahan));
  const FloatFormat& format = info(acc.format).format;
  const bool narrow_format_ok = kahan ? kahan_lanes_apply(format) : narrow_lanes_apply(format);
  p.narrow = use_lanes && !p.hardware_f32 && narrow_format_ok;
  if (p.narrow) {
    p.inner = narrow_format(format);
    if (kahan) p.inner.kahan_watch = kahan_watch(format, ma.max * mb.max, s.k);
  }
  // Into a narrow accumulator, the same products (float32_step, rounded_products); other
  // products go through float64 (float64 operands, or float32 ones without a fused multiply-add).
  p.products = exact_products                           ? Products::kFloat32
               : float32_operands && (p.fused || kahan) ? Products::kOfFloat32Operands
                                                        : Products::kOfFloat64Operands;
  p.float_lanes = p.hardware_f32 || (p.narrow && p.products != Products::kOfFloat64Operands);
  return p;
}

// B's lane columns packed [block][k][lane], as floats when the plan runs float lanes (and A
// as floats then too).
struct Panels {
  std::vector<double> b;
  std::vector<float> b_f, a_f;
};

Panels pack_panels(const GemmShape& s, std::span<const double> a, std::span<const double> b, const LanePlan& plan) {
  Panels p;
  const size_t blocks = plan.blocks;
  if (plan.float_lanes) p.b_f.resize(blocks * s.k * kLanes);
  else p.b.resize(blocks * s.k * kLanes);
  for (size_t blk = 0; blk < blocks; ++blk)
    for (size_t t = 0; t < kLanes; ++t)
      for (size_t kk = 0; kk < s.k; ++kk) {
        const double v = b[(blk * kLanes + t) * s.k + kk];
        if (plan.float_lanes) p.b_f[(blk * s.k + kk) * kLanes + t] = static_cast<float>(v);
        else p.b[(blk * s.k + kk) * kLanes + t] = v;
      }
  if (plan.float_lanes) p.a_f.assign(a.begin(), a.end());
  return p;
}

}  // namespace

Expected<std::vector<double>> gemm(const GemmShape& s, std::span<const double> a, std::span<const double> b,
                                   const Accumulation& acc, const std::function<void(double)>& progress,
                                   const std::atomic<bool>* cancel, uint64_t stream_base) {
  if (a.size() != s.m * s.k || b.size() != s.n * s.k) return Error{"gemm: operand sizes do not match the shape"};
  if (auto st = check(acc); !st) return Error{describe(acc) + ": " + st.error()};
  if (acc.kind == AccumKind::Blas) return blas_gemm(s, a, b, acc.format);
  if (acc.kind == AccumKind::Int32) return int32_gemm(s, a, b);
  if (acc.kind == AccumKind::Multiterm) return multiterm_gemm(s, a, b, acc, progress, cancel, stream_base);

  std::vector<double> c(s.m * s.n);
  std::atomic<size_t> rows_done{0};
  std::atomic<bool> stopped{false};
  const std::thread::id caller = std::this_thread::get_id();
  const LanePlan plan = plan_lanes(s, a, b, acc);
  const size_t blocks = plan.blocks;
  const bool hardware_f32 = plan.hardware_f32, narrow = plan.narrow, fused = plan.fused, float_lanes = plan.float_lanes;
  const Products products = plan.products;
  const NarrowFormat& inner = plan.inner;
  const Panels packed = pack_panels(s, a, b, plan);
  const std::vector<double>& panels = packed.b;
  const std::vector<float>&panels_f = packed.b_f, &a_f = packed.a_f;
  constexpr size_t kRows = 8;  // rows sharing each panel load
  const size_t row_groups = (s.m + kRows - 1) / kRows;
  parallel_for(
      row_groups, 0,
      [&](size_t g0, size_t g1) {
        for (size_t g = g0; g < g1; ++g) {
          if (cancel && cancel->load(std::memory_order_relaxed)) {
            stopped = true;
            return;
          }
          const size_t i0 = g * kRows, rows = std::min(kRows, s.m - i0);
          auto general = [&](size_t i, size_t j) {
            c[i * s.n + j] =
                dot(a.subspan(i * s.k, s.k), b.subspan(j * s.k, s.k), acc, stream_base + gemm_stream_offset(i, j, s.n));
          };
          for (size_t blk = 0; blk < blocks; ++blk) {
            const double* a_rows[kRows];
            const float* a_rows_f[kRows];
            double* out[kRows];
            uint64_t redo[kRows];
            for (size_t r = 0; r < rows; ++r) {
              a_rows[r] = a.data() + (i0 + r) * s.k;
              if (float_lanes) a_rows_f[r] = a_f.data() + (i0 + r) * s.k;
              out[r] = c.data() + (i0 + r) * s.n + blk * kLanes;
            }
            // kernel(R, r): rows r .. r + R - 1 -- the whole group at once, or a part group row by row.
            auto by_rows = [&](auto kernel) {
              if (rows == kRows) kernel(std::integral_constant<size_t, kRows>{}, 0);
              else
                for (size_t r = 0; r < rows; ++r) kernel(std::integral_constant<size_t, 1>{}, r);
            };
            // lanes_narrow for products of the kind P (float or double operands and panel).
            auto narrow_rows = [&](auto P, const auto* const* operand_rows, const auto* operand_panel) {
              by_rows([&](auto R, size_t r) {
                lanes_narrow<R, P>(operand_rows + r, operand_panel, s.k, acc, inner, out + r, redo + r);
              });
            };
            const float* panel_f = float_lanes ? panels_f.data() + blk * s.k * kLanes : nullptr;
            const double* panel = float_lanes ? nullptr : panels.data() + blk * s.k * kLanes;
            if (hardware_f32)
              by_rows(
                  [&](auto R, size_t r) { lanes_f32<R>(a_rows_f + r, panel_f, s.k, acc, fused, out + r, redo + r); });
            else if (narrow && products == Products::kFloat32)
              narrow_rows(std::integral_constant<Products, Products::kFloat32>{}, a_rows_f, panel_f);
            else if (narrow && products == Products::kOfFloat32Operands)
              narrow_rows(std::integral_constant<Products, Products::kOfFloat32Operands>{}, a_rows_f, panel_f);
            else if (narrow)
              narrow_rows(std::integral_constant<Products, Products::kOfFloat64Operands>{}, a_rows, panel);
            else by_rows([&](auto R, size_t r) { lanes<R>(a_rows + r, panel, s.k, acc, out + r, redo + r); });
            for (size_t r = 0; r < rows; ++r)
              for (size_t t = 0; t < kLanes; ++t)
                if (redo[r] >> t & 1) general(i0 + r, blk * kLanes + t);
          }
          for (size_t r = 0; r < rows; ++r)
            for (size_t j = blocks * kLanes; j < s.n; ++j) general(i0 + r, j);
          const size_t done = rows_done += rows;
          if (progress && std::this_thread::get_id() == caller)
            progress(static_cast<double>(done) / static_cast<double>(s.m));
        }
      },
      /*min_chunk=*/1);
  if (stopped) return Error{"cancelled"};
  return c;
}

Expected<std::vector<double>> reference_gemm(const GemmShape& s, std::span<const double> a, std::span<const double> b,
                                             bool high_precision, const std::atomic<bool>* cancel) {
  std::vector<double> c(s.m * s.n);
  if (!high_precision) {
    blas::gemm_nt(s.m, s.n, s.k, a.data(), b.data(), c.data());
    return c;
  }
  parallel_for(
      s.m, 0,
      [&](size_t r0, size_t r1) {
        for (size_t i = r0; i < r1 && !(cancel && cancel->load(std::memory_order_relaxed)); ++i)
          for (size_t j = 0; j < s.n; ++j) {
            const DoubleDouble d = dot_reference(a.subspan(i * s.k, s.k), b.subspan(j * s.k, s.k));
            c[i * s.n + j] = d.hi + d.lo;
          }
      },
      1);
  if (cancel && cancel->load()) return Error{"cancelled"};
  return c;
}

}  // namespace pl::experiment
