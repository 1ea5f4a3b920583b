// Helpers shared by the core tests.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/dtype/dtype.h"
#include "tests/core/values_of.h"

namespace pl::test {

inline std::vector<char> read_golden(const std::string& file) {
  std::string path = PL_GOLDEN_DIR;  // appended: GCC 12 warns falsely on a chain of + (bug 105329)
  path.append("/").append(file);
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "missing golden file " << file << " (tests/data/gen_golden.py makes it)";
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The formats of 16 bits or fewer: small enough to visit every code.
inline std::vector<DType> small_float_dtypes() {
  std::vector<DType> out;
  for (const auto& row : all_dtypes())
    if (row.kind == DTypeKind::Float && row.format.total_bits() <= 16) out.push_back(row.id);
  return out;
}

inline std::string param_name(DType t) { return std::string(name(t)); }

}  // namespace pl::test
