// The emulated product models the GPU parity suite runs bit for bit against the CPU
// (product_parity_test.cpp), in one list that the host tests read too: kernels_host_test.cpp
// checks that the GPU plans every one of them, on machines without a GPU. A case the GPU
// refuses fails only where a GPU is (e8m12:fn's sums, past float32's range, went unnoticed
// until a GPU ran them).
#pragma once

#include <ostream>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/dtype/format_lookup.h"

namespace pl::parity_cases {

struct EmulatedCase {
  DType input;
  experiment::Accumulation acc;
};

inline void PrintTo(const EmulatedCase& c, std::ostream* os) { *os << name(c.input) << ", " << describe(c.acc); }

inline experiment::Accumulation chunked(DType inner, int chunk) {
  return {experiment::AccumKind::Chunked, inner, Rounding::NearestEven, 32, chunk, DType::float32};
}

inline experiment::Accumulation multiterm(int block, int extra_bits, Rounding rounding, DType format = DType::float32) {
  return {experiment::AccumKind::Multiterm, format, rounding, block, 128, DType::float32, extra_bits};
}

// A custom format (custom_dtype.h), named as a user names it; registered on first use.
inline DType custom(const char* spelling) { return *parse_dtype(spelling); }

inline std::vector<EmulatedCase> emulated_cases() {
  using experiment::AccumKind;
  return {
      EmulatedCase{DType::bfloat16, {AccumKind::Sequential, DType::float32}},
      EmulatedCase{DType::bfloat16, {AccumKind::Sequential, DType::bfloat16}},
      EmulatedCase{DType::float16, {AccumKind::Sequential, DType::float16}},
      EmulatedCase{DType::float8_e4m3fn, {AccumKind::Sequential, DType::float16}},
      EmulatedCase{DType::float8_e5m2, chunked(DType::float16, 32)},
      EmulatedCase{DType::float8_e4m3fn, chunked(DType::tf32, 128)},
      EmulatedCase{DType::float4_e2m1fn, chunked(DType::bfloat16, 16)},
      EmulatedCase{DType::float6_e3m2fn, {AccumKind::Sequential, DType::float8_e5m2}},
      EmulatedCase{DType::int8, {AccumKind::Sequential, DType::float32}},
      EmulatedCase{DType::bfloat16, {AccumKind::Pairwise, DType::float32, Rounding::NearestEven, 32}},
      EmulatedCase{DType::float16, {AccumKind::Pairwise, DType::float16, Rounding::NearestEven, 8}},
      EmulatedCase{DType::bfloat16, {AccumKind::Kahan, DType::float32}},
      EmulatedCase{DType::float8_e4m3fn, {AccumKind::Kahan, DType::bfloat16}},
      // the deterministic modes besides nearest-even (narrow accumulators)
      EmulatedCase{DType::bfloat16, {AccumKind::Sequential, DType::bfloat16, Rounding::TowardZero}},
      EmulatedCase{DType::float16, {AccumKind::Sequential, DType::float16, Rounding::Down}},
      EmulatedCase{DType::float8_e4m3fn, {AccumKind::Pairwise, DType::float16, Rounding::Up, 8}},
      EmulatedCase{DType::float8_e5m2,
                   {AccumKind::Chunked, DType::float16, Rounding::NearestAway, 32, 32, DType::bfloat16}},
      EmulatedCase{DType::bfloat16, {AccumKind::Sequential, DType::bfloat16, Rounding::Stochastic}},
      EmulatedCase{DType::float16, {AccumKind::Kahan, DType::float32, Rounding::Stochastic}},
      EmulatedCase{DType::bfloat16, {AccumKind::Sequential, DType::float32, Rounding::TowardZero}},
      // the multi-term adder (a tensor core's, and others)
      EmulatedCase{DType::bfloat16, multiterm(16, 2, Rounding::TowardZero)},
      EmulatedCase{DType::float16, multiterm(8, 0, Rounding::NearestEven)},
      EmulatedCase{DType::float8_e4m3fn, multiterm(32, 1, Rounding::Stochastic, DType::bfloat16)},
      // Custom formats take the same kernels as the table's (as the table's do). The GPU's
      // sums need a format within float32's range: e7m12:fn, not e8m12:fn (whose top binade,
      // finite in fn, lies past float32's largest).
      EmulatedCase{custom("e5m7"), {AccumKind::Sequential, custom("e6m9")}},
      EmulatedCase{custom("e3m3:finite"), chunked(custom("e5m8"), 32)},
      EmulatedCase{custom("e4m4b5:fnuz"), {AccumKind::Kahan, custom("e7m12:fn"), Rounding::Stochastic}},
      EmulatedCase{custom("e2m2:finite"), {AccumKind::Pairwise, custom("e4m6"), Rounding::TowardZero, 8}},
      EmulatedCase{DType::float32, {AccumKind::Float64, DType::float64}},
      EmulatedCase{DType::float64, {AccumKind::Float64, DType::float64}},
  };
}

}  // namespace pl::parity_cases
