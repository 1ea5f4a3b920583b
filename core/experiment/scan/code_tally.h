// The scan's shortcut for bfloat16 weights. A candidate that scales by the whole tensor (none,
// per-tensor) makes the same copy of every element that has the same code, and MX, whose block
// scale is a power of two, the same copy of every element that has the same code in a block
// whose amax has the same exponent. A bfloat16 tensor holds at most 32767 magnitudes, and in
// practice a few thousand, so one pass counts its elements by (block exponent, magnitude) and
// each such candidate then rounds every distinct pair once, its errors weighted by the count
// (tallied_scores in fused_scores.h). The copies are the register pass's bit for bit, and so
// are the maxima and the counts; the error energy is the same sum taken pair by pair instead of
// element by element (they differ in the last digits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/dtype/device/cast_policy.h"
#include "core/experiment/scan/candidate.h"

namespace pl::experiment {

// The distinct (value, block amax) pairs of a tensor's nonzero elements, in a fixed order, and
// how many elements each stands for. Values are positive: nearest-even rounding and the
// saturation of the candidates the tally takes are symmetric, and every figure reads |x|.
struct CodeTally {
  std::vector<double> values;
  std::vector<double> block_amax;  // a power of two: 2^(the exponent of the MX block's amax)
  std::vector<double> counts;      // whole numbers (exact in a double below 2^53)
};

// Elements this many binades or more below their MX block's amax are counted by their code
// alone, with a block amax this many binades above them: every MX candidate the tally takes
// flushes them to zero under either.
inline constexpr int kTallyDepth = 20;

// Whether the tally answers for the candidate under `o` (a candidate fused_pass_takes, by none,
// per-tensor or, for a float format that flushes whatever lies kTallyDepth binades below its
// block's amax, MX).
bool tally_takes(const Candidate& c, const CastOptions& o);

// `codes`: a bfloat16 tensor's rows x cols elements, little-endian, as stored (any alignment),
// with no Inf or NaN among them and `amax` the largest |x|. Nothing when it holds an MX block the
// tally leaves to the register pass: one whose amax is subnormal or below 2^(kTallyDepth - 127),
// or more than 31 binades below the tensor's amax.
std::optional<CodeTally> tally_bfloat16(const uint8_t* codes, size_t rows, size_t cols, double amax);

}  // namespace pl::experiment
