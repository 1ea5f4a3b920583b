#include "core/dtype/bulk_convert.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/dtype/codec.h"
#include "core/util/parallel.h"

namespace pl {
namespace {

uint32_t as_f32_bits(double v) { return f32_bits(static_cast<float>(v)); }

// The float32 value the scalar codec gives for x: the single source of every special output.
uint32_t reference_out(const FloatFormat& f, const CastOptions& o, double x) {
  return as_f32_bits(decode(f, encode(f, x, o).code));
}

// Loops are compiled for AVX2 and for baseline x86-64; the loader picks one at run time.
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define PL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PL_CLONES
#endif

template <Rounding R>
PL_CLONES void roundtrip_span(const float* in, float* out, size_t b, size_t e,
                              const RoundtripF32Params& p) {
  const RoundtripF32Params local = p;  // a private copy lets the compiler keep it in registers
  for (size_t i = b; i < e; ++i) out[i] = roundtrip_f32<R>(in[i], local, i);
}

using SpanFn = void (*)(const float*, float*, size_t, size_t, const RoundtripF32Params&);

SpanFn span_for(Rounding r) {
  switch (r) {
    case Rounding::NearestEven: return roundtrip_span<Rounding::NearestEven>;
    case Rounding::NearestAway: return roundtrip_span<Rounding::NearestAway>;
    case Rounding::TowardZero: return roundtrip_span<Rounding::TowardZero>;
    case Rounding::Up: return roundtrip_span<Rounding::Up>;
    case Rounding::Down: return roundtrip_span<Rounding::Down>;
    case Rounding::Stochastic: return roundtrip_span<Rounding::Stochastic>;
  }
  return nullptr;
}

}  // namespace

RoundtripF32Params make_roundtrip_params(const FloatFormat& f, const CastOptions& o) {
  RoundtripF32Params p{};
  // The fast path needs a significand no wider than float32's and a range inside float32's.
  p.supported = f.specials != Specials::E8M0 && f.mantissa_bits <= 23 && f.emin() >= -126 &&
                f.emin() - f.mantissa_bits >= -149 && f.is_signed();
  if (!p.supported) return p;
  p.mantissa_bits = f.mantissa_bits;
  p.emin = f.emin();
  p.max_finite = static_cast<float>(std::fmin(max_finite(f), std::numeric_limits<float>::max()));
  p.min_normal = static_cast<float>(min_normal(f));
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
  p.flush_input = o.flush_input_subnormals;
  p.flush_output = o.flush_output_subnormals;
  p.seed = o.seed;
  return p;
}

void roundtrip_f32_array(const FloatFormat& f, const CastOptions& o, const float* in, float* out,
                         size_t n, unsigned threads) {
  RoundtripF32Params p = make_roundtrip_params(f, o);
  if (!p.supported) {
    parallel_for(n, threads, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i)
        out[i] = static_cast<float>(decode(f, encode_f32(f, in[i], o, i).code));
    });
    return;
  }
  SpanFn fn = span_for(o.rounding);
  parallel_for(n, threads, [&](size_t b, size_t e) { fn(in, out, b, e, p); });
}

void roundtrip_f64_array(const FloatFormat& f, const CastOptions& o, const double* in,
                         double* out, size_t n, unsigned threads) {
  parallel_for(n, threads, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) out[i] = decode(f, encode(f, in[i], o, i).code);
  });
}

void encode_f32_array(const FloatFormat& f, const CastOptions& o, const float* in, void* codes,
                      int code_bytes, size_t n, unsigned threads) {
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
