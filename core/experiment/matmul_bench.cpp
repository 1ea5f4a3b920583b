#include "core/experiment/matmul_bench.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "core/accumulate/blas.h"
#include "core/experiment/quantised_cache.h"
#include "core/experiment/reference_cache.h"
#include "core/util/median.h"
#include "core/util/thread_limit.h"

namespace pl::experiment {
namespace {

double time_ms(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The stages of the run whose total is the median.
StageTimes stages_of_median(const std::vector<double>& totals, double median_total,
                            const std::vector<StageTimes>& stages) {
  const size_t mid = static_cast<size_t>(std::find(totals.begin(), totals.end(), median_total) - totals.begin());
  return stages[std::min(mid, stages.size() - 1)];
}

}  // namespace

Expected<MatmulTiming> time_matmul(const MatmulConfig& c, int reps) {
  if (auto st = check(c); !st) return Error{st.error()};
  const ThreadLimit limit(c.threads);  // the bare calls too, as the run's (0: all cores)
  reps = std::max(reps, 1);
  MatmulTiming t;
  t.config = c;
  t.reps = reps;
  // The operands are drawn by run 0 and kept (matmul.cpp's drawn_operands), as the window's are:
  // a user's tensors exist already.

  // The library calls run_matmul makes (matmul.cpp), on buffers of the same shapes.
  const size_t m = c.m, n = c.n, k = c.k;
  std::vector<double> ad(m * k, 0.5), bd(n * k, 0.25), cd(m * n);
  std::vector<float> af(m * k, 0.5f), bf(n * k, 0.25f), cf(m * n);
  std::vector<std::function<void()>> calls;
  if (!double_double_reference(c)) {
    t.blas_calls = {"dgemm (reference)", "dgemm (reference of the rounded inputs)"};
    calls.push_back([&] { blas::gemm_nt(m, n, k, ad.data(), bd.data(), cd.data()); });
    calls.push_back([&] { blas::gemm_nt(m, n, k, ad.data(), bd.data(), cd.data()); });
  }
  if (c.accumulate.kind == AccumKind::Blas && c.accumulate.format == DType::float32) {
    t.blas_calls.push_back("sgemm (the product)");
    calls.push_back([&] { blas::gemm_nt(m, n, k, af.data(), bf.data(), cf.data()); });
  } else if (c.accumulate.kind == AccumKind::Blas || c.accumulate.kind == AccumKind::Int32) {
    t.blas_calls.push_back("dgemm (the product)");
    calls.push_back([&] { blas::gemm_nt(m, n, k, ad.data(), bd.data(), cd.data()); });
  }
  t.blas_calls.push_back("sgemm (|A||B| for the bound check)");
  calls.push_back([&] { blas::gemm_nt(m, n, k, af.data(), bf.data(), cf.data()); });

  std::vector<double> experiment, cached, blas;
  std::vector<StageTimes> stages, cached_stages;
  for (int r = 0; r <= reps; ++r) {  // run 0 warms caches, pages and OpenBLAS's threads
    Expected<MatmulResult> res = Error{""};
    clear_reference_cache();  // the references and the quantising are part of what is timed
    clear_quantised_cache();
    const double e = time_ms([&] { res = run_matmul(c); });
    if (!res) return Error{res.error()};
    const StageTimes uncached = res->seconds;  // the stages of the run `e` timed, not the cached one
    if (r == 1) t.reference_method = res->reference_method, t.product_backend = res->product_backend;
    const double ec = time_ms([&] { res = run_matmul(c); });
    if (!res) return Error{res.error()};
    if (r > 0) {
      cached.push_back(ec);
      cached_stages.push_back(res->seconds);
    }
    const double b = time_ms([&] {
      for (const auto& call : calls) call();
    });
    if (r == 0) continue;
    experiment.push_back(e);
    blas.push_back(b);
    stages.push_back(uncached);
  }
  t.experiment_ms = median(experiment);
  t.cached_ms = median(cached);
  t.blas_ms = median(blas);
  t.stages = stages_of_median(experiment, t.experiment_ms, stages);
  t.cached_stages = stages_of_median(cached, t.cached_ms, cached_stages);
  t.product_ms = t.stages.product * 1e3;
  t.product_gflops = t.product_ms > 0 ? 2.0 * double(m) * double(n) * double(k) / (t.product_ms * 1e6) : 0;
  return t;
}

}  // namespace pl::experiment
