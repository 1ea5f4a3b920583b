// A small MLP run twice -- in the dtypes under study and in float64 -- so the error can be
// followed through the layers: h_{l+1} = act(h_l W_l^T + b_l), l = 0 .. L-1, with weights and
// biases drawn as PyTorch's nn.Linear initialises them. Each low-precision layer is a full
// matrix experiment (matmul.h: the layer's own error split into input rounding, arithmetic
// and output rounding, against that layer's exact product of what it was given); the
// network's error is each layer's output against the float64 network's.
#pragma once

#include <atomic>
#include <functional>
#include <string_view>
#include <vector>

#include "core/experiment/matmul.h"

namespace pl::experiment {

enum class Activation : uint8_t { ReLU, GELU, Identity };
inline constexpr size_t kActivationCount = 3;
std::string_view activation_name(Activation a);  // "relu", "gelu" (erf form), "identity"
std::optional<Activation> parse_activation(std::string_view name);

inline constexpr int kMaxLayers = 256;

struct MlpConfig {
  // Dtypes, accumulation, recipes, rounding, seed and the input's data source; its m is the
  // batch, n = k = the width. Weights are drawn with nn.Linear's init, biases too.
  MatmulConfig layer;
  int layers = 8;
  Activation activation = Activation::ReLU;
};

Status check(const MlpConfig& c);

struct MlpLayerResult {
  int layer = 0;
  ErrorStats network;  // h_{l+1} against the float64 network's h_{l+1}
  ErrorStats own;      // this layer's total error against its own exact product (before act)
  ErrorStats own_arithmetic;
  double reference_rms = 0;  // RMS of the float64 network's activations (do they vanish?)
};

struct MlpResult {
  MlpConfig config;
  std::vector<MlpLayerResult> layers;
  double seconds = 0;
  std::string product_method;   // what ran the layers' products (the first layer's account)
  std::string product_backend;  // "cpu" or "cuda (device)"
  std::string backend_note;     // why they did not run where the config asked
};

Expected<MlpResult> run_mlp(const MlpConfig& c, const std::function<void(double)>& progress = {},
                            const std::atomic<bool>* cancel = nullptr);

}  // namespace pl::experiment
