#include "core/dtype/bulk_convert.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <xmmintrin.h>  // _mm_stream_ps: SSE, so both clones below may use it
#endif

#include "core/dtype/codec.h"
#include "core/util/parallel.h"
#include "core/util/target_clones.h"

namespace pl {
namespace {

uint32_t as_f32_bits(double v) { return f32_bits(static_cast<float>(v)); }

// The float32 value the scalar codec gives for x: the single source of every special output.
uint32_t reference_out(const FloatFormat& f, const CastOptions& o, double x) {
  return as_f32_bits(decode(f, encode(f, x, o).code));
}

// Arrays larger than this are written with non-temporal stores: they would not stay in
// cache anyway, and plain stores first read every output line from memory ("read for
// ownership"), a third stream of traffic that memcpy does not pay. (glibc's memcpy
// switches to non-temporal stores around the same size.)
constexpr size_t kStreamingBytes = size_t{4} << 20;

// Writes n floats from an aligned buffer to 16-byte-aligned `out`, bypassing the cache.
inline void stream_out(float* out, const float* buf, size_t n) {
#if defined(__x86_64__)
  for (size_t j = 0; j < n; j += 4) _mm_stream_ps(out + j, _mm_load_ps(buf + j));
#else
  std::memcpy(out, buf, n * sizeof(float));
#endif
}

// The element functions a span can apply (roundtrip_f32.h), picked once per array.
template <Rounding R, bool kMayFlush>
struct AnyParams {
  static float apply(float x, const RoundtripF32Params& p, uint64_t i) {
    return roundtrip_f32_signed<R, kMayFlush>(x, p, i);
  }
};
template <Rounding R, bool kMayFlush>
struct E8M0Params {
  static float apply(float x, const RoundtripF32Params& p, uint64_t i) {
    return roundtrip_f32_e8m0<R, kMayFlush>(x, p, i);
  }
};
struct SymmetricNearestEven {
  static float apply(float x, const RoundtripF32Params& p, uint64_t) {
    return roundtrip_f32_nearest_even_symmetric(x, p);
  }
};

template <class Element>
PL_CLONES void roundtrip_span(const float* in, float* out, size_t b, size_t e, const RoundtripF32Params& p,
                              bool streaming) {
  const RoundtripF32Params local = p;  // a private copy lets the compiler keep it in registers
  size_t i = b;
  if (streaming) {
    for (; i < e && reinterpret_cast<uintptr_t>(out + i) % 16 != 0; ++i) out[i] = Element::apply(in[i], local, i);
    constexpr size_t kBlock = 1024;  // 4 KiB: stays in L1 between the two passes
    alignas(64) float buf[kBlock];
    for (; i + kBlock <= e; i += kBlock) {
      for (size_t j = 0; j < kBlock; ++j) buf[j] = Element::apply(in[i + j], local, i + j);
      stream_out(out + i, buf, kBlock);
    }
#if defined(__x86_64__)
    _mm_sfence();  // order the streamed stores before the thread joins
#endif
  }
  for (; i < e; ++i) out[i] = Element::apply(in[i], local, i);
}

using SpanFn = void (*)(const float*, float*, size_t, size_t, const RoundtripF32Params&, bool);

// The modes other than nearest-even a block at a time: first the short path (roundtrip_f32.h's
// short_magnitude) for every element, branch-free so that it vectorises, into `buf`; then the
// generic function for the elements it does not cover (short_covers), one by one. The same bits
// as the generic function throughout. Needs 23 - mantissa bits >= 1. Returns how many elements
// the short path missed; the caller sends a block with many of them through the generic loop
// instead (then `buf` is left unfinished). Always inlined: it must be compiled for the caller's
// clone (PL_CLONES); left out of line for stochastic rounding, GCC would build it for the
// baseline target, without the vector 64-bit multiplies of the draws, and the loop would run
// several times slower.
template <Rounding R, bool kMayFlush>
[[gnu::always_inline]] inline size_t short_block(const float* __restrict in, float* __restrict buf, size_t n,
                                                 uint64_t first, const RoundtripF32Params& p) {
  uint32_t missed = 0;
  for (size_t j = 0; j < n; ++j) {
    const uint32_t u = f32_bits(in[j]);
    uint32_t draw = 0;
    if constexpr (R == Rounding::Stochastic) draw = stochastic_bits(p.seed, first + j);
    missed += uint32_t(!short_covers(u & 0x7FFFFFFFu, p));
    buf[j] = f32_from_bits(short_result<R>(u, short_magnitude<R>(u, p, draw), p));
  }
  if (missed == 0 || missed > n / 32) return missed;
  for (size_t j = 0; j < n; ++j)
    if (!short_covers(f32_bits(in[j]) & 0x7FFFFFFFu, p))
      buf[j] = roundtrip_f32_generic<R, kMayFlush>(in[j], p, first + j);
  return missed;
}

template <Rounding R, bool kMayFlush>
PL_CLONES void short_span(const float* in, float* out, size_t b, size_t e, const RoundtripF32Params& p,
                          bool streaming) {
  using Generic = AnyParams<R, kMayFlush>;
  const RoundtripF32Params local = p;  // a private copy lets the compiler keep it in registers
  size_t i = b;
  if (streaming)
    for (; i < e && reinterpret_cast<uintptr_t>(out + i) % 16 != 0; ++i) out[i] = Generic::apply(in[i], local, i);
  constexpr size_t kBlock = 1024;  // 4 KiB: stays in L1 between the passes
  alignas(64) float buf[kBlock];
  // Data that mostly leaves the short path (subnormal results, say) goes straight to the generic
  // loop (roundtrip_span's); the short path is tried again every 16th block.
  bool generic_first = false;
  for (size_t block = 0; i < e; i += kBlock, ++block) {
    const size_t n = std::min(kBlock, e - i);
    if (generic_first && block % 16 != 0) {
      roundtrip_span<Generic>(in, out, i, i + n, local, streaming);
      continue;
    }
    const size_t missed = short_block<R, kMayFlush>(in + i, buf, n, i, local);
    generic_first = missed > n / 2;
    if (missed > n / 32) {
      roundtrip_span<Generic>(in, out, i, i + n, local, streaming);
    } else if (streaming && n == kBlock) {
      stream_out(out + i, buf, kBlock);
    } else {
      std::memcpy(out + i, buf, n * sizeof(float));
    }
  }
#if defined(__x86_64__)
  if (streaming) _mm_sfence();  // order the streamed stores before the thread joins
#endif
}

template <bool kMayFlush>
SpanFn short_span_for(Rounding r) {
  switch (r) {
    case Rounding::NearestEven: return nullptr;  // its own span
    case Rounding::NearestAway: return short_span<Rounding::NearestAway, kMayFlush>;
    case Rounding::TowardZero: return short_span<Rounding::TowardZero, kMayFlush>;
    case Rounding::Up: return short_span<Rounding::Up, kMayFlush>;
    case Rounding::Down: return short_span<Rounding::Down, kMayFlush>;
    case Rounding::Stochastic: return short_span<Rounding::Stochastic, kMayFlush>;
  }
  return nullptr;
}

template <template <Rounding, bool> class Element, bool kMayFlush>
SpanFn span_for(Rounding r) {
  switch (r) {
    case Rounding::NearestEven: return roundtrip_span<Element<Rounding::NearestEven, kMayFlush>>;
    case Rounding::NearestAway: return roundtrip_span<Element<Rounding::NearestAway, kMayFlush>>;
    case Rounding::TowardZero: return roundtrip_span<Element<Rounding::TowardZero, kMayFlush>>;
    case Rounding::Up: return roundtrip_span<Element<Rounding::Up, kMayFlush>>;
    case Rounding::Down: return roundtrip_span<Element<Rounding::Down, kMayFlush>>;
    case Rounding::Stochastic: return roundtrip_span<Element<Rounding::Stochastic, kMayFlush>>;
  }
  return nullptr;
}

}  // namespace

RoundtripF32Params make_roundtrip_params(const FloatFormat& f, const CastOptions& o) {
  RoundtripF32Params p{};
  // The fast path rounds to a significand no wider than float32's in a range inside float32's;
  // a format holding every float32 (float64) is float32's own shape there, where nothing
  // rounds. e8m0 has its own function (roundtrip_f32_e8m0). Other formats partly finer than
  // float32 (custom ones: e9m10, e7m30, ...) take the scalar codec.
  const bool holds_float32 = f.mantissa_bits >= 23 && f.emin() <= -126 && f.emax() >= 127;
  p.e8m0 = f.specials == Specials::E8M0;
  p.supported =
      p.e8m0 || (f.is_signed() &&
                 (holds_float32 || (f.mantissa_bits <= 23 && f.emin() >= -126 && f.emin() - f.mantissa_bits >= -149)));
  if (!p.supported) return p;
  p.mantissa_bits = holds_float32 ? 23 : f.mantissa_bits;
  p.emin = holds_float32 ? -126 : f.emin();
  p.max_finite_bits = as_f32_bits(std::fmin(max_finite(f), std::numeric_limits<float>::max()));
  p.min_normal_bits = f32_bits(static_cast<float>(min_normal(f)));
  const int dropped = 23 - p.mantissa_bits;
  p.rne_bias = dropped ? (uint32_t{1} << (dropped - 1)) - 1 : 0;
  p.rne_lsb = dropped ? 1 : 0;
  p.rne_keep_mask = ~((uint32_t{1} << dropped) - 1);
  p.subnormal_magic = std::ldexp(1.0f, p.emin - p.mantissa_bits + 23);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double huge = std::numeric_limits<double>::max();  // overflows every format
  CastOptions away = o;
  away.rounding = Rounding::NearestEven;
  for (int s = 0; s < 2; ++s) {
    double sign = s ? -1.0 : 1.0;
    p.nan_out[s] = reference_out(f, o, std::copysign(nan, sign));
    p.inf_out[s] = reference_out(f, o, sign * inf);
    p.overflow_out[s] = reference_out(f, away, sign * huge);
    p.max_out[s] = as_f32_bits(sign * max_finite(f));
  }
  p.unsigned_zero = !f.has_negative_zero();
  constexpr uint32_t kSign = 0x80000000u;
  p.sign_symmetric = !p.unsigned_zero && p.nan_out[1] == (p.nan_out[0] | kSign) &&
                     p.overflow_out[1] == (p.overflow_out[0] | kSign) && p.inf_out[0] == p.overflow_out[0] &&
                     p.inf_out[1] == p.overflow_out[1];
  p.flush_input = o.flush_input_subnormals;
  p.flush_output = o.flush_output_subnormals;
  p.seed = o.seed;
  return p;
}

void roundtrip_f32_array(const FloatFormat& f, const CastOptions& o, const float* in, float* out, size_t n,
                         unsigned threads) {
  RoundtripF32Params p = make_roundtrip_params(f, o);
  if (!p.supported) {
    parallel_for(n, threads, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) out[i] = static_cast<float>(decode(f, encode_f32(f, in[i], o, i).code));
    });
    return;
  }
  const bool flushing = p.flush_input || p.flush_output;
  SpanFn fn = p.e8m0     ? span_for<E8M0Params, true>(o.rounding)
              : flushing ? span_for<AnyParams, true>(o.rounding)
                         : span_for<AnyParams, false>(o.rounding);
  if (o.rounding == Rounding::NearestEven && !flushing && p.sign_symmetric && !p.e8m0)
    fn = roundtrip_span<SymmetricNearestEven>;
  if (o.rounding != Rounding::NearestEven && !p.e8m0 && p.mantissa_bits < 23)
    fn = flushing ? short_span_for<true>(o.rounding) : short_span_for<false>(o.rounding);
  const bool streaming = n * sizeof(float) > kStreamingBytes;
  parallel_for(n, threads, [&](size_t b, size_t e) { fn(in, out, b, e, p, streaming); });
}

void encode_f32_array(const FloatFormat& f, const CastOptions& o, const float* in, void* codes, int code_bytes,
                      size_t n, unsigned threads) {
  parallel_for(n, threads, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      uint64_t c = encode_f32(f, in[i], o, i).code;
      std::memcpy(static_cast<char*>(codes) + i * code_bytes, &c, code_bytes);  // little-endian
    }
  });
}

void copy_array(const void* in, void* out, size_t bytes, unsigned threads) {
  parallel_for(bytes, threads, [&](size_t b, size_t e) {
    std::memcpy(static_cast<char*>(out) + b, static_cast<const char*>(in) + b, e - b);
  });
}

}  // namespace pl
