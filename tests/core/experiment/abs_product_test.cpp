// The bound check's |A||B| (core/experiment/abs_product.h): the float32 product of |a| and |b|
// within its accumulation's bound of the exact one, scaled when the values lie far from 1, and
// kept only for the very operand objects and backend of the call before.
#include "core/experiment/abs_product.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

namespace pl::experiment {
namespace {

std::shared_ptr<const Quantised> operand(size_t rows, size_t cols, double scale) {
  auto q = std::make_shared<Quantised>();
  q->rows = rows, q->cols = cols;
  for (size_t i = 0; i < rows * cols; ++i)
    q->values.push_back(scale * (static_cast<double>((i * 37) % 101) - 50.5) / 13.0);
  return q;
}

// Each (|A||B|)_ij from the float32 product, 2^-scale times, against the float64 sums: float32
// operands (one rounding each) and k float32 additions of nonnegative terms.
void expect_near_exact(const AbsProduct& p, const Quantised& a, const Quantised& b, size_t m, size_t n, size_t k) {
  const double allowed = (static_cast<double>(k) + 2) * 0x1p-24;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double exact = 0;
      for (size_t l = 0; l < k; ++l) exact += std::fabs(a.values[i * k + l]) * std::fabs(b.values[j * k + l]);
      const double got = std::ldexp(static_cast<double>(p.values()[i * n + j]), -p.scale);
      ASSERT_TRUE(std::isfinite(got));
      EXPECT_LE(std::fabs(got - exact), allowed * exact) << i << "," << j;
    }
}

TEST(AbsProduct, IsTheFloat32ProductOfTheMagnitudesScaledWhenFarFromOne) {
  const GemmShape s{6, 5, 40};
  for (double scale : {1.0, 1e25, 1e-25}) {
    const auto a = operand(6, 40, scale), b = operand(5, 40, -scale);
    const auto p = abs_product_of(BackendChoice::Cpu, s, a, b);
    ASSERT_EQ(p->size, 30u);
    EXPECT_EQ(p->scale != 0, scale != 1.0) << scale;
    expect_near_exact(*p, *a, *b, 6, 5, 40);
  }
}

TEST(AbsProduct, KeptOnlyForTheSameOperandObjectsAndBackend) {
  const GemmShape s{6, 5, 40};
  auto a = operand(6, 40, 1.0);
  const auto b = operand(5, 40, 1.0);
  bool hit = true;
  const auto first = abs_product_of(BackendChoice::Cpu, s, a, b, &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(abs_product_of(BackendChoice::Cpu, s, a, b, &hit), first);
  EXPECT_TRUE(hit);
  abs_product_of(BackendChoice::Cpu, s, operand(6, 40, 1.0), b, &hit);  // equal values, another object
  EXPECT_FALSE(hit);
  abs_product_of(BackendChoice::Cpu, s, a, b, &hit);
  abs_product_of(BackendChoice::Auto, s, a, b, &hit);  // another backend choice
  EXPECT_FALSE(hit);
  abs_product_of(BackendChoice::Cpu, s, a, b, &hit);
  a.reset();  // gone: an object made later never matches its entry
  abs_product_of(BackendChoice::Cpu, s, operand(6, 40, 2.0), b, &hit);
  EXPECT_FALSE(hit);
}

}  // namespace
}  // namespace pl::experiment
