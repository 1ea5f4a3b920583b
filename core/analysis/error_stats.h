// How far a computed result is from its reference, in the measures numerical analysts use:
// absolute, componentwise relative (with a stated floor for tiny references), normwise
// relative (Frobenius), ulps of the output format, bits of agreement and SQNR; max, mean,
// RMS and percentiles; and what went wrong outright (NaN, Inf, saturation, flush to zero).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/analysis/bound_check.h"
#include "core/analysis/histogram.h"
#include "core/dtype/dtype.h"

namespace pl::experiment {

struct ErrorStats {
  size_t count = 0;      // elements compared (both finite)
  size_t nan = 0;        // result NaN where the reference is a number
  size_t inf = 0;        // result infinite where the reference is finite (overflow)
  size_t saturated = 0;  // result +-max finite where |reference| exceeds it
  size_t flushed = 0;    // result zero where the reference is not
  double max_abs = 0, mean_abs = 0, rms_abs = 0;
  double p50_abs = 0, p90_abs = 0, p99_abs = 0;
  double max_rel = 0, mean_rel = 0;  // |e| / max(|ref|, rel_floor)
  double rel_floor = 0;
  double normwise_rel = 0;             // ||result - ref||_F / ||ref||_F
  double max_ulp = 0, mean_ulp = 0;    // |e| in units in the last place of the output format at ref
  double min_bits = 0, mean_bits = 0;  // bits of agreement: -log2 of the relative error, capped
  double sqnr_db = 0;                  // 10 log10(sum ref^2 / sum e^2); +inf when exact
};

// The elements whose result was NaN or Inf where the reference is finite, of all ("3 of 16"; "-"
// for none): the statistics are over the others, so a comparison where every result overflows
// would otherwise read as an error of 0 (a dot sweep's row, an MLP's layers).
std::string not_finite_text(const ErrorStats& s);

// An error in ulps for a table: "%.2f" up to a million, "%.3e" past it (an element whose
// reference is near zero can be 1e9 ulps of the output format off; fixed digits would overrun
// the column); a nonzero error that "%.2f" would write 0.00 is "<0.01".
std::string ulps_text(double ulps);
// The same in a column whose largest value is `column_largest`: the column's format for every
// row (else a column could read "1.137e+09", "39424.00", "0.00").
std::string ulps_text(double ulps, double column_largest);

// Compares result[i] with reference[i] for every i. `output` is the format the results are
// in (for ulps, saturation and the cap on bits of agreement: its precision). rel_floor keeps
// componentwise relative errors of near-zero references finite; 0 picks the output
// format's smallest normal.
ErrorStats error_stats(std::span<const double> result, std::span<const double> reference, DType output,
                       double rel_floor = 0);

// The histograms drawn for a comparison, over the elements where both are finite: the
// signed error (linear bins a power of two wide over +-max |e|, signed_error_bins), the
// relative error with the floor (log, one bin an octave) and the error in ulps of the output
// format (log, two bins an octave).
struct ErrorHistograms {
  Histogram signed_error, relative, ulps;
};
ErrorStats error_stats(std::span<const double> result, std::span<const double> reference, DType output,
                       double rel_floor, ErrorHistograms* histograms);

// Several comparisons of the same length, made together: each pass reads every array once
// however many comparisons share it (an experiment's attribution compares four arrays
// pairwise). Each may ask for its histograms, for its signed errors, result - reference
// for every element (NaN and Inf included), written to `signed_errors` on the way, and for the
// bound check of bound_check.h with the result as Cacc and the reference as Rq, made from the
// |e| pass 1 has (written to *bound_check; `bound` must outlive the call).
struct Comparison {
  std::span<const double> result, reference;
  ErrorHistograms* histograms = nullptr;
  std::span<double> signed_errors = {};
  const BoundInputs* bound = nullptr;
  BoundCheck* bound_check = nullptr;
};
std::vector<ErrorStats> error_stats(std::span<const Comparison> comparisons, DType output, double rel_floor = 0);

}  // namespace pl::experiment
