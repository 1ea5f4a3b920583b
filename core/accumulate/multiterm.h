// A multi-term adder, the arithmetic Fasi, Higham, Mikaitis and Pranesh found in NVIDIA's
// tensor cores ("Numerical behavior of NVIDIA tensor cores", PeerJ Computer Science 7:e330,
// 2021, section "Features of the accumulator"): each step adds a block of products and the
// running sum at once. The terms are aligned to the largest of them; the bits of each that
// fall more than `extra_bits` below the format's last place at that exponent are dropped
// (truncated toward zero, as a right shift of a sign-magnitude significand drops them); the
// aligned terms are added exactly -- carries out of the top need no normalisation in between
// -- and the sum is normalised and rounded to the format once, in the model's rounding mode.
//
// Two things follow that no adder rounding after each addition shows: bits the hardware
// drops depend on the largest term, not on the partial sums; and the result is not monotone
// -- raising the running sum past a power of two coarsens the alignment, so raising one term
// can lower the sum (Mikaitis, "Monotonicity of multi-term floating-point adders", IEEE
// Transactions on Computers, 2024). The accumulation probe tests for exactly that.
//
// What the model does not reproduce: which exponent hardware aligns a product on. Here it is
// the exact product's; an adder that aligns on the sum of the factors' exponents keeps one
// bit more of a product whose significand reaches 2. Such details are what a bit-exact model
// of one GPU (Khattak and Mikaitis, "Accurate models of NVIDIA tensor cores", 2025) settles
// by comparing against the hardware on random inputs.
//
// The sum of a block is exact when the format's precision, the extra bits and the carries of
// `block + 1` terms fit in float64's 53 bits (check_multiterm); products must be exact in
// float64, as for every emulated model.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/accumulate/gemm.h"
#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl::experiment {

// An error saying why the model cannot run as asked.
Status check_multiterm(const Accumulation& a);

// sum_k a[k] * b[k], `acc.block` products a step; step s rounds with stochastic draw
// `stream_offset + s`.
double multiterm_dot(std::span<const double> a, std::span<const double> b, const Accumulation& acc,
                     uint64_t stream_offset);

// The model's GEMM (C = A B^T, A m x k and B n x k row-major): each element as multiterm_dot
// takes it with stream offset stream_base + gemm_stream_offset(i, j, n), eight columns at a time
// (multiterm_gemm.cpp). gemm() calls it for the multi-term model.
Expected<std::vector<double>> multiterm_gemm(const GemmShape& s, std::span<const double> a, std::span<const double> b,
                                             const Accumulation& acc, const std::function<void(double)>& progress,
                                             const std::atomic<bool>* cancel, uint64_t stream_base);

// A block's exact sum x rounded to the format once: round_to(format, x, o, index), with a short
// path for truncation to float32 (`float32`), the tensor cores' own rounding -- x is exact, so
// dropping its bits past float32's 24 rounds it once toward zero wherever the result is a
// normal float32.
double multiterm_round(const FloatFormat& format, bool float32, double x, const CastOptions& o, uint64_t index);

// The two implementations' shared step (multiterm.cpp, multiterm_gemm.cpp): the biased exponent
// field of a term (0x7FF: Inf or NaN; 0: zero or subnormal), and a block's window -- the
// exponent of its last place, for the largest field among its terms `top` -- when the short
// path, scaling by powers of two in float64's normal range, can take it.
namespace multiterm_detail {
inline uint64_t exponent_field(double x) { return (std::bit_cast<uint64_t>(x) >> 52) & 0x7FF; }
inline bool window(uint64_t top, int below, int* last) {
  *last = int(top) - 1023 - below;
  return top > 0 && top < 0x7FF && *last > -1000 && *last < 1000;
}
}  // namespace multiterm_detail

// The largest number of products per block and extra bits check_multiterm accepts.
inline constexpr int kMultitermMaxBlock = 1024;
inline constexpr int kMultitermMaxExtraBits = 24;

}  // namespace pl::experiment
