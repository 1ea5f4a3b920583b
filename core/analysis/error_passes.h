// The steps of error_stats() (error_stats.h), apart, for a device that makes the two passes over
// the elements itself (kernels/error_stats.cu) while the host makes the same decisions between
// and after them as it does for the CPU's own passes: the one definition of what the
// statistics, histograms and percentiles are, whoever read the elements.
//
//   pass 1      every element: sums, ranges, counts by error key (error_element.h), the relative
//               and ulp errors' octave counts, the bound check's tally
//   plan()      statistics from the sums; the signed histogram from the key counts; which keys
//               pass 2 must look at (an edge runs through them, or a percentile rank falls there)
//   pass 2      the elements of those keys only: binned one by one, or gathered for a selection
//   finish()    the percentiles, the histograms and the bound check, into the caller's places
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/analysis/bound_check.h"
#include "core/analysis/device/error_element.h"
#include "core/analysis/error_stats.h"
#include "core/analysis/error_totals.h"
#include "core/analysis/histogram.h"
#include "core/dtype/dtype.h"

namespace pl::experiment::error_passes {

constexpr size_t kKeys = size_t{1} << 16;  // error_key(): sign, exponent, four fraction bits
constexpr size_t kMagnitudes = kKeys / 2;  // the same without the sign
constexpr std::array<double, 3> kQuantiles = {0.50, 0.90, 0.99};
constexpr int kRelPerOctave = 1, kUlpPerOctave = 2;  // log bins an octave (binary edges: histogram.h)
// Floating-point sums are kept per span of kSpan elements and added in span order afterwards,
// so that the statistics do not depend on how the elements were split.
constexpr size_t kSpan = size_t{1} << 16;

// The output format's part in every element's measures.
struct OutputMeasure {
  ElementMeasure element;
  double top = 0;       // the largest finite value (saturation)
  double cap_bits = 0;  // the cap on bits of agreement: the precision
};
OutputMeasure output_measure(DType output, double rel_floor);

// Pass 1's result for one comparison, wherever it was made.
struct FirstPass {
  error_sums::Sums sums;                                         // merged in span order
  std::vector<uint32_t> keys = std::vector<uint32_t>(kKeys, 0);  // compared elements by key
  std::optional<OctaveCounter> rel, ulps;                        // when histograms are asked for
  std::optional<BoundTally> bound;                               // when the bound check is
};
FirstPass fresh_first_pass(const Comparison& c);

// Between the passes, for one comparison.
struct Plan {
  ErrorStats stats;                                                      // all but the percentiles
  ErrorHistograms empty;                                                 // the histograms' bins, every count zero
  ErrorHistograms histograms;                                            // the signed one holding the keys binned whole
  std::optional<Histogram> relative, ulps;                               // from pass 1's octave counts, when they could
  std::array<size_t, kQuantiles.size()> magnitude{}, within{}, owner{};  // the percentile ranks' keys
  std::vector<uint8_t> action = std::vector<uint8_t>(kKeys, 0);          // per key: what pass 2 does
  bool log_histograms = false;  // pass 2 bins the relative and ulp errors one by one
  bool needed = false;          // pass 2 has anything to do
};
constexpr uint8_t kBinAlone = 1;  // action: bin the key's elements one by one; (q + 1) << 1: gather for quantile q
Plan plan(const Comparison& c, const FirstPass& first, const OutputMeasure& m);

// Pass 2's result for one comparison: the histograms of what it binned (plan's empty bins plus
// those elements) and the gathered |e| by owning quantile.
struct Gathered {
  ErrorHistograms h;
  std::array<std::vector<double>, kQuantiles.size()> members;
  void merge(const Gathered& o);
};

// The statistics with their percentiles; the histograms and the bound check go where the
// comparison asks (its result and reference, n elements, are read again only for a bound check
// whose range runs past the octave table).
ErrorStats finish(const Comparison& c, size_t n, Plan& p, Gathered& g, const FirstPass& first);

}  // namespace pl::experiment::error_passes
