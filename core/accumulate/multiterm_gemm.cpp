// The multi-term model's GEMM: eight columns of B at a time, one independent sum per column
// (SIMD lanes), each block's steps exactly as multiterm_dot takes them. A lane whose block
// holds an Inf or NaN, only subnormal terms, or terms past float64's normal range is redone
// by multiterm_dot, as gemm()'s other lanes hand such elements back.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <thread>
#include <vector>

#include "core/accumulate/gemm.h"
#include "core/accumulate/multiterm.h"
#include "core/dtype/codec.h"
#include "core/dtype/round_nearest.h"  // pow2_bits
#include "core/util/parallel.h"
#include "core/util/target_clones.h"

// Built with -ffp-contract=off (core/CMakeLists.txt): a product and its scaling must round
// apart, as in multiterm_dot.

namespace pl::experiment {
namespace {

constexpr size_t kLanes = 8;

using multiterm_detail::exponent_field;

struct Model {
  const FloatFormat* format;
  CastOptions options;
  size_t block;
  int below;
  bool float32;
};

// One row of A against eight packed columns of B ([k][lane]); `step` holds each lane's next
// stochastic index. Returns the lanes to redo as a bit mask.
PL_CLONES unsigned lanes_run(const double* row, const double* panel, size_t k, const Model& m, uint64_t* step,
                             double* out) {
  double c[kLanes] = {};
  unsigned redo = 0;
  for (size_t k0 = 0; k0 < k; k0 += m.block) {
    const size_t k1 = std::min(k, k0 + m.block);
    uint64_t top[kLanes];
    for (size_t t = 0; t < kLanes; ++t) top[t] = exponent_field(c[t]);
    for (size_t kk = k0; kk < k1; ++kk)
      for (size_t t = 0; t < kLanes; ++t) top[t] = std::max(top[t], exponent_field(row[kk] * panel[kk * kLanes + t]));
    // Each lane's window; a block of zeros sums to +0 at any scale (1 here), as multiterm_dot's.
    double down[kLanes], up[kLanes];
    for (size_t t = 0; t < kLanes; ++t) {
      int last = 0;
      const bool fits = multiterm_detail::window(top[t], m.below, &last);
      if (!fits) {
        bool all_zero = top[t] == 0;
        for (size_t kk = k0; kk < k1 && all_zero; ++kk) all_zero = row[kk] * panel[kk * kLanes + t] == 0.0;
        if (!all_zero) redo |= 1u << t;
      }
      down[t] = fits ? pow2_bits(-last) : 1.0;
      up[t] = fits ? pow2_bits(last) : 1.0;
    }
    // The terms in units of each lane's window, truncated toward zero: integers below 2^53
    // (check_multiterm), so each lane's sum is exact.
    double units[kLanes];
    for (size_t t = 0; t < kLanes; ++t) units[t] = std::trunc(c[t] * down[t]);
    for (size_t kk = k0; kk < k1; ++kk)
      for (size_t t = 0; t < kLanes; ++t) units[t] += std::trunc(row[kk] * panel[kk * kLanes + t] * down[t]);
    for (size_t t = 0; t < kLanes; ++t)
      if (!(redo >> t & 1)) c[t] = multiterm_round(*m.format, m.float32, units[t] * up[t], m.options, step[t]++);
  }
  for (size_t t = 0; t < kLanes; ++t) out[t] = c[t];
  return redo;
}

}  // namespace

Expected<std::vector<double>> multiterm_gemm(const GemmShape& s, std::span<const double> a, std::span<const double> b,
                                             const Accumulation& acc, const std::function<void(double)>& progress,
                                             const std::atomic<bool>* cancel, uint64_t stream_base) {
  const FloatFormat& format = info(acc.format).format;
  Model m{&format,
          {},
          static_cast<size_t>(acc.block),
          format.precision() - 1 + acc.extra_bits,
          acc.format == DType::float32};
  m.options.rounding = acc.rounding;
  std::vector<double> c(s.m * s.n);
  // B's columns packed eight at a time ([k][lane]) once, shared by every row.
  const size_t groups = s.n / kLanes;
  std::vector<double> panels(groups * s.k * kLanes);
  for (size_t g = 0; g < groups; ++g)
    for (size_t t = 0; t < kLanes; ++t)
      for (size_t kk = 0; kk < s.k; ++kk) panels[(g * s.k + kk) * kLanes + t] = b[(g * kLanes + t) * s.k + kk];
  std::atomic<size_t> rows_done{0};
  std::atomic<bool> stopped{false};
  const std::thread::id caller = std::this_thread::get_id();
  parallel_for(
      s.m, 0,
      [&](size_t i0, size_t i1) {
        for (size_t i = i0; i < i1; ++i) {
          if (cancel && cancel->load(std::memory_order_relaxed)) {
            stopped = true;
            return;
          }
          const std::span<const double> row = a.subspan(i * s.k, s.k);
          auto general = [&](size_t j) {
            c[i * s.n + j] =
                multiterm_dot(row, b.subspan(j * s.k, s.k), acc, stream_base + gemm_stream_offset(i, j, s.n));
          };
          for (size_t g = 0; g < groups; ++g) {
            uint64_t step[kLanes];
            for (size_t t = 0; t < kLanes; ++t) step[t] = stream_base + gemm_stream_offset(i, g * kLanes + t, s.n);
            const unsigned redo =
                lanes_run(row.data(), panels.data() + g * s.k * kLanes, s.k, m, step, c.data() + i * s.n + g * kLanes);
            for (size_t t = 0; t < kLanes; ++t)
              if (redo >> t & 1) general(g * kLanes + t);
          }
          for (size_t j = groups * kLanes; j < s.n; ++j) general(j);
          const size_t done = ++rows_done;
          if (progress && std::this_thread::get_id() == caller)
            progress(static_cast<double>(done) / static_cast<double>(s.m));
        }
      },
      1);
  if (stopped) return Error{"cancelled"};
  return c;
}

}  // namespace pl::experiment
