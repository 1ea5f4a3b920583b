#include "kernels/emulated_plan.h"

#include <cstring>

#include "core/dtype/bulk_convert.h"

namespace pl::cuda {
namespace {

using experiment::AccumKind;

// Bits of precision a dtype's values can carry (an integer dtype: its width).
int value_bits(DType t) {
  if (is_float(t)) return info(t).format.precision();
  return t == DType::int8 || t == DType::uint8 || t == DType::bool_ ? 8 : 64;
}

Expected<EmulatedAdd> add_for(DType format, Rounding rounding) {
  EmulatedAdd add;
  add.rounding = rounding;
  if (format == DType::float32) {
    if (rounding != Rounding::NearestEven)
      return Error{"a float32 accumulator on the GPU rounds to nearest even only (float32 arithmetic)"};
    return add;
  }
  const FloatFormat& f = info(format).format;
  if (f.precision() > 22)
    return Error{std::string(name(format)) + " accumulation: more than 22 bits of precision (the GPU rounds through float32)"};
  add.hardware_f32 = false;
  add.format = make_roundtrip_params(f, CastOptions{});
  if (!add.format.supported) return Error{std::string(name(format)) + " has no GPU rounding kernel"};
  std::memcpy(&add.largest, &add.format.max_finite_bits, sizeof add.largest);
  return add;
}

}  // namespace

Expected<EmulatedModel> plan_emulated_product(const ProductSpec& s) {
  const auto& acc = s.accumulate;
  if (acc.kind != AccumKind::Sequential && acc.kind != AccumKind::Chunked &&
      acc.kind != AccumKind::Pairwise && acc.kind != AccumKind::Kahan)
    return Error{"no CUDA kernel for " + std::string(experiment::accum_kind_name(acc.kind)) + " accumulation"};
  if (acc.rounding == Rounding::Stochastic)
    return Error{"the GPU's emulated sums do not round stochastically: the CPU's random draws depend on bits of "
                 "the exact sum beyond float32, which the GPU's sums do not keep"};
  if (value_bits(s.a) + value_bits(s.b) > 24)
    return Error{std::string(name(s.a)) + " x " + std::string(name(s.b)) +
                 ": products are not exact float32 numbers"};
  EmulatedModel m;
  auto inner = add_for(acc.format, acc.rounding);
  if (!inner) return Error{inner.error()};
  m.inner = *inner;
  if (acc.kind == AccumKind::Pairwise) {
    m.kind = EmulatedKind::Pairwise;
    m.block = static_cast<size_t>(acc.block);
  } else if (acc.kind == AccumKind::Kahan) {
    m.kind = EmulatedKind::Kahan;
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

}  // namespace pl::cuda
