#include "core/experiment/abs_product.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "core/experiment/on_device.h"
#include "core/util/parallel.h"

namespace pl::experiment {
namespace {

// |x| in float32 times 2^s, and s: 0 while max |x| lies in [2^-30, 2^30] (every dtype's usual
// range), else the power of two that brings max |x| to [0.5, 1) (exact: a power of two). The
// float32 |A||B| of the bound check would otherwise overflow to inf for operands past ~1e19 --
// every scaled error then reading 0, "within the bound" -- or underflow to 0 for operands
// under ~1e-19, leaving their elements uncompared. The common case costs no second pass: the
// largest |x| is found on the way, and only a range past those limits converts again.
int abs_to_float(std::span<const double> x, float* out) {
  double top = 0;
  std::mutex lock;
  parallel_for(x.size(), 0, [&](size_t b, size_t e) {
    double mine = 0;
    for (size_t i = b; i < e; ++i) {
      const double a = std::fabs(x[i]);
      out[i] = static_cast<float>(a);
      mine = a > mine ? a : mine;  // (a NaN is passed over)
    }
    const std::lock_guard hold(lock);
    top = std::max(top, mine);
  });
  if (top == 0 || !std::isfinite(top) || (top >= 0x1p-30 && top <= 0x1p30)) return 0;
  int e = 0;
  std::frexp(top, &e);  // top * 2^-e in [0.5, 1); ldexp, since 2^-e may not be a double
  parallel_for(x.size(), 0, [&](size_t b, size_t end) {
    for (size_t i = b; i < end; ++i) out[i] = static_cast<float>(std::ldexp(std::fabs(x[i]), -e));
  });
  return -e;
}

struct Kept {
  std::mutex lock;
  std::weak_ptr<const Quantised> a, b;
  BackendChoice backend = BackendChoice::Cpu;
  std::shared_ptr<const AbsProduct> value;
};

}  // namespace

std::shared_ptr<const AbsProduct> abs_product_of(BackendChoice backend, const GemmShape& shape,
                                                 const std::shared_ptr<const Quantised>& a,
                                                 const std::shared_ptr<const Quantised>& b, bool* hit) {
  static Kept kept;
  {
    // lock() is empty once an operand is gone: an object made later at its address never matches.
    const std::lock_guard hold(kept.lock);
    if (kept.value && kept.a.lock() == a && kept.b.lock() == b && kept.backend == backend) {
      if (hit) *hit = true;
      return kept.value;
    }
  }
  if (hit) *hit = false;
  const std::span<const double> da = a->dequantised(), db = b->dequantised();
  auto p = std::make_shared<AbsProduct>();
  // (Scratch left uninitialised: every element is written before it is read.)
  const std::unique_ptr<float[]> abs_a(new float[da.size()]), abs_b(new float[db.size()]);
  p->size = shape.m * shape.n;
  p->data.reset(new float[p->size]);
  p->scale = abs_to_float(da, abs_a.get()) + abs_to_float(db, abs_b.get());
  p->method = abs_product(backend, shape, abs_a.get(), abs_b.get(), p->data.get(), p->note);
  const std::lock_guard hold(kept.lock);
  kept.a = a, kept.b = b, kept.backend = backend, kept.value = p;
  return p;
}

}  // namespace pl::experiment
