// How a dot product's sum is accumulated, emulated exactly: every addition rounded once to
// the accumulator format, as hardware that accumulates in that format does. The products
// a_k * b_k are exact (inputs of at most float32 precision have exact float64 products),
// so the only roundings are the ones the model names.
//
// Models: float64 (hardware doubles), sequential in any format, pairwise (blocked:
// sequential leaves of `block` products, then pairwise sums), Kahan (compensated, every
// operation rounded to the format), and chunked (sequential in an inner format for `chunk`
// products, each chunk's sum then added into an outer float32 accumulator, as fp8 tensor
// cores promote their partial sums), multi-term (a tensor core's fused block adder:
// multiterm.h), and the BLAS library's own float32/float64 GEMM.
// The reference is a double-double dot product
// (Ogita, Rump and Oishi's Dot2), accurate far beyond float64.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl::experiment {

enum class AccumKind : uint8_t {
  Float64,     // a float64 loop, in order (hardware)
  Sequential,  // in order, every addition rounded to `format`
  Pairwise,    // blocked pairwise
  Kahan,       // compensated
  Chunked,     // `chunk` products in `format`, then into `outer`
  Blas,        // the library's GEMM in `format` (float32: OpenBLAS sgemm, float64: dgemm) --
               // its own blocking order and fused multiply-adds, as users' code runs it. The
               // order depends on the shape: a 1 x 1 product (dot()) and an element of a
               // larger GEMM can differ in the last bits (OpenBLAS 0.3.21, measured)
  Int32,       // integer products summed in a two's-complement int32 accumulator, as int8
               // tensor cores and VNNI do: exact, wrapping past 2^31 (format int32). The
               // epilogue converts the sum to float32 (result_dtype) before any scale.
  Multiterm,   // `block` products and the running sum added at once, as a tensor core's
               // multi-term adder does: aligned to the largest, `extra_bits` kept below the
               // format's last place, normalised and rounded once per block (multiterm.h)
};

struct Accumulation {
  AccumKind kind = AccumKind::Sequential;
  DType format = DType::float32;  // the accumulator (Chunked: the inner accumulator)
  Rounding rounding = Rounding::NearestEven;
  int block = 32;                // Pairwise: products summed sequentially per leaf;
                                 // Multiterm: products per block
  int chunk = 128;               // Chunked: products per chunk before promotion
  DType outer = DType::float32;  // Chunked: where the chunk sums go
  int extra_bits = 0;            // Multiterm: bits kept below the format's last place
};

std::string_view accum_kind_name(AccumKind k);  // "float64", "sequential", ...
std::optional<AccumKind> parse_accum_kind(std::string_view name);
// "fp32 sequential rne", "fp16 chunked(128) -> fp32", ... for labels. A BLAS model names the
// library that ran it where one is given ("f32 OpenBLAS sgemm"), else none ("f32 BLAS sgemm": on a
// GPU it is cuBLASLt's).
std::string describe(const Accumulation& a, std::string_view blas_library = "");

// The format a model's result is in (Chunked: the outer accumulator).
DType result_dtype(const Accumulation& a);

// An error saying why a model cannot run as asked: float64 accumulation is hardware
// round-to-nearest-even only; the accumulator must be a float format; sizes positive.
Status check(const Accumulation& a);

// A GEMM library's own float16 accumulation (cuBLAS CUBLAS_COMPUTE_16F): a model for matrix
// products on a backend that has such a library, not for the CPU's dot products.
bool is_float16_library(const Accumulation& a);
// check() for a matrix product's model: as check(), but a float16 library model passes (the
// backend that runs the product decides whether it can).
Status check_product_model(const Accumulation& a);

// sum_k a[k] * b[k] under the model. The inputs must already be values of their dtypes
// (at most float32 precision, so products are exact). Stochastic rounding draws element
// `stream_offset + step` of the counter-based stream at each rounding step.
double dot(std::span<const double> a, std::span<const double> b, const Accumulation& acc, uint64_t stream_offset = 0);

// The most one rounding into t changes a value, relative: u = 2^-p for rounding to nearest; a
// directed or stochastic rounding can be off by a whole unit in the last place, so 2^(1-p).
double unit_roundoff(DType t, Rounding r);

// The classical bounds on |computed - exact| / sum_k |a_k b_k| for the model at length k (u =
// 2^-p of each format involved for rounding to nearest, 2^(1-p) for directed and stochastic
// rounding). Each product is rounded into the accumulator with its first addition, which the
// gamma bounds count; Kahan's rounds it on its own first, so its bound depends on whether the
// products are exact in the format (exact_products):
//   sequential gamma_k(u) = k u / (1 - k u); pairwise(B) gamma_{min(k,B) + ceil(log2 ceil(k/B))};
//   Kahan 2u + k u^2 with exact products, else u + (2u + k u^2)(1 + u) (each product's rounding,
//   at most u |a_k b_k|, then the sum of the rounded products, at most (1 + u) sum |a_k b_k|);
//   chunked(N) gamma_{min(k,N)}(u_inner) + gamma_{ceil(k/N)}(u_outer);
//   float64 gamma_k(2^-53); BLAS gamma_k(u) (it holds for every summation order). The probabilistic estimates
//   replace each m u by sqrt(m) u (Higham and Mary, 2019: the typical size, not a bound). Infinite
//   where m u >= 1: the bound says nothing there.
struct ErrorBounds {
  double deterministic = 0;
  double probabilistic = 0;
};
ErrorBounds accumulation_bounds(const Accumulation& a, size_t k, bool exact_products = false);
// The u each of the model's additions rounds to: 2^-53 for float64, else unit_roundoff of its
// format and rounding (a BLAS sum in float64 has 2^-53 too).
double accumulation_unit(const Accumulation& a);
// The bounds after `steps` more roundings of the sum, each at most u relative (a GEMM epilogue's
// scale and bias in the accumulator's format, an int32 sum's conversion to float32): relative to
// (|A||B|)_ij + |b_j|, (1 + bound)(1 + u)^steps - 1, and the estimate with steps more sqrt terms,
// sqrt(estimate^2 + steps u^2). They are not more terms of the sum: a Kahan sum's bound does not
// grow by u a term, and a pairwise sum's depth does not grow by one.
ErrorBounds with_roundings_after(ErrorBounds sum, size_t steps, double u);
// Whether the estimate is the bound itself: a Kahan sum's (accumulation_bounds takes its bound as
// its estimate), whose leading term, 2u or 3u with rounded products, is a fixed number of
// roundings, not K of them: only its K u^2 term grows with K. (Not an exact sum's zeros: there
// both say "no error".)
inline bool estimate_is_the_bound(const ErrorBounds& b) {
  return b.deterministic > 0 && b.probabilistic == b.deterministic;
}
// Why a table's estimate column says "= bound" (estimate_is_the_bound), as one sentence without a
// final stop, for the dot command's note and the window's tooltip alike.
std::string_view estimate_is_the_bound_text();

// Whether every product of a value of `a` and one of `b` is exact in the model's accumulator:
// floats whose significant bits add up to the accumulator's at most (bfloat16 x bfloat16 into
// float32; not float32 x float32). Without b, whether a's values are (a plain sum). Integers
// answer no. By precision alone: as every classical bound here, it assumes no product
// underflows or overflows the accumulator.
bool exact_products(const Accumulation& acc, DType a, std::optional<DType> b);
// The same for values of `product_bits` significant bits together (a's plus b's): for operands
// whose values carry more bits than their dtype (NVFP4's block scale folded in).
bool exact_products(const Accumulation& acc, int product_bits);
// Whether the model rounds at each of its K additions (sequential, the BLAS order, float64):
// its bound and estimate are then gamma_K and sqrt(K) u themselves. Pairwise, Kahan, chunked and
// multi-term sums have their own, over fewer rounding steps (accumulation_bounds).
bool rounds_at_each_addition(AccumKind kind);
// What the model's bound and estimate are called where they are shown: "gamma_K" and "sqrt(K) u"
// where rounds_at_each_addition, else "worst-case bound" and "probabilistic estimate". sqrt(K) u
// is the typical size of the error when the roundings' errors are independent, not a bound:
// Higham and Mary's probabilistic bound is lambda sqrt(K) u with a probability that is vacuous at
// lambda = 1, and measured errors exceed sqrt(K) u at small K. (A pairwise sum's
// worst case is gamma of its leaf plus its levels, not gamma_K); and where the worst case does
// not exist, why ("K u >= 1", else that the model's own rounding steps reach m u >= 1, each
// stage or adder with the u it rounds to).
struct BoundNames {
  std::string_view worst, probable, none_when;
};
BoundNames bound_names(AccumKind kind);
// The deterministic bound as text (bound_value_text), or "none" past K u >= 1, where gamma_K
// does not exist (it is not infinite; accumulation_bounds keeps +inf there for comparisons).
std::string gamma_text(double deterministic);
// A bound in scientific notation, exact where seven digits hold it (sqrt(4) 2^-8: 7.8125e-03),
// else rounded up at four, so that it still bounds: gamma_4 of bfloat16, 1/63 = 0.015873...,
// reads 1.588e-02; to nearest, "1.587e-02" stated a bound below it.
std::string bound_value_text(double bound);

// The double-double reference: hi + lo equals the exact dot product to about 106 bits.
struct DoubleDouble {
  double hi = 0, lo = 0;
};
DoubleDouble dot_reference(std::span<const double> a, std::span<const double> b);

// An exact integer (|x| < 2^63) as a two's-complement int32 holds it: x mod 2^32, signed.
double wrap_int32(double exact_integer);

// round(hi + lo) to `format` exactly, as if the exact sum were rounded once: the building
// block of every emulated addition (hi + lo from an error-free TwoSum).
double round_exact_sum(const FloatFormat& format, double hi, double lo, const CastOptions& o, uint64_t index);

}  // namespace pl::experiment
