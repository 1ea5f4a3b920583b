// What happens to a product's sums on their way out, after the accumulation (matmul.h):
// the GEMM epilogue in the accumulator's format -- an int32 sum converted to float32, the
// operands' scales (row factors) applied, the bias added, each rounded once -- giving Cacc, and
// Cacc rounded to the output dtype, giving C. Element e of an m x n output draws its epilogue's
// stochastic indices at 2^62 + 2e (scale) and 2^62 + 2e + 1 (bias), apart from the accumulation's
// stream, and its output rounding index e, as round_each does.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/accumulate/device/epilogue_element.h"
#include "core/dtype/device/cast_policy.h"
#include "core/dtype/dtype.h"

namespace pl::experiment {

struct OutputSteps {
  size_t m = 0, n = 0;
  Accumulation accumulate;               // the model the sums came from (its result dtype, rounding)
  std::span<const double> row_factor_a;  // m values; empty: no scale
  std::span<const double> row_factor_b;  // n values; empty: no scale
  std::span<const double> bias;          // n values, already in the bias dtype; empty: none
  DType output = DType::float32;
  CastOptions cast;  // the output rounding's
  // Whether any epilogue step changes a value (else Cacc is the sums themselves).
  bool has_epilogue() const;
  bool scaled() const;
};

// The epilogue's rounding of every element as plain values, for a device's kernel
// (epilogue_element.h); `supported` false when roundtrip_f64 does not cover the format.
struct DeviceEpilogue {
  bool supported = false;
  EpilogueParams params;
};
DeviceEpilogue device_epilogue(const OutputSteps& s);

// The epilogue of every element in place (rows on every core): sums become Cacc.
void apply_epilogue(const OutputSteps& s, std::vector<double>& values);

}  // namespace pl::experiment
