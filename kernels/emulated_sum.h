// One element of an emulated GEMM: the sum of a row of A times a row of B under a sequential,
// chunked, pairwise, Kahan or multi-term model, every addition rounded once in the accumulator's format in
// any rounding mode -- written once for the GPU kernels (emulated_gemm.cu) and the host,
// where a test checks it bit for bit against the CPU's own models (core/accumulate/gemm.h) on
// every machine, GPU or not.
//
// Exactness, and where it is handed back: a product must be an exact float32 (inputs of at
// most 12 bits of precision each, no underflow); a float32 accumulator then adds in float32
// arithmetic, a narrower one rounds TwoSum's exact sum to odd at float32 precision and then to
// its own format (correct for formats of at most 22 bits: Boldo and Melquiond, "When double
// rounding is odd", 2005). An element whose products are not exact, or whose sums leave the
// finite range of a format, is flagged `bad`, and the host recomputes it with the CPU's
// general code -- as the CPU's own fast lanes do.
//
// Each operation rounds once: on the device through the _rn intrinsics (which nvcc never
// contracts), on the host through plain float operations built with -ffp-contract=off.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/dtype/device/quantum.h"
#include "core/dtype/device/round_to_odd.h"
#include "core/dtype/device/roundtrip_f32.h"
#include "core/dtype/device/roundtrip_f64.h"  // f64_bits, f64_from_bits
#include "core/dtype/device/stochastic.h"
#include "core/util/host_device.h"

namespace pl::cuda {

struct EmulatedAdd {
  bool hardware_f32 = true;     // float32 to nearest even: add in float32 arithmetic
  bool exact_path = false;      // stochastic, or float32 in another mode: round_exact() below
  RoundtripF32Params format{};  // else: the narrow format
  float largest = 0;            // its largest finite value
  Rounding rounding = Rounding::NearestEven;
  uint64_t seed = 0;                    // stochastic: the CPU's CastOptions::seed
  int emin = -126, mantissa_bits = 23;  // the format, for round_exact()
  bool negative_zero = true;            // whether it has -0
};

enum class EmulatedKind : uint8_t { Sequential, Chunked, Pairwise, Kahan, Multiterm };

struct EmulatedModel {
  EmulatedKind kind = EmulatedKind::Sequential;
  bool chunked = false;      // kind == Chunked
  size_t chunk = 0;          // products per chunk (chunked)
  size_t block = 0;          // products per sequential leaf (pairwise), per block (multi-term)
  int extra_bits = 0;        // multi-term: bits kept below the format's last place
  EmulatedAdd inner;         // the accumulator (chunked: within a chunk)
  EmulatedAdd outer;         // chunked: where the chunk sums go
  uint64_t stream_base = 0;  // added to every element's stream_offset (ProductSpec::stream_offset)
};

// The first stochastic draw of element (i, j) of an m x n product: the CPU's
// experiment::gemm_stream_offset (a host test checks they agree).
PL_HD inline uint64_t stream_offset(size_t i, size_t j, size_t n) { return uint64_t(i * n + j) << 32; }

namespace sum {

PL_HD inline float add_rn(float x, float y) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(x, y);
#else
  return x + y;
#endif
}
PL_HD inline float mul_rn(float x, float y) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(x, y);
#else
  return x * y;
#endif
}
PL_HD inline double dmul_rn(double x, double y) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(x, y);
#else
  return x * y;
#endif
}
PL_HD inline double dadd_rn(double x, double y) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(x, y);
#else
  return x + y;
#endif
}
PL_HD inline bool finite(float x) { return (f32_bits(x) & 0x7F800000u) != 0x7F800000u; }
PL_HD inline float magnitude(float x) { return f32_from_bits(f32_bits(x) & 0x7FFFFFFFu); }

}  // namespace sum

// x (a float32) rounded to the narrow format in the accumulator's rounding mode. Rounding to
// odd at float32's 24 bits first makes this the rounding of the exact sum for every mode but
// stochastic, which draws against bits float32 no longer holds: nearest modes need two bits
// beyond the format's precision, directed ones one (Boldo and Melquiond).
PL_HD inline float round_narrow(float x, const EmulatedAdd& r) {
  switch (r.rounding) {
    case Rounding::NearestAway: return roundtrip_f32<Rounding::NearestAway>(x, r.format, 0);
    case Rounding::TowardZero: return roundtrip_f32<Rounding::TowardZero>(x, r.format, 0);
    case Rounding::Up: return roundtrip_f32<Rounding::Up>(x, r.format, 0);
    case Rounding::Down: return roundtrip_f32<Rounding::Down>(x, r.format, 0);
    default: return roundtrip_f32<Rounding::NearestEven>(x, r.format, 0);
  }
}

// The CPU's route, for what float32 cannot carry (stochastic rounding draws against the first
// 32 bits below the format's quantum; a float32 accumulator in a directed mode keeps no bits
// beyond its own): x + y exactly as float64 TwoSum, rounded to odd at 53 bits
// (exact_sum.h's round_sum), then rounded to the format by the codec's own round_to_quantum
// (core/dtype/device/quantum.h), drawing stochastic_bits(seed, index). Overflow is handed back to
// the host (bad).
PL_HD inline float round_exact(double hi, double lo, const EmulatedAdd& r, uint64_t index, bool& bad) {
  const uint64_t bits = f64_bits(hi);
  const bool negative = (bits >> 63) != 0;
  if ((bits & 0x7FF0000000000000ull) == 0x7FF0000000000000ull) {
    bad = true;
    return float(hi);
  }
  const double odd = f64_from_bits(round_to_odd_bits<uint64_t>(hi, lo));
  if (odd == 0.0) return negative && r.negative_zero ? -0.0f : 0.0f;
  const Magnitude mag = decompose(odd);
  const int e = floor_log2(mag);
  const int qe = (e > r.emin ? e : r.emin) - r.mantissa_bits;
  bool inexact = false;
  const uint32_t rnd = r.rounding == Rounding::Stochastic ? stochastic_bits(r.seed, index) : 0;
  const uint64_t kept = round_to_quantum(mag, qe, negative, r.rounding, rnd, &inexact);
  if (kept == 0) return negative && r.negative_zero ? -0.0f : 0.0f;
  // kept * 2^qe is exact in float64 (qe >= -149 - 23), and in float32 for formats within its range.
  const double v = double(kept) * f64_from_bits(uint64_t(qe + 1023) << 52);
  const float out = float(negative ? -v : v);
  bad |= !(sum::magnitude(out) <= r.largest);
  return out;
}

// Whether an exact zero sum x + y is -0 (IEEE 754 6.3, as the CPU's Accumulator::add): it is
// +0, but -0 when rounding toward -Inf unless both operands are +0.
PL_HD inline bool negative_zero_sum(float x, float y, const EmulatedAdd& r) {
  return r.rounding == Rounding::Down && !(f32_bits(x) == 0u && f32_bits(y) == 0u);
}

// round(x + y) to the accumulator's format; `bad` set when the host must redo the element.
// `index` is the CPU accumulator's step (its stochastic draw); every rounding takes the next.
PL_HD inline float add_rounded(float x, float y, const EmulatedAdd& r, bool& bad, uint64_t& index) {
  const uint64_t step = index++;
  if (r.exact_path) {
    const double xd = x, yd = y;  // TwoSum in float64
    const double hi = sum::dadd_rn(xd, yd);
    const double yv = sum::dadd_rn(hi, -xd), xv = sum::dadd_rn(hi, -yv);
    const double lo = sum::dadd_rn(sum::dadd_rn(xd, -xv), sum::dadd_rn(yd, -yv));
    return round_exact(hi == 0.0 && negative_zero_sum(x, y, r) ? -0.0 : hi, lo, r, step, bad);
  }
  float s = sum::add_rn(x, y);
  if (r.hardware_f32) {
    bad |= !sum::finite(s);
    return s;
  }
  // TwoSum (Knuth): s + err == x + y exactly.
  const float yv = sum::add_rn(s, -x);
  const float xv = sum::add_rn(s, -yv);
  const float err = sum::add_rn(sum::add_rn(x, -xv), sum::add_rn(y, -yv));
  if (s == 0.0f && negative_zero_sum(x, y, r)) s = -0.0f;
  const float odd = f32_from_bits(round_to_odd_bits<uint32_t>(s, err));
  const float v = round_narrow(odd, r);
  bad |= !(sum::magnitude(v) <= r.largest) || !sum::finite(s);
  return v;
}

// The product of two operands, exactly as a float32 (bad when it is not exact, NaN included).
PL_HD inline float exact_product(float x, float y, bool& bad) {
  const float p = sum::mul_rn(x, y);
  bad |= double(p) != sum::dmul_rn(double(x), double(y));
  return p;
}

// x rounded to the accumulator's format (the first step of Kahan's update).
PL_HD inline float round_to_format(float x, const EmulatedAdd& r, bool& bad, uint64_t& index) {
  const uint64_t step = index++;
  if (r.exact_path) return round_exact(double(x), 0.0, r, step, bad);
  if (r.hardware_f32) return x;
  const float v = round_narrow(x, r);
  bad |= !(sum::magnitude(v) <= r.largest);
  return v;
}

// A sequential or chunked sum, one product at a time (the tiled kernel feeds it from shared
// memory): products go into `inner`; a chunked model adds each full chunk into `outer`.
// The step counters start where the CPU's accumulators do: the element's stream offset
// (experiment::gemm_stream_offset) for the inner one, and k past it for the outer one.
struct RunningSum {
  float inner = 0.0f, outer = 0.0f;
  size_t in_chunk = 0;
  uint64_t inner_step = 0, outer_step = 0;
  PL_HD RunningSum(uint64_t stream_offset, size_t k) : inner_step(stream_offset), outer_step(stream_offset + k) {}
  PL_HD void add(float product, const EmulatedModel& m, bool& bad) {
    inner = add_rounded(inner, product, m.inner, bad, inner_step);
    if (m.chunked && ++in_chunk == m.chunk) {
      outer = add_rounded(outer, inner, m.outer, bad, outer_step);
      inner = 0.0f;
      in_chunk = 0;
    }
  }
  PL_HD float result(const EmulatedModel& m, bool& bad) {
    if (!m.chunked) return inner;
    if (in_chunk > 0) outer = add_rounded(outer, inner, m.outer, bad, outer_step);
    inner = 0.0f;
    in_chunk = 0;
    return outer;
  }
};

// The CPU's pairwise recursion (core/accumulate/accumulate.cpp) on an explicit stack: a span
// of at most `block` products is summed in order; a longer one splits at
// mid = max(block, floor(n / block / 2) * block), and the two halves' sums are added.
PL_HD inline float pairwise_sum(const float* a, const float* b, size_t n, size_t block, const EmulatedAdd& r, bool& bad,
                                uint64_t step) {
  struct Frame {
    size_t start, len;
    int stage;  // 0: split next, 1: left done, 2: both done
  };
  Frame stack[64];  // depth <= log2(n / block) + 1
  float results[64];
  int top = 0, rtop = 0;
  stack[top++] = {0, n, 0};
  while (top > 0) {
    Frame& f = stack[top - 1];
    if (f.len <= block) {
      float s = 0.0f;
      for (size_t t = 0; t < f.len; ++t)
        s = add_rounded(s, exact_product(a[f.start + t], b[f.start + t], bad), r, bad, step);
      results[rtop++] = s;
      --top;
      continue;
    }
    const size_t half = ((f.len / block) / 2) * block;
    const size_t mid = half == 0 ? block : half;
    if (f.stage == 0) {
      f.stage = 1;
      stack[top++] = {f.start, mid, 0};
    } else if (f.stage == 1) {
      f.stage = 2;
      stack[top++] = {f.start + mid, f.len - mid, 0};
    } else {
      const float right = results[--rtop], left = results[--rtop];
      results[rtop++] = add_rounded(left, right, r, bad, step);
      --top;
    }
  }
  return results[0];
}

// Kahan's compensated sum, every operation rounded to the format (the CPU's kahan()).
PL_HD inline float kahan_sum(const float* a, const float* b, size_t n, const EmulatedAdd& r, bool& bad, uint64_t step) {
  float s = 0.0f, c = 0.0f;
  for (size_t t = 0; t < n; ++t) {  // five roundings a product, in the CPU's order
    const float p = round_to_format(exact_product(a[t], b[t], bad), r, bad, step);
    const float y = add_rounded(p, -c, r, bad, step);
    const float u = add_rounded(s, y, r, bad, step);
    const float d = add_rounded(u, -s, r, bad, step);
    c = add_rounded(d, -y, r, bad, step);
    s = u;
  }
  return s;
}

// The multi-term adder (core/accumulate/multiterm.h, the CPU's multiterm_dot): each block of
// products and the running sum, aligned to the largest of them, truncated `extra_bits` below
// the format's last place there, added exactly in float64 (the plan keeps the integers under
// 2^53) and rounded once through round_exact, which the sequential models' float64 route
// shares. A product that is not an exact finite float32 hands the element back to the host.
PL_HD inline float multiterm_sum(const float* a, const float* b, size_t n, const EmulatedModel& m, bool& bad,
                                 uint64_t step) {
  const EmulatedAdd& r = m.inner;
  const int below = r.mantissa_bits + m.extra_bits;  // the window's bits below its top
  constexpr int kNone = -100000;
  auto exponent = [](float x) { return x == 0.0f ? kNone : floor_log2(decompose(double(x))); };
  auto pow2 = [](int e) { return f64_from_bits(uint64_t(e + 1023) << 52); };  // |e| <= 400 here
  float c = 0.0f;
  for (size_t k0 = 0; k0 < n; k0 += m.block) {
    const size_t k1 = n - k0 < m.block ? n : k0 + m.block;
    int top = exponent(c);
    for (size_t k = k0; k < k1; ++k) {
      const float p = exact_product(a[k], b[k], bad);
      bad |= !sum::finite(p);
      const int e = exponent(p);
      top = e > top ? e : top;
    }
    if (bad) return c;
    if (top == kNone) {  // every term zero: +0
      c = round_exact(0.0, 0.0, r, step++, bad);
      continue;
    }
    const int last = top - below;
    const double down = pow2(-last);
    double units = ::trunc(sum::dmul_rn(double(c), down));
    for (size_t k = k0; k < k1; ++k)
      units = sum::dadd_rn(units, ::trunc(sum::dmul_rn(double(sum::mul_rn(a[k], b[k])), down)));
    c = round_exact(sum::dmul_rn(units, pow2(last)), 0.0, r, step++, bad);
  }
  return c;
}

// One element under any of the models: rows a and b of length n; stream_offset is the
// element's experiment::gemm_stream_offset (its stochastic draws).
PL_HD inline float element_sum(const float* a, const float* b, size_t n, const EmulatedModel& m, bool& bad,
                               uint64_t stream_offset) {
  if (m.kind == EmulatedKind::Pairwise) return pairwise_sum(a, b, n, m.block, m.inner, bad, stream_offset);
  if (m.kind == EmulatedKind::Kahan) return kahan_sum(a, b, n, m.inner, bad, stream_offset);
  if (m.kind == EmulatedKind::Multiterm) return multiterm_sum(a, b, n, m, bad, stream_offset);
  RunningSum s(stream_offset, n);
  for (size_t t = 0; t < n; ++t) s.add(exact_product(a[t], b[t], bad), m, bad);
  return s.result(m, bad);
}

}  // namespace pl::cuda
