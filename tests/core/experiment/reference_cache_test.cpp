// The reference cache: the same operands give the cached product (identical bits), a single
// changed bit misses, the byte bound drops the oldest entries, and run_matmul says when its
// reference came from the cache.
#include <gtest/gtest.h>

#include "core/experiment/matmul.h"
#include "core/experiment/reference_cache.h"
#include "tests/core/test_util.h"

namespace pl::experiment {
namespace {

CachedReference computed(double v, int* calls) {
  ++*calls;
  return {hold_on_host(std::vector<double>(4, v)), "computed"};
}

TEST(ReferenceCache, HitsOnTheSameBitsAndMissesOnOneChangedBit) {
  clear_reference_cache();
  const GemmShape s{2, 2, 3};
  std::vector<double> a(6, 1.0), b(6, 2.0);
  int calls = 0;
  bool hit = true;
  auto r1 = reference_cached(
      s, false, operand_hash(a, b), [&] { return computed(1, &calls); }, &hit);
  EXPECT_FALSE(hit);
  auto r2 = reference_cached(
      s, false, operand_hash(a, b), [&] { return computed(2, &calls); }, &hit);
  EXPECT_TRUE(hit);
  EXPECT_EQ(r2.values, r1.values);  // the very same array, shared
  EXPECT_EQ(calls, 1);
  b[5] = -b[5];  // a sign bit
  reference_cached(
      s, false, operand_hash(a, b), [&] { return computed(3, &calls); }, &hit);
  EXPECT_FALSE(hit);
  a[0] = 0.0;  // +0 and -0 are different bits
  const uint64_t plus = operand_hash(a, b);
  a[0] = -0.0;
  EXPECT_NE(operand_hash(a, b), plus);
  // The high-precision reference of the same operands is another entry.
  reference_cached(
      s, true, operand_hash(a, b), [&] { return computed(4, &calls); }, &hit);
  EXPECT_FALSE(hit);
}

TEST(ReferenceCache, DropsTheOldestBeyondItsBound) {
  clear_reference_cache();
  const GemmShape s{2, 2, 1};
  int calls = 0;
  const size_t bound = 2 * 4 * sizeof(double);  // two entries of four values
  for (uint64_t h : {1, 2, 3})
    reference_cached(
        s, false, h, [&] { return computed(double(h), &calls); }, nullptr, bound);
  bool hit = true;
  reference_cached(
      s, false, 1, [&] { return computed(1, &calls); }, &hit, bound);
  EXPECT_FALSE(hit);  // the oldest went
  reference_cached(
      s, false, 3, [&] { return computed(3, &calls); }, &hit, bound);
  EXPECT_TRUE(hit);
}

// The hash of owned operands is remembered while their owners live (held weakly: a later object
// at a freed owner's address never matches): asked again for the same
// arrays of the same owners it is not made again -- seen here by changing the values behind the
// owners' backs, which the contract forbids -- and another owner, or none, hashes anew.
TEST(ReferenceCache, OwnedOperandsAreHashedOncePerOwner) {
  auto a = std::make_shared<std::vector<double>>(64, 1.0);
  auto b = std::make_shared<std::vector<double>>(32, 2.0);
  const uint64_t first = owned_operand_hash(*a, *b, a, b);
  EXPECT_EQ(first, operand_hash(*a, *b));
  (*a)[3] = 5.0;
  EXPECT_EQ(owned_operand_hash(*a, *b, a, b), first);        // remembered
  EXPECT_NE(owned_operand_hash(*a, *b, nullptr, b), first);  // no owner: hashed again
  EXPECT_NE(owned_operand_hash(*a, *b, b, a), first);        // other owners
}

TEST(ReferenceCache, ARerunOnTheSameOperandsReusesItsReferencesAndSaysSo) {
  clear_reference_cache();
  MatmulConfig c;
  c.m = c.n = 16, c.k = 64;
  auto first = run_matmul(c);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->reference_method.find("cached"), std::string::npos);
  c.accumulate = {AccumKind::Sequential, DType::bfloat16};  // another model, the same operands
  auto second = run_matmul(c);
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->reference_method.find("(cached)"), std::string::npos) << second->reference_method;
  EXPECT_EQ(second->reference, first->reference);  // the same arrays, not copies
  EXPECT_EQ(second->rounded_reference, first->rounded_reference);
  clear_reference_cache();
}

TEST(ReferenceCache, ABiasIsAddedToACopyNeverToTheSharedProduct) {
  clear_reference_cache();
  MatmulConfig c;
  c.op = MatmulOp::Linear;
  c.m = c.n = 8, c.k = 32;
  c.bias = DType::float32;
  auto first = run_matmul(c);
  ASSERT_TRUE(first.ok());
  auto second = run_matmul(c);  // both references from the cache, the bias added again
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->reference_method.find("(cached)"), std::string::npos);
  EXPECT_EQ(test::values_of(second->reference), test::values_of(first->reference));
  EXPECT_EQ(test::values_of(second->rounded_reference), test::values_of(first->rounded_reference));
  EXPECT_EQ(second->total.stats.max_abs, first->total.stats.max_abs);
  clear_reference_cache();
}

}  // namespace
}  // namespace pl::experiment
