// A held array's values on the host, as a vector, for tests (a failed read is a test failure).
#pragma once

#include <vector>

#include <gtest/gtest.h>

#include "core/backend/held_values.h"

namespace pl::test {

inline std::vector<double> values_of(const Held& held) {
  if (!held) {
    ADD_FAILURE() << "no array";
    return {};
  }
  auto v = held->host();
  if (!v) {
    ADD_FAILURE() << "reading the array back: " << v.error();
    return {};
  }
  return {v->begin(), v->end()};
}

}  // namespace pl::test
