// The experiment file: a matrix experiment described in JSON (docs/experiment-json.md), and
// its results written back as JSON. Every key is checked: an unknown key, a bad dtype name,
// a shape that does not fit or a recipe a dtype cannot take is an error naming the key.
//
//   {"experiment": "linear", "m": 256, "n": 256, "k": 1024,
//    "input": "float8_e4m3fn", "weight": "float8_e4m3fn", "bias": "bfloat16",
//    "output": "bfloat16", "accumulate": "f32:sequential", "rounding": "rne",
//    "overflow": "default", "input_scaling": "per-tensor",
//    "weight_scaling": {"kind": "delayed", "history": 16},
//    "input_data": {"distribution": "outlier-channels", "outlier_gain": 50},
//    "weight_data": "torch-linear", "seed": 1, "high_precision_reference": false,
//    "input_file": "x.npy", "weight_file": "w.safetensors:layer.weight",
//    "raw": false, "framework": "torch"}
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/experiment/matmul.h"
#include "core/experiment/mlp.h"
#include "core/util/expected.h"

namespace pl::experiment {

// Files named by an experiment (empty: drawn from the data source).
struct MatmulFiles {
  std::string input, weight, bias;  // "x.npy" or "model.safetensors:name[:r0:r1,c0:c1]"
  bool raw = false;                 // .npy integer elements are raw codes of the dtype
};

struct MatmulSpec {
  MatmulConfig config;
  MatmulFiles files;
  // A promotion engine id ("torch", "numpy", ...): run the experiment as that framework would
  // (framework_check.h). Empty: the arithmetic alone.
  std::string framework;
};

Expected<MatmulSpec> matmul_spec_from_json(const nlohmann::json& j);
nlohmann::json to_json(const MatmulSpec& s);

// Why the spec cannot run (empty: it can): check(config), or only check_setup(config) where it
// names a framework -- float64 x float32 raises in PyTorch whatever the accumulation, and
// NumPy computes it in float64 (framework_check.h's run_spec) -- and a dtype the framework
// lacks (framework_lacks).
Status check(const MatmulSpec& s);

// An error naming the config's dtypes (input, weight, bias) the framework does not have. A
// custom format is in none.
Status framework_lacks(const MatmulConfig& c, const std::string& engine_id);

// {"experiment": "mlp", "layers": 8, "width": 256, "batch": 64, "activation": "relu", ...}
// with the matrix experiment's dtype, accumulation, recipe, rounding, data and seed keys.
Expected<MlpConfig> mlp_config_from_json(const nlohmann::json& j);
nlohmann::json to_json(const MlpConfig& c);
nlohmann::json to_json(const MlpResult& r);

// Results without the per-element arrays: stats, histograms, bounds, reports and timings. Its
// config names the operands' files where they came from files (else it reads as drawn).
nlohmann::json to_json(const MatmulResult& r, const MatmulFiles& files = {});
nlohmann::json to_json(const ErrorStats& s);
nlohmann::json to_json(const Histogram& h);

}  // namespace pl::experiment
