#include "core/experiment/roundtrip.h"

#include <cmath>
#include <mutex>
#include <optional>

#include "core/backend/backend.h"
#include "core/experiment/on_device.h"
#include "core/io/load.h"
#include "core/util/memory_room.h"

namespace pl::experiment {

Status check(const RoundtripConfig& c) {
  if (c.rows == 0 || c.cols == 0 || double(c.rows) * double(c.cols) > double(1u << 28))
    return Error{"the array must hold between 1 and 2^28 values"};
  if (auto st = check(c.scaling, c.dtype); !st) return st;
  // (An integer cast clamps whatever the policy: one asked for would be ignored.)
  if (!is_float(c.dtype) && c.cast.overflow != Overflow::FormatDefault)
    return Error{"an overflow policy is for float formats: " + std::string(name(c.dtype)) +
                 "'s values are clamped to its range"};
  return check(c.data);
}

namespace {

std::vector<double> abs_values(std::span<const double> x) {
  std::vector<double> mags(x.size());
  for (size_t i = 0; i < x.size(); ++i) mags[i] = std::fabs(x[i]);
  return mags;
}

bool scaled_magnitudes_apply(ScalingKind k) {
  return k != ScalingKind::None && k != ScalingKind::PerChannelAsymmetric && k != ScalingKind::GroupAsymmetric;
}

// |x| over its element's dequantisation factor: the row's (per-tensor, per-channel, NVFP4's
// tensor scale) times the block's (MX, NVFP4, groups), as quantise() divides (or multiplies by
// the inverse: within float32's rounding of the factor, which a log histogram does not see). A
// block whose scale is 0 holds zeros.
std::vector<double> scaled_magnitudes(std::span<const double> x, const Quantised& q, const Scaling& s) {
  const size_t block = block_elements(s);
  const size_t per_row = block ? (q.cols + block - 1) / block : 0;
  std::vector<double> mags(x.size());
  for (size_t r = 0; r < q.rows; ++r)
    for (size_t col = 0; col < q.cols; ++col) {
      const size_t i = r * q.cols + col;
      const double factor = q.row_factor[r] * (block ? q.block_scales[r * per_row + col / block] : 1.0);
      mags[i] = factor > 0 ? std::fabs(x[i]) / factor : 0.0;
    }
  return mags;
}

}  // namespace

Expected<RoundtripResult> run_roundtrip(const RoundtripConfig& c, std::vector<double> values,
                                        const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
  if (auto st = check(c); !st) return Error{st.error()};
  // The values, their rounded and dequantised copies and the errors: under 40 bytes a value at
  // its peak (about 32 at 4096^2, with no scaling, MX or per-channel); refused before it is
  // allocated.
  const double working_bytes = 40.0 * double(c.rows) * double(c.cols);
  if (auto st = check_room(working_bytes, "the array", memory_room()); !st) return Error{st.error()};
  // Progress by stage (drawing, quantising, the statistics, the range), cancel between them.
  auto stage_done = [&](double fraction) {
    if (progress) progress(fraction);
    return !(cancel && cancel->load());
  };
  if (values.empty()) values = generate(c.data, c.rows, c.cols, c.seed, 1);
  if (values.size() != c.rows * c.cols) return Error{"the array does not have rows x cols values"};
  double amax = 0;
  if (c.scaling.kind == ScalingKind::PerTensorDelayed) {  // the history: earlier draws
    const auto history = drawn_amax(c.data, c.rows, c.cols, c.seed, 1000, c.scaling.history, 0, cancel);
    if (!history) return Error{"cancelled"};
    amax = *history;
  }
  if (!stage_done(0.3)) return Error{"cancelled"};
  RoundtripResult r;
  r.config = c;
  // The elements rounded on the device the config names, when it opens; a device that then
  // cannot round them (e8m0, out of memory) leaves them to the CPU, and the result says why.
  const DeviceRounding device(c.backend);
  r.backend_note = device.note();
  const bool float_on_device = device.rounder() && is_float(c.dtype);
  if (device.rounder() && !float_on_device)
    r.backend_note = std::string(name(c.dtype)) + " values are rounded on the CPU (no device kernel)";
  // The seed seeds the stochastic stream too (element i draws stochastic_bits(seed, i)), as a scan
  // of the same tensor with the same seed draws: without it every seed rounded a file's values
  // alike.
  CastOptions cast = c.cast;
  cast.seed = c.seed;
  const Quantised q =
      quantise(values, c.rows, c.cols, c.dtype, c.scaling, cast, amax, float_on_device ? device.rounder() : nullptr);
  if (q.on_device) r.ran_on = device.ran_on();
  if (!q.device_error.empty()) r.backend_note = device.failed(q.device_error);
  if (!stage_done(0.5)) return Error{"cancelled"};
  ErrorHistograms h;
  // Ulps and bits are in the float64 sense here: the dequantised value may carry a scale.
  r.stats = error_stats(q.dequantised(), values, DType::float64, 0, &h);
  r.relative = std::move(h.relative);
  if (!stage_done(0.85)) return Error{"cancelled"};
  r.magnitudes_scaled = scaled_magnitudes_apply(c.scaling.kind);
  r.magnitudes = log_histogram_auto(r.magnitudes_scaled ? scaled_magnitudes(values, q, c.scaling) : abs_values(values));
  r.saturated = q.saturated;
  r.out_of_range = out_of_range_outcome(c.dtype, c.scaling, c.cast);
  r.flushed = q.flushed;
  r.scales = scale_map(q, c.scaling);
  if (progress) progress(1.0);
  return r;
}

Expected<RoundtripResult> run_roundtrip(const RoundtripSpec& spec, const std::function<void(double)>& progress,
                                        const std::atomic<bool>* cancel) {
  if (spec.input_file.empty()) return run_roundtrip(spec.config, {}, progress, cancel);
  auto tensor = io::load_tensor(spec.input_file);
  if (!tensor) return Error{tensor.error()};
  RoundtripConfig c = spec.config;
  c.rows = tensor->rows();
  c.cols = tensor->cols();
  auto r = run_roundtrip(c, std::move(tensor->values), progress, cancel);
  if (r) r.value().input_file = spec.input_file;
  return r;
}

}  // namespace pl::experiment
