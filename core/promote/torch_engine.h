// PyTorch's dtype rules, reproduced: type promotion, result_type with operand
// categories, and what common operations return or raise on the CPU.
//
// Reproduces PyTorch 2.15.0 (CPU build), checked cell by cell against tables
// recorded from the real library (tests/data/promotion/gen_torch.py), and, as
// Release::V1_13, Debian 12's python3-torch 1.13.1 (recorded the same way; it reports
// itself as 1.13.0a0): where 1.13 differs, the code says so. The
// rules follow c10/core/ScalarType.cpp (promoteTypes), aten/src/ATen/native/
// TypeProperties.cpp (result_type, combine_categories), TensorIterator's CPU
// casting, and each kernel's AT_DISPATCH list; each function says which.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "core/promote/engine.h"
#include "core/promote/outcome.h"
#include "core/util/expected.h"

namespace pl::promote::torch {

inline constexpr std::string_view kVersion = "2.15.0";

// Which PyTorch: the current release, or the 1.13 line many servers still run.
// The *_OneDnnBf16 releases: the same release on a CPU with AVX-512 (BW, VL, DQ), where
// bfloat16 convolutions go through oneDNN and a dtype mismatch reads "... should be the same or
// input should be a MKLDNN tensor and weight (bias) is a dense tensor"; V2_15 and V1_13 are the
// path without it (recorded with torch.backends.mkldnn.enabled = False, what a CPU without
// those instructions takes). Both releases were recorded both ways on an AVX-512 machine: the
// oneDNN path changes 96 cells of 2.15's tables (2,304 under CPU autocast) and 204 of 1.13's
// (tests/data/promotion/onednn_differences.txt).
enum class Release : uint8_t { V2_15, V1_13, V1_13_OneDnnBf16, V2_15_OneDnnBf16 };
inline bool is_1_13(Release r) { return r == Release::V1_13 || r == Release::V1_13_OneDnnBf16; }
inline bool onednn_bf16(Release r) { return r == Release::V1_13_OneDnnBf16 || r == Release::V2_15_OneDnnBf16; }
std::string_view release_version(Release r);  // "2.15.0", "1.13.1"

enum class Op : uint8_t {
  Add,
  Sub,
  Mul,
  Div,  // elementwise; div is true division
  Matmul,
  Mm,
  Bmm,
  Addmm,  // matrix products (addmm: bias + a @ b)
  Linear,
  Conv1d,
  Conv2d,  // torch.nn.functional, optional bias
  To,      // a.to(b's dtype)
};
inline constexpr int kOpCount = 12;

std::string_view op_name(Op op);
std::optional<Op> parse_op(std::string_view name);
bool op_is_elementwise(Op op);
bool op_takes_bias(Op op);  // addmm, linear, conv1d, conv2d
bool op_needs_bias(Op op);  // addmm: torch.addmm(input, mat1, mat2) has no form without its input
bool op_is_layer(Op op);    // linear, conv1d, conv2d: a layer's forward, its weight a module's parameter

// Does this release have the dtype? 1.13 lacks uint16/32/64, bcomplex32, float8 and fp4.
bool has_dtype(Release r, DType t);

// torch.promote_types(a, b).
Outcome promote_types(DType a, DType b, Release r = Release::V2_15);

// torch.result_type over the operands, in order.
Outcome result_type(std::span<const Operand> operands, Release r = Release::V2_15);

// What op(a, b[, bias]) returns or raises on the CPU. Matrix ops, convolutions and .to()
// are modelled for dimensioned tensors only (other kinds give an outcome whose error_type
// is "precision-lab", never a made-up PyTorch message); `bias` is the bias dtype.
// `shape`: a convolution's shapes (default_conv_shape when null); other ops ignore it.
Outcome evaluate(Op op, Operand a, Operand b, std::optional<DType> bias = std::nullopt, Release r = Release::V2_15,
                 const ConvShape* shape = nullptr);

// The shapes the recorded golden tables use: input (1, 1, 3[, 3]), weight (1, 1, 2[, 2]).
ConvShape default_conv_shape(Op op);
// Why PyTorch would refuse these shapes before the weight's dtype check (wrong rank, channels
// that do not match, a kernel larger than the input), as an error.
Status check_conv_shape(Op op, const ConvShape& s);
// The rule beside check_conv_shape's error (a bias of another dtype PyTorch refuses before the
// shapes, and the engines check it first).
inline constexpr const char* kConvShapeFirstRule = "PyTorch checks the shapes before the weight's dtype.";
// The shapes as a person types them -- "2,3,8,8" for the input and the weight, empty for the
// default side -- with groups and threads when given, the defaults filled in and the whole
// checked. A text that is not a shape is named by its label ("--a-shape: ..."); shapes PyTorch
// refuses give check_conv_shape's reason after `check_prefix`.
Expected<ConvShape> conv_shape_from_text(Op op, std::string_view input, std::string_view weight,
                                         std::optional<int64_t> groups, std::optional<int> threads,
                                         std::string_view input_label, std::string_view weight_label,
                                         std::string_view check_prefix = "");

// Whether a float32 convolution of these shapes runs in oneDNN on the CPU (ConvParams::use_mkldnn
// in aten/src/ATen/native/Convolution.cpp, 1.13 and 2.15 alike): batch of 16 or more, a kernel
// other than 1 x 1, or more than one thread; and then groups, a kernel larger than 3 x 3 on both
// sides, a batch above 1, or more than 20480 input elements. A conv1d is viewed as a conv2d of
// height 1 first. Every x86 CPU has this path; only bfloat16 and float16 need AVX-512.
bool float32_conv_takes_onednn(Op op, const ConvShape& s);
// The convolution frontend's bias check (the bias's dtype against the input's, before anything
// else; 1.13's conv1d had none): the error it raises, or none.
std::optional<Outcome> conv_bias_refusal(Op op, DType input, std::optional<DType> bias, Release r);
// Which path runs a CPU convolution with this input dtype: oneDNN for bfloat16 on a CPU with
// AVX-512 BW/VL/DQ (the OneDnnBf16 releases), for float32 by the shapes; PyTorch's own kernel
// otherwise.
bool conv_takes_onednn(Op op, DType input, const ConvShape& shape, Release r);

}  // namespace pl::promote::torch
