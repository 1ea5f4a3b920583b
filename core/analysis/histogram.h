// Histograms binned once in core, so the screen, the exported figures and the CSV all show
// the same bins: linear bins for signed errors, log-spaced bins for magnitudes (relative
// errors span many decades). Log bins are binary: their edges are powers of two (and, at
// several bins an octave, the same fractions of each octave), so that a unit roundoff 2^-p,
// half an ulp, or a bound's ratio 1 is an edge and no bar straddles it: a bar right of the
// line then means errors above it, never a bin that merely began below it.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/analysis/device/error_element.h"

namespace pl::experiment {

enum class BinScale : uint8_t { Linear, Log10 };

struct Histogram {
  BinScale scale = BinScale::Linear;
  std::vector<double> edges;     // bins + 1 increasing edges; bin i is [edges[i], edges[i+1])
  std::vector<uint64_t> counts;  // one per bin; the last bin also takes its right edge
  uint64_t below = 0;            // values under edges.front() (Log10: positive ones)
  uint64_t above = 0;            // values over edges.back()
  uint64_t zeros = 0;            // Log10 only: values <= 0, which have no place on a log axis
  uint64_t nonfinite = 0;        // NaN and +-Inf
  uint64_t total() const;        // every value given
};

// Empty histograms (every count zero) with their edges, to fill with add():
// `bins` equal-width bins over [lo, hi] (lo < hi);
Histogram linear_bins(double lo, double hi, int bins);
// bins for signed errors no larger than max_abs in magnitude: 32 to 64 bins, each a power of two
// wide (2^(E-5) where 2^(E-1) <= max_abs < 2^E), over +-max_abs rounded up to a whole bin. Every
// edge is exact. Why a power of two: rounding errors are often multiples of one (an output's
// ulp), and such bins hold the same number of those levels each, where an arbitrary width would
// draw a comb; and a bin then never splits the values sharing their top 16 bits (error_stats
// counts errors by those in its first pass and fills this histogram from the counts). A
// max_abs that is zero or not finite gets +-1; one over 1e307 gets +-1e307 (the edges stay finite);
Histogram signed_error_bins(double max_abs);
// `bins` bins equal in log10 over [lo, hi] (0 < lo < hi);
Histogram log_bins(double lo, double hi, int bins);
// The edge u of the binary log grid with `per_octave` bins an octave: 2^(u / per_octave), exact
// at whole octaves; log_bins_auto and OctaveBins both take their edges from here, bit for bit.
double octave_edge(int u, int per_octave);
// log bins of the binary grid (octave_edge) over whole octaves covering [min_positive,
// max_positive] (one octave, 1/2 to 1, when there is no positive value).
Histogram log_bins_auto(double min_positive, double max_positive, int bins_per_octave);

// Counts values into h's bins (or below / above / zeros / nonfinite).
void add(Histogram& h, std::span<const double> values);
// Where add() counts x in h: a bin's index, or one of the four slots past the bins (below,
// above, zeros, not finite, in that order). add_at() adds `count` values to a slot.
size_t slot_of(const Histogram& h, double x);
inline size_t nonfinite_slot(const Histogram& h) { return h.counts.size() + 3; }
void add_at(Histogram& h, size_t slot, uint64_t count);

// Adds the counts of `from`, a histogram with the same edges, into `into`.
void merge(Histogram& into, const Histogram& from);

// `bins` equal-width bins over [lo, hi] (lo < hi).
Histogram linear_histogram(std::span<const double> values, double lo, double hi, int bins);

// `bins` bins equal in log10 over [lo, hi] (0 < lo < hi).
Histogram log_histogram(std::span<const double> values, double lo, double hi, int bins);

// A log histogram (binary grid, log_bins_auto) whose range covers the positive finite values.
Histogram log_histogram_auto(std::span<const double> values, int bins_per_octave = 1);

// log_bins_auto()'s bins for values counted before their range is known, in one pass: every
// bin of every octave a positive normal double reaches (2^-1022 to 2^1023, `per_octave` to each:
// 1, 2 or 4, each edge the very octave_edge() log_bins_auto uses), the bin of a value found from
// a table indexed by its top 16 bits (sign, exponent, four fraction bits: no two edges share an
// entry, as edges 2^(1/4) apart are farther apart than an entry's 17/16) and one comparison with
// the edge inside the entry, if any. histogram() then cuts out log_bins_auto(min, max)'s bins.
class OctaveBins {
 public:
  static const OctaveBins& get(int per_octave);  // built once, shared by every thread

  // Slot 0: below the first edge; 2u + 1: exactly edge u; 2u + 2: between edges u and u + 1
  // (the last: above the last edge). An edge's own values are kept apart because the last bin
  // of a histogram takes its right edge while values past it count as above.
  size_t slots() const { return 2 * edges_.size() + 1; }
  // The slots a count of values needs: slots(), then the four slots_of() gives past them
  // (subnormals, zeros and negatives, not finite, not taken) -- a OctaveCounter's, or a device's.
  size_t counted_slots() const { return slots() + 4; }
  // Where a positive normal finite x counts (the caller sorts zeros, subnormals, Inf and NaN out:
  // is_normal_positive()).
  static bool is_normal_positive(double x) {
    return std::bit_cast<uint64_t>(x) - 0x0010000000000000ull < 0x7fe0000000000000ull;
  }
  uint32_t slot(double x) const {
    const uint64_t b = std::bit_cast<uint64_t>(x);
    return static_cast<uint32_t>(entry_slot(b, entry_[b >> 48]));
  }
  // The table by key (0x8000 entries; error_element.h's octave_slot reads it): for a device to
  // count on its own copy, slot for slot as slots_of() does.
  std::span<const uint64_t> entries() const { return entry_; }
  // The slots of v[0, n) where take[i] is not 0, in a loop without branches (it vectorises,
  // with gathers from the table): slot() for positive normal values, then `past` for positive
  // subnormals, past + 1 for zeros and negatives, past + 2 for values that are not finite, and
  // past + 3 for the values not taken.
  void slots_of(const double* __restrict v, const int64_t* __restrict take, size_t n, uint32_t past,
                uint32_t* __restrict out) const;
  // log_bins_auto(min_positive, max_positive, per_octave) holding counts (one per slot) and
  // the values counted apart: positive subnormals (`tiny`), zeros and values that are not
  // finite; or nothing when its edges are not this table's (a range reaching below 2^-1022 or
  // past 2^1023), for the caller to bin the values again the ordinary way.
  std::optional<Histogram> histogram(std::span<const uint64_t> counts, uint64_t tiny, uint64_t zeros,
                                     uint64_t nonfinite, double min_positive, double max_positive) const;

 private:
  explicit OctaveBins(int per_octave);
  static constexpr uint64_t kFirstKey = 0x0010, kLastKey = 0x7fef;  // normal positive doubles
  static constexpr int kFirstOctave = -1022, kLastOctave = 1023;  // normal positive doubles' edges
  int per_octave_;
  std::vector<double> edges_;  // octave_edge(u, per_octave), kFirstOctave to kLastOctave
  // By key (every positive one, so that an index needs no check; only kFirstKey .. kLastKey
  // are read for a slot), one 64-bit entry, so that a value's slot takes one load (a gather,
  // vectorised): the slot of the key's smallest value in the top 15 bits, and in the low 49
  // the low 48 bits of the edge among the key's values (its top 16 are the key itself), or
  // 2^48 when there is none -- which no value's low 48 bits reach. A value's slot from its
  // entry: error_element.h's entry_slot(), which a device runs too.
  static constexpr uint64_t kLowBits = kOctaveLowBits;
  static constexpr int kSlotShift = kOctaveSlotShift;
  std::vector<uint64_t> entry_;
};

// A log histogram counted before its range is known: values go into OctaveBins' slots as they
// come, and histogram() cuts out log_bins_auto(min_positive, max_positive)'s bins at the end.
// One counter per thread, merged after; the result equals add() on log_bins_auto's bins.
class OctaveCounter {
 public:
  explicit OctaveCounter(int per_octave);
  // Counts v[i] where take[i] is not 0 (every v[i] when take is null): the slots of a block
  // first (OctaveBins::slots_of, a loop without branches), then the counts, in kSets
  // interleaved sets: neighbours often share a slot, and one set would make each increment
  // wait for the previous one's store.
  void add_block(const double* v, const int64_t* take, size_t n);
  void merge(const OctaveCounter& o);
  // Counts made elsewhere (a device's, by error_element.h's octave_slot with the table's entries
  // and past = slots()): one per slot of OctaveBins::counted_slots().
  void add_counts(std::span<const uint64_t> per_slot);
  // Nothing when the range reaches past the table (a subnormal, or 2^1023 and past): the caller then bins the values the ordinary way.
  std::optional<Histogram> histogram(double min_positive, double max_positive) const;

 private:
  // Past OctaveBins' slots: positive subnormals, zeros and negatives, values that are not
  // finite, values not taken.
  size_t tiny() const { return bins_->slots(); }
  static constexpr size_t kSets = 4;  // interleaved counter sets (add_block)
  const OctaveBins* bins_;
  size_t stride_;                 // one set: OctaveBins::counted_slots()
  std::vector<uint64_t> counts_;  // kSets sets, one after the other
};

}  // namespace pl::experiment
