// The one error convention: Expected<T> for a value or a reason, Status for a reason alone.
#include "core/util/expected.h"

#include <gtest/gtest.h>

#include <memory>

namespace pl {
namespace {

Status refuse_odd(int n) {
  if (n % 2) return Error{std::to_string(n) + " is odd"};
  return {};
}

Expected<int> half(int n) {
  if (auto st = refuse_odd(n); !st) return Error{st.error()};
  return n / 2;
}

TEST(Expected, StatusIsOkUntilGivenAnError) {
  EXPECT_TRUE(Status{}.ok());
  EXPECT_EQ(Status{}.error(), "");
  const Status st = refuse_odd(3);
  EXPECT_FALSE(st);
  EXPECT_EQ(st.error(), "3 is odd");
  // An error with an empty message is still an error: success is never an empty string.
  EXPECT_FALSE(Status(Error{""}).ok());
}

TEST(Expected, AValueOrTheReasonThereIsNone) {
  ASSERT_TRUE(half(8));
  EXPECT_EQ(*half(8), 4);
  ASSERT_FALSE(half(7));
  EXPECT_EQ(half(7).error(), "7 is odd");
}

TEST(Expected, HoldsMoveOnlyValues) {
  Expected<std::unique_ptr<int>> p = std::make_unique<int>(5);
  ASSERT_TRUE(p);
  std::unique_ptr<int> taken = std::move(p).value();
  EXPECT_EQ(*taken, 5);
}

}  // namespace
}  // namespace pl
