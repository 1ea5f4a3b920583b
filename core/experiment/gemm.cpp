#include "core/experiment/gemm.h"

#include <algorithm>
#include <cmath>

#include "core/backend/blas.h"
#include "core/dtype/round_nearest.h"
#include "core/experiment/exact_sum.h"
#include "core/util/parallel.h"

// Built with -ffp-contract=off (core/CMakeLists.txt), as accumulate.cpp: exact_sum.h's TwoSum.

namespace pl::experiment {
namespace {

// Columns computed together: independent accumulators let the CPU overlap their additions
// (one addition is a chain of dependent steps; eight chains keep the pipelines busy).
constexpr size_t kLanes = 8;

// The in-order models with round-to-nearest-even into formats round_nearest.h handles:
// the same additions as dot(), several columns at a time.
bool lanes_apply(const Accumulation& acc) {
  if (acc.rounding != Rounding::NearestEven) return false;
  if (acc.kind == AccumKind::Sequential) return nearest_fast_path_applies(info(acc.format).format);
  if (acc.kind == AccumKind::Chunked)
    return nearest_fast_path_applies(info(acc.format).format) &&
           nearest_fast_path_applies(info(acc.outer).format);
  return false;
}

inline double add_rne(const FloatFormat& f, double x, double y) {
  static const CastOptions rne;
  const detail::TwoSumResult s = detail::two_sum(x, y);
  return detail::round_sum(f, s.hi, s.lo, rne, 0);
}

// Columns j0 .. j0 + kLanes - 1 of row i, in order along K (chunked: inner sums of `chunk`
// products, each added into the outer accumulator).
void lanes(const double* a_row, const double* b, size_t j0, size_t k, const Accumulation& acc,
           double* out) {
  const FloatFormat& inner = info(acc.format).format;
  const FloatFormat& outer = info(acc.outer).format;
  const size_t chunk = acc.kind == AccumKind::Chunked ? static_cast<size_t>(acc.chunk) : k;
  const double* rows[kLanes];
  for (size_t t = 0; t < kLanes; ++t) rows[t] = b + (j0 + t) * k;
  double total[kLanes] = {};
  for (size_t c0 = 0; c0 < k; c0 += chunk) {
    const size_t c1 = std::min(k, c0 + chunk);
    double s[kLanes] = {};
    for (size_t kk = c0; kk < c1; ++kk) {
      const double av = a_row[kk];
      for (size_t t = 0; t < kLanes; ++t) s[t] = add_rne(inner, s[t], av * rows[t][kk]);
    }
    if (acc.kind == AccumKind::Chunked)
      for (size_t t = 0; t < kLanes; ++t) total[t] = add_rne(outer, total[t], s[t]);
    else
      for (size_t t = 0; t < kLanes; ++t) total[t] = s[t];
  }
  for (size_t t = 0; t < kLanes; ++t) out[t] = total[t];
}

Expected<std::vector<double>> blas_gemm(const GemmShape& s, std::span<const double> a,
                                        std::span<const double> b, DType format) {
  std::vector<double> c(s.m * s.n);
  if (format == DType::float64) {
    blas::gemm_nt(s.m, s.n, s.k, a.data(), b.data(), c.data());
    return c;
  }
  auto to_float = [](std::span<const double> x) -> Expected<std::vector<float>> {
    std::vector<float> f(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      f[i] = static_cast<float>(x[i]);
      if (static_cast<double>(f[i]) != x[i] && !std::isnan(x[i]))
        return Error{"the float32 BLAS product needs float32 inputs, but " +
                     std::to_string(x[i]) + " is not a float32 number (use an emulated model)"};
    }
    return f;
  };
  auto af = to_float(a);
  if (!af) return Error{af.error()};
  auto bf = to_float(b);
  if (!bf) return Error{bf.error()};
  std::vector<float> cf(s.m * s.n);
  blas::gemm_nt(s.m, s.n, s.k, af->data(), bf->data(), cf.data());
  std::copy(cf.begin(), cf.end(), c.begin());
  return c;
}

}  // namespace

Expected<std::vector<double>> gemm(const GemmShape& s, std::span<const double> a,
                                   std::span<const double> b, const Accumulation& acc,
                                   const std::function<void(double)>& progress,
                                   const std::atomic<bool>* cancel) {
  if (a.size() != s.m * s.k || b.size() != s.n * s.k)
    return Error{"gemm: operand sizes do not match the shape"};
  if (auto why = check(acc); !why.empty()) return Error{describe(acc) + ": " + why};
  if (acc.kind == AccumKind::Blas) return blas_gemm(s, a, b, acc.format);

  std::vector<double> c(s.m * s.n);
  std::atomic<size_t> rows_done{0};
  std::atomic<bool> stopped{false};
  const bool use_lanes = lanes_apply(acc);
  const std::thread::id caller = std::this_thread::get_id();
  parallel_for(
      s.m, 0,
      [&](size_t r0, size_t r1) {
        for (size_t i = r0; i < r1; ++i) {
          if (cancel && cancel->load(std::memory_order_relaxed)) {
            stopped = true;
            return;
          }
          const double* a_row = a.data() + i * s.k;
          double* c_row = c.data() + i * s.n;
          size_t j = 0;
          if (use_lanes)
            for (; j + kLanes <= s.n; j += kLanes) lanes(a_row, b.data(), j, s.k, acc, c_row + j);
          for (; j < s.n; ++j)
            c_row[j] = dot(a.subspan(i * s.k, s.k), b.subspan(j * s.k, s.k), acc,
                           gemm_stream_offset(i, j, s.n));
          const size_t done = ++rows_done;
          if (progress && std::this_thread::get_id() == caller)
            progress(static_cast<double>(done) / static_cast<double>(s.m));
        }
      },
      /*min_chunk=*/1);
  if (stopped) return Error{"cancelled"};
  return c;
}

std::vector<double> reference_gemm(const GemmShape& s, std::span<const double> a,
                                   std::span<const double> b, bool high_precision) {
  std::vector<double> c(s.m * s.n);
  if (!high_precision) {
    blas::gemm_nt(s.m, s.n, s.k, a.data(), b.data(), c.data());
    return c;
  }
  parallel_for(
      s.m, 0,
      [&](size_t r0, size_t r1) {
        for (size_t i = r0; i < r1; ++i)
          for (size_t j = 0; j < s.n; ++j) {
            const DoubleDouble d = dot_reference(a.subspan(i * s.k, s.k), b.subspan(j * s.k, s.k));
            c[i * s.n + j] = d.hi + d.lo;
          }
      },
      1);
  return c;
}

}  // namespace pl::experiment
