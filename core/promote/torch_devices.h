// PyTorch with a call's tensors on two devices: a CPU tensor fed to a model on the GPU, and the
// reverse. PyTorch's ops do not move their inputs to a common device, so such a call raises -- but
// which check raises, and its words, depend on the op, the release and, for a convolution, on the
// path the input's device and shape select. Modelled from PyTorch's source, for the float types a
// model is trained in (float16, bfloat16, float32, float64; other dtypes answer "not modelled"):
//  - elementwise ops (TensorIterator's compute_types): the first non-CPU operand's device is the
//    common one, and any other operand on another device raises "Expected all tensors to be on
//    the same device, but found at least two devices, cuda:0 and cpu!" -- except a zero-dim CPU
//    tensor, which a CUDA kernel takes as a scalar (allow_cpu_scalars), so the call succeeds on
//    the GPU with the usual promotion;
//  - matrix products: the dispatcher sends the call to the CUDA kernel, whose generated wrapper
//    checks each tensor argument's device in schema order before any dtype check
//    (check_and_update_common_device, aten/src/ATen/core/op_registration/adaption.h; the first
//    argument's device is the common one). 2.15 words it "Expected all tensors to be on the same
//    device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking
//    argument in method wrapper_CUDA_addmm)"; 1.13 "Expected all tensors to be on the same
//    device, but found at least two devices, cuda:0 and cpu! (when checking argument for
//    argument mat1 in method wrapper_addmm)". F.linear calls addmm(bias, x, w.t()) with a bias
//    and matmul(x, w.t()) -- mm for a 2-D x -- without one;
//  - convolutions (aten/src/ATen/native/Convolution.cpp): a CUDA input selects cuDNN, whose
//    check_input_same_type_as_parameters compares the tensor types ("Input type
//    (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"); a CPU
//    input selects oneDNN or PyTorch's own kernel by its dtype and shapes, as on the CPU: oneDNN's
//    check adds "or input should be a MKLDNN tensor and weight is a dense tensor", and the own
//    kernel, _slow_conv2d_forward, is dispatched to CUDA (the weight is there), whose wrapper
//    reports the weight's device; a depthwise convolution of a CUDA input takes another path
//    (CudaDepthwise2d) and is not modelled;
//  - .to(dtype) converts on the tensor's own device and never raises for placement.
// Users' reports quote each of these texts (docs/features.md lists them); a GPU recording
// (tests/data/promotion/gen_torch_devices.py, run by scripts/gpu_check.sh) is checked against
// this model cell by cell when present.
#pragma once

#include <optional>

#include "core/promote/engine.h"
#include "core/promote/torch_engine.h"

namespace pl::promote::torch {

// op(a, b[, bias]) with a on `a_device` and b on `b_device`; the bias lives with the weight b,
// as a module's parameters do. Python scalars have no device. When every tensor is on one device
// the answer is that device's engine (the CPU release `r`, or the CUDA model, 2.15 only).
// `shape`: a convolution's shapes (default_conv_shape when null).
Outcome evaluate_on_devices(Op op, Operand a, Operand b, std::optional<DType> bias, Release r, const ConvShape* shape,
                            Device a_device, Device b_device);

}  // namespace pl::promote::torch
