#include "core/promote/torch_devices.h"

#include <string>
#include <utility>
#include <vector>

#include "core/promote/torch_cuda.h"
#include "core/promote/torch_names.h"

namespace pl::promote::torch {
namespace {

const std::string kNoMove =
    "PyTorch's ops do not move their inputs to a common device: every dimensioned tensor of a call must be on one "
    "device "
    "(move the input with x.to(w.device), or the model with model.to(x.device)).";

// How c10::Device prints in messages: the CPU has no index, a CUDA tensor made by .cuda() or
// device="cuda" is on the current device, cuda:0.
std::string device_text(Device d) { return d == Device::Cuda ? "cuda:0" : "cpu"; }

Outcome raises(std::string message, std::string rule) {
  return Outcome{std::nullopt, "RuntimeError", std::move(message), std::move(rule)};
}

Outcome not_modelled(std::string why) {
  return Outcome{std::nullopt, "precision-lab", std::move(why),
                 "Devices are modelled from PyTorch's source for the float types a model is trained in."};
}

// One tensor argument of a kernel, as the dispatcher's device check sees it.
struct Argument {
  const char* name;  // the schema's name: self, mat1, mat2, weight
  Device device;
};

// The generated wrapper's check (check_and_update_common_device) on arguments that are not all on
// one device: the first tensor argument's device is the common one, and the first argument on
// another device raises.
Outcome wrapper_device_error(const std::vector<Argument>& args, const std::string& kernel, Release r) {
  const Device common = args.front().device;
  for (const Argument& arg : args) {
    if (arg.device == common) continue;
    if (is_1_13(r))  // wrappers were named after the kernel alone, and the message named both devices
      return raises("Expected all tensors to be on the same device, but found at least two devices, " +
                        device_text(common) + " and " + device_text(arg.device) +
                        "! (when checking argument for argument " + arg.name + " in method wrapper_" + kernel + ")",
                    kNoMove);
    return raises("Expected all tensors to be on the same device, but got " + std::string(arg.name) + " is on " +
                      device_text(arg.device) + ", different from other tensors on " + device_text(common) +
                      " (when checking argument in method wrapper_CUDA_" + kernel + ")",
                  kNoMove);
  }
  return not_modelled("every argument of " + kernel + " is on one device");  // (callers pass two devices)
}

// Which ATen kernel a matrix op reaches, and its tensor arguments in schema order: bmm(self, mat2),
// addmm(self = bias, mat1, mat2) for addmm and for F.linear with a bias (addmm(bias, x, w.t())),
// mm(self, mat2) for the rest -- mm itself, matmul of two matrices and F.linear without a bias
// (matmul(x, w.t()), which is mm for a 2-D x).
std::pair<std::string, std::vector<Argument>> matrix_kernel(Op op, bool has_bias, Device a, Device b) {
  if (op == Op::Bmm) return {"bmm", {{"self", a}, {"mat2", b}}};
  if ((op == Op::Addmm || op == Op::Linear) && has_bias) return {"addmm", {{"self", b}, {"mat1", a}, {"mat2", b}}};
  return {"mm", {{"self", a}, {"mat2", b}}};
}

// A depthwise convolution of a CUDA input (groups = input channels > 1, the output channels a
// multiple of them) takes _select_conv_backend's CudaDepthwise2d path, which has no type check of
// its own: not modelled.
bool cuda_depthwise(const ConvShape& s) {
  const int64_t channels = s.input[1];
  return s.groups > 1 && s.groups == channels && s.weight[0] % channels == 0;
}

// The answer when every tensor is on one device: that device's engine.
Outcome on_one_device(Op op, const Operand& a, const Operand& b, std::optional<DType> bias, Release r,
                      const ConvShape* shape, Device d) {
  if (d == Device::Cpu) return evaluate(op, a, b, bias, r, shape);
  if ((op == Op::Conv1d || op == Op::Conv2d) && shape && cuda_depthwise(*shape))
    return not_modelled("a depthwise convolution of a CUDA input (CudaDepthwise2d) is not modelled");
  if (is_1_13(r))
    return not_modelled(
        "PyTorch 1.13 on CUDA is not modelled (torch-cuda models 2.15, torch2.11-cuda is 2.11 as "
        "recorded); give a cpu device or another engine");
  return evaluate_cuda(op, a, b, bias);
}

Outcome convolution(Op op, const Operand& a, const Operand& b, std::optional<DType> bias, Release r,
                    const ConvShape& shape, Device a_device, Device b_device) {
  // The frontend compares the bias's dtype with the input's before anything looks at a device,
  // or at the shapes.
  if (auto refused = conv_bias_refusal(op, a.dtype, bias, r)) return std::move(*refused);
  if (auto st = check_conv_shape(op, shape); !st)
    return Outcome{std::nullopt, "precision-lab", st.error(), kConvShapeFirstRule};
  const std::string input_type = tensor_type_string(a.dtype, a_device == Device::Cuda);
  const std::string weight_type = tensor_type_string(b.dtype, b_device == Device::Cuda);
  if (a_device == Device::Cuda) {  // cuDNN's path, selected by the input's device
    if (cuda_depthwise(shape))
      return not_modelled("a depthwise convolution of a CUDA input (CudaDepthwise2d) is not modelled");
    return raises("Input type (" + input_type + ") and weight type (" + weight_type + ") should be the same",
                  kNoMove +
                      " A CUDA input takes cuDNN's path, whose check compares the tensor types, device "
                      "included.");
  }
  if (conv_takes_onednn(op, a.dtype, shape, r))
    return raises("Input type (" + input_type + ") and weight type (" + weight_type +
                      ") should be the same or input should be a MKLDNN tensor and weight is a dense tensor",
                  kNoMove +
                      " This CPU input takes oneDNN's path (by its dtype and shapes), whose check "
                      "compares the tensor types, device included.");
  // PyTorch's own kernel: _slow_conv2d_forward(self, weight, kernel_size, bias, ...) goes to
  // CUDA, where the weight is, and its wrapper checks the devices.
  Outcome o = wrapper_device_error({{"self", a_device}, {"weight", b_device}}, "__slow_conv2d_forward", r);
  o.rule +=
      " This CPU input takes PyTorch's own kernel (by its dtype and shapes), which goes to CUDA, where "
      "the weight is; that kernel's wrapper checks each argument's device.";
  return o;
}

}  // namespace

Outcome evaluate_on_devices(Op op, Operand a, Operand b, std::optional<DType> bias, Release r, const ConvShape* shape,
                            Device a_device, Device b_device) {
  // What PyTorch refuses before any device is looked at, and what is modelled for dimensioned
  // tensors only, answer as on the CPU (an AttributeError, "not modelled").
  bool refused_early = false;
  for (DType t : {a.dtype, b.dtype, bias.value_or(a.dtype)}) refused_early |= !has_dtype(r, t);
  if (!op_is_elementwise(op) && (a.kind != OperandKind::Tensor || b.kind != OperandKind::Tensor)) refused_early = true;
  // A zero-dim tensor's .to(dtype) was recorded on the CPU only.
  if (op == Op::To && a.kind == OperandKind::ZeroDim && a_device != Device::Cpu && has_dtype(r, a.dtype) &&
      has_dtype(r, b.dtype))
    return not_modelled("a zero-dim CUDA tensor's .to(dtype) is not modelled (recorded on the CPU only)");
  if (refused_early) return evaluate(op, a, b, bias, r, shape);
  // A Python scalar has no device: only the tensors' devices count; .to(dtype) converts where the
  // tensor is.
  const bool a_tensor = a.kind != OperandKind::Scalar, b_tensor = b.kind != OperandKind::Scalar;
  if (op == Op::To || !a_tensor || !b_tensor || a_device == b_device)
    return on_one_device(op, a, b, bias, r, shape, a_tensor ? a_device : b_device);
  for (const Operand* x : {&a, &b})
    if (!cuda_models_dtype(x->dtype))
      return not_modelled(std::string(name(x->dtype)) +
                          " tensors on two devices are not modelled (float16, bfloat16, float32 and float64 are)");
  if (bias && !cuda_models_dtype(*bias))
    return not_modelled(std::string(name(*bias)) + " biases on two devices are not modelled");
  if (op_is_elementwise(op)) {
    // TensorIterator: the first non-CPU operand's device is the common one; a CUDA kernel
    // takes one zero-dim CPU tensor as a scalar.
    const Operand& cpu = a_device == Device::Cpu ? a : b;
    if (cpu.kind == OperandKind::ZeroDim) {
      // (1.13 has no CUDA model; promotion does not depend on the device, and within these four
      // dtypes no kernel refuses, so its dtype is result_type's.)
      const Operand both[] = {a, b};
      Outcome o = is_1_13(r) ? result_type(both, r) : on_one_device(op, a, b, bias, r, shape, Device::Cuda);
      if (o.ok())
        o.rule =
            "A zero-dim CPU tensor may join CUDA tensors: the CUDA kernel reads it as a scalar, and the "
            "result is on the GPU. " +
            o.rule;
      return o;
    }
    return raises("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
                  kNoMove + " Elementwise ops check every operand's device against the first CUDA one's.");
  }
  if (op == Op::Conv1d || op == Op::Conv2d) {
    return convolution(op, a, b, bias, r, shape ? *shape : default_conv_shape(op), a_device, b_device);
  }
  auto [kernel, args] = matrix_kernel(op, bias.has_value(), a_device, b_device);
  Outcome o = wrapper_device_error(args, kernel, r);
  o.rule += " The CUDA kernel's wrapper checks each tensor argument's device, in order, before any dtype.";
  return o;
}

}  // namespace pl::promote::torch
