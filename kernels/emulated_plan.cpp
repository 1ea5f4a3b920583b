#include "kernels/emulated_plan.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/accumulate/multiterm.h"
#include "core/dtype/bulk_convert.h"
#include "kernels/emulated_gemm.cuh"

namespace pl::cuda {
namespace {

using experiment::AccumKind;

// Bits of precision a dtype's values can carry (an integer of at most 8 bits, int4 and uint4
// among them: 8; a group's scaled integers come as float32, matmul.h's product_dtype).
int precision_bits(DType t) {
  if (is_float(t)) return info(t).format.precision();
  return t == DType::bool_ || (is_integer(t) && value_bits(t) <= 8) ? 8 : 64;
}

// Nearest-even and the other deterministic modes of a narrow format round on float32 (the
// sum rounded to odd at 24 bits first); stochastic rounding, and a float32 accumulator in a
// mode other than nearest-even, take the float64 route (round_exact in emulated_sum.h).
Expected<EmulatedAdd> add_for(DType format, Rounding rounding) {
  EmulatedAdd add;
  add.rounding = rounding;
  const FloatFormat& f = info(format).format;
  if (f.precision() > 24 || f.emax() > 127 || f.emin() - f.mantissa_bits < -149)
    return Error{std::string(name(format)) + " accumulation: the GPU's sums need a format within float32"};
  add.emin = f.emin();
  add.mantissa_bits = f.mantissa_bits;
  add.negative_zero = f.has_negative_zero();
  add.exact_path = rounding == Rounding::Stochastic || (format == DType::float32 && rounding != Rounding::NearestEven);
  if (format == DType::float32) {
    add.hardware_f32 = !add.exact_path;
    add.largest = std::numeric_limits<float>::max();
    return add;
  }
  if (f.precision() > 22)
    return Error{std::string(name(format)) +
                 " accumulation: more than 22 bits of precision (the GPU rounds through float32)"};
  add.hardware_f32 = false;
  // e8m0 has a GPU rounding kernel, but a sum in it (no zero, no sign) is the CPU's general
  // code's alone: the device's sums assume both.
  if (f.specials == Specials::E8M0) return Error{std::string(name(format)) + " accumulation runs on the CPU only"};
  add.format = make_roundtrip_params(f, CastOptions{});
  if (!add.format.supported) return Error{std::string(name(format)) + " has no GPU rounding kernel"};
  std::memcpy(&add.largest, &add.format.max_finite_bits, sizeof add.largest);
  return add;
}

}  // namespace

Expected<EmulatedModel> plan_emulated_product(const ProductSpec& s) {
  const auto& acc = s.accumulate;
  if (acc.kind != AccumKind::Sequential && acc.kind != AccumKind::Chunked && acc.kind != AccumKind::Pairwise &&
      acc.kind != AccumKind::Kahan && acc.kind != AccumKind::Multiterm)
    return Error{"no CUDA kernel for " + std::string(experiment::accum_kind_name(acc.kind)) + " accumulation"};
  if (precision_bits(s.a) + precision_bits(s.b) > 24)
    return Error{std::string(name(s.a)) + " x " + std::string(name(s.b)) + ": products are not exact float32 numbers"};
  EmulatedModel m;
  m.stream_base = s.stream_offset;
  auto inner = add_for(acc.format, acc.rounding);
  if (!inner) return Error{inner.error()};
  m.inner = *inner;
  if (acc.kind == AccumKind::Pairwise) {
    m.kind = EmulatedKind::Pairwise;
    m.block = static_cast<size_t>(acc.block);
  } else if (acc.kind == AccumKind::Kahan) {
    m.kind = EmulatedKind::Kahan;
  } else if (acc.kind == AccumKind::Multiterm) {
    // Rounded once per block from an exact float64 value: round_exact's route, in every mode.
    if (auto st = experiment::check_multiterm(acc); !st) return Error{st.error()};
    m.kind = EmulatedKind::Multiterm;
    m.block = static_cast<size_t>(acc.block);
    m.extra_bits = acc.extra_bits;
    m.inner.exact_path = true;
    m.inner.hardware_f32 = false;
  } else if (acc.kind == AccumKind::Chunked) {
    m.kind = EmulatedKind::Chunked;
    auto outer = add_for(acc.outer, acc.rounding);
    if (!outer) return Error{outer.error()};
    m.chunked = true;
    m.chunk = static_cast<size_t>(acc.chunk);
    m.outer = *outer;
  }
  return m;
}

size_t emulated_slab_rows(size_t m) {
  const size_t tiles = (m + kEmulatedTile - 1) / kEmulatedTile;  // of the whole product
  const size_t per_slab = std::clamp<size_t>((tiles + 15) / 16, 1, kMaxGridY);
  return per_slab * kEmulatedTile;
}

}  // namespace pl::cuda
