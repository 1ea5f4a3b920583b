#include "core/experiment/mlp.h"

#include <array>
#include <chrono>
#include <cmath>

#include "core/accumulate/gemm.h"
#include "core/dtype/codec.h"
#include "core/experiment/on_device.h"
#include "core/util/names.h"
#include "core/util/parallel.h"
#include "core/util/thread_limit.h"

namespace pl::experiment {
namespace {

constexpr std::array<std::string_view, kActivationCount> kNames = {"relu", "gelu", "identity"};
constexpr uint64_t kLayerIds = 100;  // data-stream ids of layer l: 100 + 2l (weight), +1 (bias)
// Stochastic-rounding streams of layer l (run_stream_seed): 1000 + 2l (its product's roundings,
// run_matmul's own streams of that), +1 (its activations' rounding).
constexpr uint64_t kLayerStreams = 1000;

double act(Activation a, double x) {
  switch (a) {
    case Activation::ReLU: return std::isnan(x) ? x : (x > 0 ? x : 0.0);  // NaN stays NaN, as torch.relu
    case Activation::GELU: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Activation::Identity: return x;
  }
  return x;
}

}  // namespace

std::string_view activation_name(Activation a) { return kNames[static_cast<int>(a)]; }
std::optional<Activation> parse_activation(std::string_view n) { return find_named<Activation>(kNames, n); }

Status check(const MlpConfig& c) {
  if (c.layers < 1 || c.layers > kMaxLayers) return Error{"layers must lie in [1, " + std::to_string(kMaxLayers) + "]"};
  if (c.layer.n != c.layer.k) return Error{"an MLP's layers are square: n must equal k (the width)"};
  return check(c.layer);
}

Expected<MlpResult> run_mlp(const MlpConfig& c, const std::function<void(double)>& progress,
                            const std::atomic<bool>* cancel) {
  if (auto st = check(c); !st) return Error{st.error()};
  const ThreadLimit run_threads(c.layer.threads);  // the loops here and each layer's run
  const auto t0 = std::chrono::steady_clock::now();
  MlpResult out;
  out.config = c;
  const size_t batch = c.layer.m, width = c.layer.k;
  DataSource init;
  init.distribution = Distribution::TorchLinear;
  // Both networks start from the same input; the low-precision one carries its own
  // activations (already values of the output dtype) from layer to layer.
  std::vector<double> h_ref = generate(c.layer.input_data, batch, width, c.layer.seed, 1);
  std::vector<double> h = h_ref;
  const FloatFormat& out_fmt = info(c.layer.output).format;
  for (int l = 0; l < c.layers; ++l) {
    if (cancel && cancel->load()) return Error{"cancelled"};
    const uint64_t id = kLayerIds + 2 * static_cast<uint64_t>(l);
    std::vector<double> w = generate(init, width, width, c.layer.seed, id, width);
    std::vector<double> b = generate(init, 1, width, c.layer.seed, id + 1, width);
    MatmulConfig lc = c.layer;
    lc.op = MatmulOp::Linear;
    const uint64_t stream = kLayerStreams + 2 * static_cast<uint64_t>(l);
    lc.cast.seed = run_stream_seed(c.layer, stream);  // (each layer draws its own bits)
    // nn.Linear has a bias, stored like its weight (a model cast to bfloat16 casts both);
    // float32 beside integer weights.
    if (!lc.bias) lc.bias = is_float(lc.weight) ? lc.weight : DType::float32;
    auto layer = run_matmul(lc, MatmulOperands{h, w, b}, {}, cancel);
    if (!layer) return Error{"layer " + std::to_string(l) + ": " + layer.error(), layer.environment_failure()};
    if (l == 0) {
      out.product_method = layer->product_method;
      out.product_backend = layer->product_backend;
      out.backend_note = layer->backend_note;
    }
    // The float64 network: exact-enough products of its own activations (on the layer's device
    // when it has one, as the layer's own references).
    const Held layer_ref = reference_product(lc.backend, {batch, width, width}, h_ref, w, false, cancel).values;
    if (!layer_ref) return Error{"cancelled"};
    auto ref_values = take_values(layer_ref);  // (a copy: the cache keeps the reference)
    if (!ref_values)
      return Error{"layer " + std::to_string(l) + ": " + ref_values.error(), ref_values.environment_failure()};
    std::vector<double> next_ref = std::move(ref_values).value();
    auto layer_result = layer->result->host();
    if (!layer_result)
      return Error{"layer " + std::to_string(l) + ": " + layer_result.error(), layer_result.environment_failure()};
    // The low-precision network: the activation applied to the layer's output, rounded back
    // into the output dtype (ReLU is exact; GELU is computed in float64 and rounded once, element
    // i drawing stochastic index i as round_to(..., i) would). Rows on every core.
    std::vector<double> next(layer_result->size());
    parallel_for(
        batch, 0,
        [&](size_t r0, size_t r1) {
          for (size_t i = r0 * width; i < r1 * width; ++i) {
            next_ref[i] = act(c.activation, next_ref[i] + b[i % width]);
            next[i] = act(c.activation, (*layer_result)[i]);
          }
        },
        rows_worth_a_thread(width));
    CastOptions activation_cast = c.layer.cast;
    activation_cast.seed = run_stream_seed(c.layer, stream + 1);
    round_each(out_fmt, next, next, activation_cast);
    MlpLayerResult lr;
    lr.layer = l + 1;
    const HeldComparison network{hold_view(next), hold_view(next_ref)};
    std::string where;
    auto network_stats = error_stats_on(lc.backend, std::span(&network, 1), c.layer.output, where, out.backend_note);
    if (!network_stats)
      return Error{"layer " + std::to_string(l) + ": " + network_stats.error(), network_stats.environment_failure()};
    lr.network = network_stats->front();
    lr.own = layer->total.stats;
    lr.own_arithmetic = layer->arithmetic.stats;
    double sq = 0;
    for (double v : next_ref) sq += v * v;
    lr.reference_rms = std::sqrt(sq / static_cast<double>(next_ref.size()));
    out.layers.push_back(lr);
    h = std::move(next);
    h_ref = std::move(next_ref);
    if (progress) progress(static_cast<double>(l + 1) / c.layers);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace pl::experiment
