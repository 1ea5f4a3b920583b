// Scaling recipes: how a tensor becomes numbers of a narrow dtype before the product, and how
// the product is scaled back. Each operand is quantised along its rows, whose elements run
// along the reduction dimension K (activations M x K, weights N x K), so that
//     C[i][j] = a.row_factor[i] * b.row_factor[j] * sum_k a.values[i][k] * b.values[j][k]
// is the product the hardware computes: per-tensor and per-channel scales factor out of the
// sum and are applied afterwards (the GEMM epilogue), block scales (MX, NVFP4) do not and are
// already inside `values` (exactly: values are dtype numbers times a power of two, or times
// an e4m3 number, so every product stays exact in float64).
//
// Recipes follow (all computed in float64 and rounded once unless said):
//  - per-tensor current / delayed: NVIDIA Transformer Engine 2.x Float8CurrentScaling and
//    DelayedScaling (amax_compute_algo "max", margin 0): scale = float32(max_finite / amax),
//    q = saturate(round(x * scale)), scale_inv = float32(1 / scale).
//  - per-channel symmetric: as above per row. int8 takes the same formulas with max 127 and
//    the symmetric range [-127, 127], int4 with max 7 and [-7, 7]; integers round to nearest even.
//    (TensorRT's and ModelOpt's convention; PyTorch's default symmetric observer takes amax / 127.5
//    over [-128, 127].)
//  - per-channel asymmetric (int8/uint8, int4/uint4): PyTorch's MinMax observer range including 0,
//    scale = (max - min) / (qmax - qmin) (255 for 8 bits, 15 for 4), zero point z,
//    q = clamp(round(x / scale) + z).
//  - MX (OCP Microscaling Formats v1.0, section 6.3): blocks of 32 along K share an
//    E8M0 scale 2^(floor(log2 amax) - emax_elem); elements saturate.
//  - NVFP4 (NVIDIA, Transformer Engine NVFP4 recipe): blocks of 16 share a float8_e4m3fn
//    scale, amax_block / 6 times a float32 tensor scale (448 * 6) / amax_tensor.
//  - group-wise integers (weight-only, as AWQ and GPTQ store them): groups of G elements along K
//    (128 unless given) share a float16 scale. Symmetric ("group", int4 or int8): AWQ's
//    zero_point=False, scale = float16(amax_group / qmax), q = clamp(round(x / scale), -qmax,
//    qmax) -- GPTQ's sym differs: scale 2 amax / 15 over the whole [-8, 7] with zero point 8
//    (Quantizer.find_params). Asymmetric
//    ("group-asymmetric", int4, uint4, int8 or uint8): the group's range including 0 as PyTorch's MinMax
//    observer takes it, scale = float16((max - min) / (qmax - qmin)), a zero point z in the
//    dtype's range, q = clamp(round(x / scale) + z), dequantised as (q - z) * scale. A float16
//    scale saturates at 65504; a group whose scale rounds to 0 becomes zeros (counted as flushed).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/device/float_format.h"
#include "core/dtype/dtype.h"
#include "core/util/expected.h"
#include "core/util/no_init_vector.h"

namespace pl::experiment {

enum class ScalingKind : uint8_t {
  None,                  // plain conversion (float dtypes only)
  PerTensor,             // current scaling: this tensor's amax
  PerTensorDelayed,      // delayed scaling: amax from a history of earlier tensors
  PerChannel,            // symmetric, one scale per row
  PerChannelAsymmetric,  // scale and zero point per row (integer dtypes)
  MX,                    // 32-element blocks, float8_e8m0fnu scales
  NVFP4,                 // 16-element blocks, float8_e4m3fn scales, float32 tensor scale
  Group,                 // groups of Scaling::group elements, symmetric, float16 scales
  GroupAsymmetric,       // the same with a zero point per group
};
inline constexpr size_t kScalingKindCount = 9;  // the recipes, numbered 0 .. count - 1

struct Scaling {
  ScalingKind kind = ScalingKind::None;
  int history = 16;  // PerTensorDelayed: earlier tensors in the amax history
  int group = 128;   // Group, GroupAsymmetric: elements per group along a row
  // Per-tensor and NVFP4 tensor scales from this amax instead of the quantised array's own, when
  // the array is a run of whole rows of a larger tensor (the checkpoint scan quantises a large
  // tensor a few rows at a time): 0 for the array's own.
  double tensor_amax = 0;
};

std::string_view scaling_name(ScalingKind k);  // "none", "per-tensor", "delayed", ...
// One line on what the recipe does, for a reader who has not met it (the window's tooltips).
std::string_view scaling_summary(ScalingKind k);
std::optional<ScalingKind> parse_scaling(std::string_view name);
// Every recipe's name in the table's order, joined by `separator`: for help texts and messages.
std::string scaling_names(std::string_view separator = ", ");
int scaling_block(ScalingKind k);  // 32 for MX, 16 for NVFP4, 0 otherwise (a group's size is Scaling::group)
bool is_group(ScalingKind k);      // Group or GroupAsymmetric
// The elements along a row that share a block scale: MX's 32, NVFP4's 16, a group's size; 0 for
// a recipe without blocks.
inline size_t block_elements(const Scaling& s) {
  return is_group(s.kind) ? static_cast<size_t>(s.group) : static_cast<size_t>(scaling_block(s.kind));
}
inline constexpr int kMaxGroup = 1 << 16;

// A recipe written NAME[:BLOCK] ("per-channel", "mx:32", "group:64"): the block must be MX's or
// NVFP4's own, a group's size from 2 to 65536, and is refused for a recipe without blocks.
Expected<Scaling> parse_scaling_spec(std::string_view text);
// The spelling parse_scaling_spec reads back: the name, and ":G" for a group.
std::string scaling_spec(const Scaling& s);

// An error saying why `dtype` cannot be used with the recipe.
Status check(const Scaling& s, DType dtype);

struct Quantised {
  size_t rows = 0, cols = 0;
  // (Both large arrays start uninitialised, no_init_vector.h: every recipe writes each element,
  // on every core, before anything reads it.)
  NoInitVector<double> values;     // rows x cols: what the products multiply
  std::vector<double> row_factor;  // per row, applied after the sum (1 without a scale)
  // values * row_factor, the tensor as the recipe stores it: dequantised(). Held apart only when
  // a factor is not 1; without a scale the values are the tensor (no 8-byte-per-element copy).
  NoInitVector<double> scaled;
  // Elements past the dtype's range: past its largest finite (an Inf among them), or outside an
  // integer's. What they became: out_of_range_outcome().
  size_t saturated = 0;
  size_t flushed = 0;                // nonzero elements that became zero
  double amax = 0;                   // the amax the scale was computed from (per-tensor kinds)
  std::vector<double> block_scales;  // MX / NVFP4: every block's scale, row-major
  bool on_device = false;            // a RoundArray rounded the elements
  std::string device_error;          // it was given but could not (the CPU did): why

  std::span<const double> dequantised() const { return scaled.empty() ? std::span<const double>(values) : scaled; }
};

// Rounds float64 values into a float format in place, element i drawing stochastic index i,
// as round_each does -- on a device (a backend's roundtrip_f64); an error when it cannot.
using RoundArray = std::function<Status(const FloatFormat&, const CastOptions&, std::span<double>)>;

// Quantises a rows x cols row-major tensor. `o` gives the rounding mode (and, for kind None,
// the overflow policy; scaled recipes saturate as their references do). `history_amax` is
// PerTensorDelayed's amax (the largest |x| over the earlier tensors). The scales and counts are
// the CPU's; a `device` rounds the float elements (the CPU does what it cannot, and the result
// says so), the same bits either way.
Quantised quantise(std::span<const double> x, size_t rows, size_t cols, DType dtype, const Scaling& s,
                   const CastOptions& o, double history_amax = 0, const RoundArray* device = nullptr);

// The scale formulas quantise() applies, for passes that apply them on their own (the checkpoint
// scan scores every candidate in one pass over cache-sized blocks, quantise's arrays never
// written): one definition, so that both give the same bits.
//
// Transformer Engine's scale from an amax (per-tensor, per-channel, NVFP4's tensor scale):
// float32(max_value / amax), 1 when amax is 0 or not finite. Elements are scaled as x * scale
// and dequantised times float32(1 / scale).
double amax_scale(double max_value, double amax);
double amax_scale_inverse(double scale);  // the dequantising factor: float32(1 / scale)
// OCP MX 6.3: a block's scale is 2^e, e = floor(log2(amax)) - the element format's emax,
// clamped to E8M0's range; a zero block takes the smallest. Elements are scaled as x * 2^-e.
int mx_scale_exponent(DType elements, double block_amax);
// The same from the element format's emax (for loops over many blocks: a normal amax's exponent
// is read from its bits, which is std::ilogb's answer without the library call).
inline int mx_scale_exponent(int element_emax, double block_amax) {
  if (!(block_amax > 0)) return -127;
  const int biased = static_cast<int>((std::bit_cast<uint64_t>(block_amax) >> 52) & 0x7ff);
  const int e = biased != 0 && biased != 0x7ff ? biased - 1023 : std::ilogb(block_amax);
  return std::clamp(e - element_emax, -127, 127);
}
// NVFP4: a block's float8_e4m3fn scale (saturated) from its amax and the tensor scale
// `encode` = amax_scale(448 * 6, tensor amax). Elements are scaled as x / (scale * float32(1 /
// encode)), and a block whose scale is 0 becomes zeros.
double nvfp4_block_scale(double block_amax, double encode);
// A symmetric group's float16 scale (nearest even, saturating at 65504) for integers up to
// `qmax`. Elements are scaled as x / scale, and a group whose scale is 0 becomes zeros.
double group_scale(double group_amax, double qmax);

// What quantise() made of a value past the dtype's range (Quantised::saturated counts them):
// "clamped" into an integer's; for a float, under the rounding and the overflow policy (scaled
// recipes saturate), "to Inf", "to NaN" or "to the largest finite". "1 saturated" read wrong
// for a bfloat16 Inf that stayed Inf.
std::string out_of_range_outcome(DType dtype, const Scaling& s, const CastOptions& o);

}  // namespace pl::experiment
