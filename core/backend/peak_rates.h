// The arithmetic peaks vendors publish for their data-centre GPUs, per dtype, with where each
// number comes from. A rate is stored twice on purpose: as the source prints it, and as the
// product it is computed from (SMs x dense operations per clock per SM x boost clock), so a
// test can hold one against the other and a misprint in either shows. All rates are dense:
// the sources' larger "with sparsity" figures are twice these and are not what a dense
// matrix product can reach.
//
// Used for "% of peak" on the device at hand (CUDA backend), for the datasheet side of the
// measured-speed scenario, and by `precision-lab devices`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl::peak {

enum class Unit : uint8_t {
  CudaCores,    // the SM's scalar/vector pipes: plain IEEE float64 and float32
  TensorCores,  // matrix units: tf32, float16, bfloat16, float8, int8 (and float64 on sm_80+)
};
std::string_view unit_name(Unit u);  // "CUDA cores", "tensor cores"

struct Rate {
  DType dtype;  // float8_e4m3fn stands for both float8 formats: e4m3 and e5m2 run at one rate
  Unit unit;
  int ops_per_clock_per_sm;    // dense; a fused multiply-add counts 2; int8 counts integer ops
  int clock_mhz;               // the boost clock the source computes this rate at
  std::string_view published;  // TFLOP/s (TOPS for int8), as the source prints it: "989.4"
};

// The row's dtype as a reader says it: "float8" for the float8 row (both formats), else the name.
std::string dtype_label(const Rate& r);
double published_value(const Rate& r);       // 989.4
double published_last_digit(const Rate& r);  // the unit of its last printed digit: 0.1

struct Part {
  std::string_view name;          // "H100 SXM5"
  std::string_view architecture;  // "Hopper (sm_90)"
  int sms;
  std::vector<std::string_view> device_names;  // as the CUDA driver names the device
  std::string_view source;                     // the document the published rates are from
  std::vector<Rate> rates;
};

const std::vector<Part>& parts();

// A part by its name ("H100 SXM5", any case) or by a CUDA device name ("NVIDIA H100 80GB HBM3").
const Part* find_part(std::string_view name);

// The part a device is, by name, when its SM count agrees (a cut-down or unknown variant has
// none: its peaks are not the table's). Errors say why there is no entry.
Expected<const Part*> part_for_device(std::string_view device_name, int sms);

// SMs x ops per clock x clock, in TFLOP/s.
double derived_tflops(const Part& p, const Rate& r);

// The fastest way `dtype` runs on the part (float64: tensor cores from Ampere on; float32:
// CUDA cores -- tensor cores would round it to tf32); float8_e5m2 reads the float8 row.
// Errors when the part cannot (float8 before sm_89): "the A100 SXM4 has no float8_e4m3fn arithmetic".
Expected<Rate> fastest_rate(const Part& p, DType dtype);

// The published ratio of two dtypes' fastest rates, from the derived rates (exact ratios of
// ops per clock and clocks), to three significant digits: H100 SXM5 bfloat16 over tf32 is 2.
// Errors: a dtype the part cannot run, named.
Expected<double> speedup(const Part& p, DType fast, DType over);

// Three significant digits, as speedup() rounds: 14.787 -> 14.8, 2.0001 -> 2.
double three_digits(double v);

}  // namespace pl::peak
