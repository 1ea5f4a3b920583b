// A candidate format for a checkpoint's tensors: a dtype and the scaling recipe that puts a
// tensor into it, written DTYPE[:RECIPE[:BLOCK]] ("bfloat16", "float8_e4m3fn:per-channel",
// "float4_e2m1fn:mx", "float4_e2m1fn:nvfp4", "int8:per-channel", "int8:group:128"). The block,
// when written, must be the recipe's own (32 for mx, 16 for nvfp4); a group's is its size.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/quantise/scaling.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct Candidate {
  DType dtype = DType::bfloat16;
  Scaling scaling;

  std::string text() const;        // the canonical spelling: "float8_e4m3fn:per-channel"
  std::string short_text() const;  // for axes and table headers: "e4m3fn channel", "bf16"
};

Expected<Candidate> parse_candidate(std::string_view text);
// The recipes a candidate takes, "none, per-tensor, per-channel, ...": every scaling recipe but
// delayed scaling, which needs earlier steps' amax.
std::string candidate_recipe_names();
// A comma-separated list; a candidate named twice is an error.
Expected<std::vector<Candidate>> parse_candidates(std::string_view list);

// The list `scan` takes when given none: the formats deployment stacks use for weights.
inline constexpr std::string_view kDefaultCandidates =
    "bfloat16,float8_e4m3fn:per-tensor,float8_e4m3fn:per-channel,float8_e4m3fn:mx,int8:per-channel,"
    "float6_e2m3fn:mx,float4_e2m1fn:mx,float4_e2m1fn:nvfp4";

// Bits an element occupies in the format, packed: a float's sign, exponent and mantissa bits
// (float4_e2m1fn 4, float6_e2m3fn 6), an integer's width.
int element_bits(DType t);

// Bits per parameter of a rows x cols tensor stored in the candidate, scales included (rows x
// cols is the tensor seen as a matrix: its leading dimensions by its last):
//   none              element bits
//   per-tensor        + one float32 scale for the tensor
//   per-channel       + one float32 scale per row (dimension 0's slices, the output channels)
//   per-channel-asym. + a float32 scale and an element-width zero point per row
//   mx                + one 8-bit E8M0 scale per block of 32 along the row (4.25 for float4)
//   nvfp4             + one 8-bit E4M3 scale per block of 16, and one float32 tensor scale
//   group             + one float16 scale per group of G along the row
//   group-asymmetric  + a float16 scale and an element-width zero point per group
// A row shorter than a whole number of blocks counts its last, partial block's scale too.
double bits_per_param(const Candidate& c, size_t rows, size_t cols);

}  // namespace pl::experiment
