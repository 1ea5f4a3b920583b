#include "core/experiment/scan/code_tally.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>

#include "core/experiment/scan/fused_scores.h"
#include "core/quantise/scaling.h"
#include "core/util/parallel.h"
#include "core/util/target_clones.h"

namespace pl::experiment {
namespace {

constexpr int kBelowTensor = 32;  // block exponents counted, from the tensor amax's down
constexpr size_t kMantissas = 128;
constexpr size_t kBins = kBelowTensor * kTallyDepth * kMantissas;  // (binades below, depth, mantissa)
constexpr size_t kMagnitudes = size_t{1} << 15;                    // the codes without their sign

double bfloat16_value(unsigned magnitude) { return std::bit_cast<float>(uint32_t{magnitude} << 16); }

// A block's magnitudes (its codes without their sign) from the stored bytes; their largest.
[[gnu::always_inline]] inline unsigned load_magnitudes(const uint8_t* at, size_t n, uint16_t* magnitude) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(magnitude, at, 2 * n);
  } else {
    for (size_t i = 0; i < n; ++i) magnitude[i] = static_cast<uint16_t>(at[2 * i] | at[2 * i + 1] << 8);
  }
  uint16_t top = 0;
  for (size_t i = 0; i < n; ++i) {
    magnitude[i] &= 0x7fff;
    top = std::max(top, magnitude[i]);
  }
  return top;
}

// Where each element of a block whose amax has the biased exponent `block_exponent` is counted:
// in the block's bins by (depth below the amax, mantissa), or, kTallyDepth binades or more below
// (zeros among them), in the magnitudes that follow the bins. Computed for the whole block
// first, so that the loop that counts does nothing else.
[[gnu::always_inline]] inline void place(const uint16_t* magnitude, size_t n, uint32_t block_exponent,
                                         uint32_t block_bins, uint32_t* where) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t a = magnitude[i], depth = block_exponent - (a >> 7);
    where[i] = depth < static_cast<uint32_t>(kTallyDepth)
                   ? block_bins + (depth << 7) + (a & static_cast<uint32_t>(kMantissas - 1))
                   : static_cast<uint32_t>(kBins) + a;
  }
}

// Rows [r0, r1) of the tensor into `counts` (the bins, then the magnitudes). False at a block
// the tally does not take.
PL_CLONES bool count_rows(const uint8_t* codes, size_t r0, size_t r1, size_t cols, int tensor_exponent,
                          uint32_t* counts) {
  constexpr size_t kBlock = 32;  // MX's (scaling_block; the tally's test holds the two together)
  uint16_t magnitude[kBlock];
  uint32_t where[kBlock];
  for (size_t r = r0; r < r1; ++r) {
    const uint8_t* row = codes + 2 * r * cols;
    for (size_t c0 = 0; c0 < cols; c0 += kBlock) {
      const bool whole = cols - c0 >= kBlock;  // (the fixed count lets the loops vectorise)
      const size_t n = whole ? kBlock : cols - c0;
      const unsigned top = whole ? load_magnitudes(row + 2 * c0, kBlock, magnitude)
                                 : load_magnitudes(row + 2 * c0, n, magnitude);
      if (top == 0) continue;  // a block of zeros: no error under any candidate
      const int block_exponent = static_cast<int>(top >> 7), below = tensor_exponent - block_exponent;
      if (block_exponent < kTallyDepth || below < 0 || below >= kBelowTensor) return false;
      const auto bins = static_cast<uint32_t>(static_cast<size_t>(below) * kTallyDepth * kMantissas);
      if (whole) {
        place(magnitude, kBlock, static_cast<uint32_t>(block_exponent), bins, where);
      } else {
        place(magnitude, n, static_cast<uint32_t>(block_exponent), bins, where);
      }
      for (size_t i = 0; i < n; ++i) ++counts[where[i]];
    }
  }
  return true;
}

}  // namespace

bool tally_takes(const Candidate& c, const CastOptions& o) {
  if (!fused_pass_takes(c, o)) return false;
  switch (c.scaling.kind) {
    case ScalingKind::None:
    case ScalingKind::PerTensor: return true;
    case ScalingKind::MX: {
      if (!is_float(c.dtype)) return false;
      // The largest value kTallyDepth binades below a block's amax scales below 2^(emax -
      // kTallyDepth + 1), which must be at most half the smallest subnormal, 2^(emin - mantissa
      // bits - 1), for nearest-even to flush it.
      const FloatFormat& f = info(c.dtype).format;
      return f.emax() - kTallyDepth + 1 <= f.emin() - f.mantissa_bits - 1;
    }
    default: return false;
  }
}

std::optional<CodeTally> tally_bfloat16(const uint8_t* codes, size_t rows, size_t cols, double amax) {
  if (!(amax > 0) || !std::isfinite(amax) || cols == 0 || cols > (size_t{1} << 31)) return std::nullopt;
  const int tensor_exponent = static_cast<int>((std::bit_cast<uint64_t>(amax) >> 52) & 0x7ff) - 1023 + 127;
  std::vector<uint64_t> counts(kBins + kMagnitudes);  // the bins, then the magnitudes
  std::mutex lock;
  std::atomic<bool> refused{false};
  parallel_for(
      rows, 0,
      [&](size_t r0, size_t r1) {
        std::vector<uint32_t> mine(counts.size());
        // At most 2^31 elements between merges: no 32-bit count can overflow.
        const size_t piece = std::max<size_t>(1, (size_t{1} << 31) / cols);
        for (size_t a = r0; a < r1 && !refused.load(std::memory_order_relaxed); a += piece) {
          if (a != r0) std::fill(mine.begin(), mine.end(), 0u);
          if (!count_rows(codes, a, std::min(r1, a + piece), cols, tensor_exponent, mine.data())) {
            refused = true;
            return;
          }
          const std::lock_guard hold(lock);
          for (size_t i = 0; i < counts.size(); ++i) counts[i] += mine[i];
        }
      },
      rows_worth_a_thread(cols));
  if (refused) return std::nullopt;

  CodeTally t;
  for (int below = 0; below < kBelowTensor; ++below)
    for (int depth = 0; depth < kTallyDepth; ++depth)
      for (size_t m = 0; m < kMantissas; ++m) {
        const uint64_t n = counts[(static_cast<size_t>(below) * kTallyDepth + static_cast<size_t>(depth)) * kMantissas + m];
        if (n == 0) continue;
        const int block_exponent = tensor_exponent - below;
        t.values.push_back(bfloat16_value(static_cast<unsigned>(block_exponent - depth) << 7 | static_cast<unsigned>(m)));
        t.block_amax.push_back(std::ldexp(1.0, block_exponent - 127));
        t.counts.push_back(static_cast<double>(n));
      }
  for (unsigned a = 1; a < kMagnitudes; ++a) {  // (0: the zeros)
    const uint64_t n = counts[kBins + a];
    if (n == 0) continue;
    t.values.push_back(bfloat16_value(a));
    t.block_amax.push_back(std::ldexp(1.0, static_cast<int>(a >> 7) + kTallyDepth - 127));
    t.counts.push_back(static_cast<double>(n));
  }
  return t;
}

}  // namespace pl::experiment
