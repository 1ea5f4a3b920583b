#include "core/accumulate/output_steps.h"

#include <cmath>

#include "core/dtype/codec.h"
#include "core/dtype/device/roundtrip_f64.h"
#include "core/util/parallel.h"

namespace pl::experiment {
namespace {

// The GEMM epilogue in the accumulator's format: scale the sum by fa * fb (exact: two
// float32 numbers), then add the bias, each rounded once (TwoProduct / TwoSum).
struct Epilogue {
  DType format;
  CastOptions options;
  explicit Epilogue(const Accumulation& a) : format(result_dtype(a)) { options.rounding = a.rounding; }
  double scale(double x, double factor, uint64_t index) const {
    if (factor == 1.0) return x;
    const double h = x * factor;
    if (format == DType::float64) return h;
    return round_exact_sum(info(format).format, h, std::fma(x, factor, -h), options, index);
  }
  double add(double x, double y, uint64_t index) const {
    const double h = x + y;
    if (format == DType::float64) return h;
    const double bb = h - x;
    const double lo = (x - (h - bb)) + (y - bb);
    return round_exact_sum(info(format).format, h, lo, options, index);
  }
};

}  // namespace

bool OutputSteps::scaled() const {
  for (double f : row_factor_a)
    if (f != 1.0) return true;
  for (double f : row_factor_b)
    if (f != 1.0) return true;
  return false;
}

bool OutputSteps::has_epilogue() const { return scaled() || !bias.empty() || accumulate.kind == AccumKind::Int32; }

DeviceEpilogue device_epilogue(const OutputSteps& s) {
  DeviceEpilogue d;
  const DType format = result_dtype(s.accumulate);
  d.params.int32 = s.accumulate.kind == AccumKind::Int32;
  d.params.wide = format == DType::float64;
  CastOptions options;
  options.rounding = s.accumulate.rounding;
  d.params.format = make_roundtrip_f64_params(info(format).format, options);
  d.params.float32 = make_roundtrip_f64_params(info(DType::float32).format, {});
  d.supported = (d.params.wide || d.params.format.supported) && d.params.float32.supported;
  return d;
}

void apply_epilogue(const OutputSteps& s, std::vector<double>& values) {
  if (!s.has_epilogue()) return;  // every step below would return v
  const Epilogue epilogue(s.accumulate);
  const bool scaled = s.scaled(), int32 = s.accumulate.kind == AccumKind::Int32;
  // Rows split between the cores: each element's steps draw its own stochastic indices, so the
  // split changes no bit (on one core the steps would take a noticeable share of a 1024^2 float8
  // run).
  parallel_for(
      s.m, 0,
      [&](size_t i0, size_t i1) {
        for (size_t i = i0; i < i1; ++i)
          for (size_t j = 0; j < s.n; ++j) {
            const size_t e = i * s.n + j;
            double v = values[e];
            // An int32 sum goes to float32 first, as an int8 GEMM's epilogue converts it.
            if (int32) v = round_to(info(DType::float32).format, v, {});
            if (scaled) v = epilogue.scale(v, s.row_factor_a[i] * s.row_factor_b[j], kEpilogueStream + 2 * e);
            if (!s.bias.empty()) v = epilogue.add(v, s.bias[j], kEpilogueStream + 2 * e + 1);
            values[e] = v;
          }
      },
      rows_worth_a_thread(s.n));
}

}  // namespace pl::experiment
