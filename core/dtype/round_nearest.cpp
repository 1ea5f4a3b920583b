#include "core/dtype/round_nearest.h"

#include "core/util/target_clones.h"

namespace pl {
namespace {

// operator()'s arithmetic with its two early returns turned into a flag, so that the loop has
// no branches (built with -fno-trapping-math: comparisons of NaN and Inf raise nothing we read).
PL_CLONES bool round_block(int emin, int mantissa_bits, double largest, const double* x, size_t n, double* out,
                           uint8_t* __restrict defer) {
  uint8_t any = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t bits = std::bit_cast<uint64_t>(x[i]);
    const int64_t biased = static_cast<int64_t>((bits >> 52) & 0x7ff);
    const int64_t e = biased - 1023;
    const int64_t q = (e > emin ? e : emin) - mantissa_bits;
    const double t = x[i] * std::bit_cast<double>(static_cast<uint64_t>(1023 - q) << 52);
    constexpr double kMagic = 6755399441055744.0;
    const double r = std::copysign((t + kMagic) - kMagic, x[i]);
    const double y = r * std::bit_cast<double>(static_cast<uint64_t>(1023 + q) << 52);
    const uint8_t d = static_cast<uint8_t>((biased == 0x7ff) | (std::fabs(y) > largest));
    out[i] = y;
    defer[i] = d;
    any |= d;
  }
  return any != 0;
}

}  // namespace

bool NearestEvenRounder::block(const double* x, size_t n, double* out, uint8_t* defer) const {
  return round_block(emin_, mantissa_bits_, largest_, x, n, out, defer);
}

}  // namespace pl
