#include "core/backend/peak_rates.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace pl::peak {
namespace {

using enum Unit;

constexpr std::string_view kHopperWhitepaper =
    "NVIDIA H100 Tensor Core GPU Architecture (whitepaper V1.04, 2023), the table comparing "
    "the A100 and H100 data-centre GPUs; dense rates (the 'with sparsity' figures are twice these)";

// Hopper's per-SM rates: 4 tensor cores; 128 FP32 and 64 FP64 lanes (an FMA counts 2).
// The whitepaper computes CUDA-core and float64 tensor rates at one boost clock and the other
// tensor rates at a lower one; the clocks here are the ones its numbers imply.
std::vector<Rate> hopper(int cuda_mhz, int tensor_mhz, const char* f64, const char* f64_tc, const char* f32,
                         const char* tf32, const char* f16, const char* f8) {
  return {
      {DType::float64, CudaCores, 128, cuda_mhz, f64},           {DType::float64, TensorCores, 256, cuda_mhz, f64_tc},
      {DType::float32, CudaCores, 256, cuda_mhz, f32},           {DType::tf32, TensorCores, 2048, tensor_mhz, tf32},
      {DType::float16, TensorCores, 4096, tensor_mhz, f16},      {DType::bfloat16, TensorCores, 4096, tensor_mhz, f16},
      {DType::float8_e4m3fn, TensorCores, 8192, tensor_mhz, f8}, {DType::int8, TensorCores, 8192, tensor_mhz, f8},
  };
}

const std::vector<Part> kParts = {
    {"H100 SXM5",
     "Hopper (sm_90)",
     132,
     {"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"},
     kHopperWhitepaper,
     hopper(1980, 1830, "33.5", "66.9", "66.9", "494.7", "989.4", "1978.9")},
    {"H100 PCIe",
     "Hopper (sm_90)",
     114,
     {"NVIDIA H100 PCIe"},
     kHopperWhitepaper,
     hopper(1755, 1620, "25.6", "51.2", "51.2", "378", "756", "1513")},
    // The H200 is the H100 SXM5's chip and clocks with more memory; its datasheet prints the
    // same rates rounded (FP64 34, FP32 67, BF16 1979 with sparsity), so the whitepaper's
    // unrounded figures stand for it.
    {"H200 SXM",
     "Hopper (sm_90)",
     132,
     {"NVIDIA H200"},
     "NVIDIA H200 Tensor Core GPU datasheet (2024): the H100 SXM5's rates; figures from the H100 whitepaper",
     hopper(1980, 1830, "33.5", "66.9", "66.9", "494.7", "989.4", "1978.9")},
    // Ampere: 4 tensor cores, 64 FP32 and 32 FP64 lanes per SM, one boost clock; no float8.
    {"A100 SXM4",
     "Ampere (sm_80)",
     108,
     {"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB"},
     "NVIDIA A100 Tensor Core GPU Architecture (whitepaper, 2020), its table of A100 peak rates; dense",
     {{DType::float64, CudaCores, 64, 1410, "9.7"},
      {DType::float64, TensorCores, 128, 1410, "19.5"},
      {DType::float32, CudaCores, 128, 1410, "19.5"},
      {DType::tf32, TensorCores, 1024, 1410, "156"},
      {DType::float16, TensorCores, 2048, 1410, "312"},
      {DType::bfloat16, TensorCores, 2048, 1410, "312"},
      {DType::int8, TensorCores, 4096, 1410, "624"}}},
};

bool same_text(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string_view unit_name(Unit u) { return u == CudaCores ? "CUDA cores" : "tensor cores"; }

std::string dtype_label(const Rate& r) {
  return r.dtype == DType::float8_e4m3fn ? "float8" : std::string(name(r.dtype));
}

double published_value(const Rate& r) { return std::strtod(std::string(r.published).c_str(), nullptr); }

double published_last_digit(const Rate& r) {
  const size_t dot = r.published.find('.');
  return dot == std::string_view::npos ? 1.0 : std::pow(10.0, -double(r.published.size() - dot - 1));
}

const std::vector<Part>& parts() { return kParts; }

const Part* find_part(std::string_view name) {
  for (const Part& p : kParts) {
    if (same_text(p.name, name)) return &p;
    for (std::string_view d : p.device_names)
      if (same_text(d, name)) return &p;
  }
  return nullptr;
}

Expected<const Part*> part_for_device(std::string_view device_name, int sms) {
  const Part* p = find_part(device_name);
  if (!p) return Error{"no published peaks for '" + std::string(device_name) + "' in Precision Lab's table"};
  if (p->sms != sms)
    return Error{std::string(device_name) + " reports " + std::to_string(sms) + " SMs; the " + std::string(p->name) +
                 " the table knows has " + std::to_string(p->sms) + ", so its peaks do not apply"};
  return p;
}

double derived_tflops(const Part& p, const Rate& r) {
  return double(p.sms) * double(r.ops_per_clock_per_sm) * double(r.clock_mhz) * 1e6 / 1e12;
}

Expected<Rate> fastest_rate(const Part& p, DType dtype) {
  const DType row = dtype == DType::float8_e5m2 ? DType::float8_e4m3fn : dtype;
  std::optional<Rate> best;
  for (const Rate& r : p.rates)
    if (r.dtype == row && (!best || derived_tflops(p, r) > derived_tflops(p, *best))) best = r;
  if (!best) return Error{"the " + std::string(p.name) + " has no " + std::string(name(dtype)) + " arithmetic"};
  return *best;
}

double three_digits(double v) {
  if (!(v > 0) || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 2 - std::floor(std::log10(v)));
  return std::round(v * scale) / scale;
}

Expected<double> speedup(const Part& p, DType fast, DType over) {
  const auto a = fastest_rate(p, fast);
  if (!a) return Error{a.error()};
  const auto b = fastest_rate(p, over);
  if (!b) return Error{b.error()};
  return three_digits(derived_tflops(p, *a) / derived_tflops(p, *b));
}

}  // namespace pl::peak
