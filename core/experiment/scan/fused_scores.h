// Every candidate's error figures over a run of rows in one pass. Each sum block of kSumBlock
// elements is taken a sub-block at a time, every candidate in turn while the sub-block is in the
// core's cache, and each element stays in registers from its scaling to the error sums (the
// register pass). quantise() writes and reads back four to six arrays of eight bytes an element
// for each candidate, traffic that would take most of a scan's time. This pass gives the same
// figures, bit for bit, without them: the same scale formulas (scaling.h), the same rounding
// (round_nearest.h's arithmetic, and codec.h for what that defers) and the same sums in the same
// order (error_lanes.h). A block holding an Inf or a NaN, or whose error sum is not finite (and
// every block of a format whose overflow is not symmetric), goes through the staged functions
// instead, which write small arrays as quantise() does. The tests compare both paths with
// quantise() bit for bit.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "core/dtype/device/cast_policy.h"
#include "core/experiment/scan/candidate.h"
#include "core/experiment/scan/error_parts.h"

namespace pl::experiment {

struct FusedScore {
  ErrorPart errors;    // over the run, its blocks added in order
  size_t saturated = 0;  // quantise()'s counts
  size_t flushed = 0;
};

// Whether fused_scores answers for the candidate under `o`: round to nearest even, without
// flushing subnormals, into a float format round_nearest.h's fast path takes or into a symmetric
// integer range, by any recipe but delayed scaling and the asymmetric ones (which take
// quantise() itself).
bool fused_pass_takes(const Candidate& c, const CastOptions& o);

// x: a run of `rows` whole rows of `cols` elements of a tensor whose largest finite |x| is
// `tensor_amax`. One score per candidate (each one fused_pass_takes), equal to what quantise()
// and the scan's error sums over its dequantised copy give.
std::vector<FusedScore> fused_scores(std::span<const double> x, size_t rows, size_t cols, double tensor_amax,
                                     std::span<const Candidate> candidates, const CastOptions& o);

struct CodeTally;
// The same figures from a tensor's tally (code_tally.h) for candidates tally_takes: each pair's
// copy is the register pass's, its errors weighted by its count. Nothing for a candidate whose
// copies are not all finite (the register pass then takes it).
std::vector<std::optional<FusedScore>> tallied_scores(const CodeTally& t, double tensor_amax,
                                                      std::span<const Candidate> candidates, const CastOptions& o);

}  // namespace pl::experiment
