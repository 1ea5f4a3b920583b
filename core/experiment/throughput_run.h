// The "throughput" experiment file: how much faster each dtype's matrix product is than a
// baseline's, measured on the machine at hand, beside what a GPU's published peaks say. It is
// the measured-speed scenario's evidence and `precision-lab run`'s for such a file.
//
// Measured: each dtype's n x n x n product as the Throughput panel times it (core/experiment/
// throughput.h): prepared once, one untimed warm-up, then `repetitions` rounds that time every
// dtype in turn (so a machine that slows down slows every dtype alike); the median per dtype.
// On a CPU every dtype narrower than float32 is emulated, and the result says so per row.
// Datasheet: the same ratios from core/backend/peak_rates for a named GPU part.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/backend/backend_choice.h"
#include "core/dtype/dtype.h"
#include "core/experiment/throughput.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct ThroughputConfig {
  std::vector<DType> dtypes{DType::float32,  DType::tf32,          DType::float16,
                            DType::bfloat16, DType::float8_e4m3fn, DType::int8};
  DType baseline = DType::float32;             // speed-ups are over this dtype; it must be among dtypes
  size_t n = 256;                              // [1, 4096]
  int repetitions = 5;                         // [1, 1000]
  std::string datasheet = "H100 SXM5";         // a part of the peak table; "" for none
  BackendChoice backend = BackendChoice::Cpu;  // where the products are timed
};

// An error saying what is wrong, naming the file's key.
Status check(const ThroughputConfig& c);

struct ThroughputRow {
  DType dtype = DType::float32;
  std::string method;  // how the product is computed here (ProductBench::method)
  bool emulated = false;
  std::vector<double> seconds;  // one per repetition, in order
  double median_seconds = 0;  // the time of the run at the median rate
  double gflops = 0;          // the median of the runs' rates, 2 n^3 / seconds
  double speedup = 0;  // this one's rate over the baseline's
};

struct DatasheetRow {
  DType dtype = DType::float32;
  bool supported = false;
  std::string unit;     // "tensor cores"; empty when unsupported
  double tflops = 0;    // as published
  double speedup = 0;   // over the baseline, from the derived rates, three significant digits
  std::string why_not;  // when unsupported
};

struct ThroughputResult {
  ThroughputConfig config;
  std::string device;               // "cpu: AMD EPYC ..."
  bool gpu = false;                 // the products were timed on a GPU (dtypes it cannot run: on the CPU)
  std::string runtime;              // the BLAS and its kernel
  std::vector<ThroughputRow> rows;  // in config.dtypes order
  std::string datasheet_source, datasheet_architecture;
  std::vector<DatasheetRow> datasheet;  // empty without a part
  const ThroughputRow* row(DType t) const;
};

Expected<ThroughputConfig> throughput_config_from_json(const nlohmann::json& j);
nlohmann::json to_json(const ThroughputConfig& c);
nlohmann::json to_json(const ThroughputResult& r);

// The live sampler's history read as a result (the Throughput panel's datasheet comparison):
// per sampled dtype its samples and median, speed-ups over float32 when it was sampled (else
// over the first dtype), and the datasheet rows of `datasheet` ("" for none; must be a part).
ThroughputResult summarise_history(const ThroughputHistory& h, size_t n, const std::string& datasheet,
                                   const std::string& device);

// Errors: an invalid config, a dtype whose product cannot be prepared, "cancelled".
Expected<ThroughputResult> run_throughput(const ThroughputConfig& c, const std::function<void(double)>& progress = {},
                                          const std::atomic<bool>* cancel = nullptr);

}  // namespace pl::experiment
