// Tensors on two devices (core/promote/torch_devices.h): the texts PyTorch's source gives for each
// op and release, each as users report it, and -- once recorded on a GPU by
// tests/data/promotion/gen_torch_devices.py -- every recorded cell.
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/dtype/format_lookup.h"
#include "core/promote/engine.h"
#include "core/promote/torch_engine.h"

namespace pl::promote {
namespace {

std::string text(const Outcome& o) { return o.ok() ? std::string(name(*o.result)) : o.error_type + ": " + o.message; }

struct Call {
  const char* engine;
  const char* op;
  DType a, b;
  Device a_on, b_on;
  std::optional<DType> bias = std::nullopt;
  OperandKind a_kind = OperandKind::Tensor;
  std::optional<ConvShape> shape = std::nullopt;
};

Outcome ask(const Call& c) {
  Query q;
  q.op = c.op;
  q.a.dtype = c.a;
  q.a.kind = c.a_kind;
  q.b.dtype = c.b;
  q.bias = c.bias;
  q.conv = c.shape;
  q.a_device = c.a_on;
  q.b_device = c.b_on;
  return find_engine(c.engine)->evaluate(q);
}

constexpr DType f32 = DType::float32, f16 = DType::float16, f64 = DType::float64;
constexpr Device cpu = Device::Cpu, cuda = Device::Cuda;

// nn.Linear moved to the GPU, fed a CPU batch: F.linear calls addmm(bias, x, w.t()), and the CUDA
// wrapper meets the CPU x as its second argument, mat1.
TEST(TorchDevices, LinearWithBiasNamesMat1InAddmm) {
  EXPECT_EQ(text(ask({"torch", "linear", f32, f32, cpu, cuda, f32})),
            "RuntimeError: Expected all tensors to be on the same device, but got mat1 is on cpu, different from "
            "other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)");
  EXPECT_EQ(text(ask({"torch1.13", "linear", f32, f32, cpu, cuda, f32})),
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
            "and cpu! (when checking argument for argument mat1 in method wrapper_addmm)");
  // The model left on the CPU, the batch on the GPU: the bias (self) is the common device.
  EXPECT_EQ(text(ask({"torch1.13", "linear", f32, f32, cuda, cpu, f32})),
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and "
            "cuda:0! (when checking argument for argument mat1 in method wrapper_addmm)");
}

// Without a bias F.linear is matmul(x, w.t()), which is mm(self, mat2).
TEST(TorchDevices, LinearWithoutBiasAndMmNameMat2) {
  EXPECT_EQ(text(ask({"torch", "linear", f32, f32, cuda, cpu})),
            "RuntimeError: Expected all tensors to be on the same device, but got mat2 is on cpu, different from "
            "other tensors on cuda:0 (when checking argument in method wrapper_CUDA_mm)");
  EXPECT_EQ(text(ask({"torch1.13", "mm", f32, f32, cpu, cuda})),
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and "
            "cuda:0! (when checking argument for argument mat2 in method wrapper_mm)");
  EXPECT_EQ(text(ask({"torch", "bmm", f32, f32, cpu, cuda})),
            "RuntimeError: Expected all tensors to be on the same device, but got mat2 is on cuda:0, different from "
            "other tensors on cpu (when checking argument in method wrapper_CUDA_bmm)");
}

// What is not modelled says so rather than guess: a depthwise convolution of a CUDA input takes
// CudaDepthwise2d, and a zero-dim operand of a matrix product is refused on the CPU too.
TEST(TorchDevices, NoGuessesAtTheEdges) {
  const ConvShape depthwise{{1, 4, 8, 8}, {4, 1, 3, 3}, 4};
  EXPECT_EQ(ask({"torch", "conv2d", f32, f32, cuda, cpu, std::nullopt, OperandKind::Tensor, depthwise}).error_type,
            "precision-lab");
  EXPECT_EQ(ask({"torch", "conv2d", f32, f32, cuda, cuda, std::nullopt, OperandKind::Tensor, depthwise}).error_type,
            "precision-lab");
  EXPECT_EQ(ask({"torch", "linear", f32, f32, cpu, cuda, std::nullopt, OperandKind::ZeroDim}).error_type,
            "precision-lab");
}

// The device check comes before any dtype check: a float16 x and a float32 weight on two devices
// raise the device error, not the dtype one.
TEST(TorchDevices, DeviceBeforeDtype) {
  const std::string got = text(ask({"torch", "mm", f16, f32, cpu, cuda}));
  EXPECT_NE(got.find("same device"), std::string::npos) << got;
}

// A convolution's check depends on the path its input selects.
TEST(TorchDevices, ConvolutionByPath) {
  // A small single image on the CPU takes PyTorch's own kernel, sent to CUDA where the weight is.
  EXPECT_EQ(text(ask({"torch", "conv2d", f32, f32, cpu, cuda})),
            "RuntimeError: Expected all tensors to be on the same device, but got weight is on cuda:0, different "
            "from other tensors on cpu (when checking argument in method wrapper_CUDA___slow_conv2d_forward)");
  EXPECT_EQ(text(ask({"torch1.13", "conv1d", f32, f32, cpu, cuda})),
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and "
            "cuda:0! (when checking argument for argument weight in method wrapper___slow_conv2d_forward)");
  // A batch of two takes oneDNN, whose type check names both tensor types.
  const ConvShape batch2{{2, 1, 8, 8}, {3, 1, 3, 3}};
  EXPECT_EQ(text(ask({"torch", "conv2d", f32, f32, cpu, cuda, std::nullopt, OperandKind::Tensor, batch2})),
            "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
            "same or input should be a MKLDNN tensor and weight is a dense tensor");
  // A CUDA input takes cuDNN's path.
  EXPECT_EQ(text(ask({"torch", "conv2d", f32, f32, cuda, cpu})),
            "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the "
            "same");
  EXPECT_EQ(text(ask({"torch", "conv2d", f16, f32, cuda, cpu})),
            "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.FloatTensor) should be the "
            "same");
  // The frontend's bias dtype check comes first, devices or not.
  EXPECT_EQ(text(ask({"torch", "conv2d", f32, f32, cpu, cuda, f64})),
            "RuntimeError: Input type (float) and bias type (double) should be the same");
  // Before the shapes too (a 2-channel input, a 1-channel weight), as on one device: the shapes'
  // refusal came first on this path.
  const ConvShape channels{{1, 2, 8, 8}, {1, 1, 3, 3}};
  EXPECT_EQ(text(ask({"torch", "conv2d", f32, f32, cpu, cuda, f64, OperandKind::Tensor, channels})),
            "RuntimeError: Input type (float) and bias type (double) should be the same");
  EXPECT_EQ(ask({"torch", "conv2d", f32, f32, cpu, cuda, std::nullopt, OperandKind::Tensor, channels}).error_type,
            "precision-lab");
}

// Elementwise ops: TensorIterator's check names the CUDA device first whatever the order; a
// zero-dim CPU tensor may join (a CUDA kernel reads it as a scalar), a zero-dim CUDA one may not.
TEST(TorchDevices, ElementwiseAndTheCpuScalar) {
  const std::string mismatch =
      "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!";
  EXPECT_EQ(text(ask({"torch", "add", f32, f32, cpu, cuda})), mismatch);
  EXPECT_EQ(text(ask({"torch", "mul", f32, f32, cuda, cpu})), mismatch);
  EXPECT_EQ(text(ask({"torch1.13", "add", f32, f32, cpu, cuda})), mismatch);
  EXPECT_EQ(text(ask({"torch", "add", f32, f16, cpu, cuda, std::nullopt, OperandKind::ZeroDim})), "float16");
  EXPECT_EQ(text(ask({"torch1.13", "add", f32, f16, cpu, cuda, std::nullopt, OperandKind::ZeroDim})), "float16");
  EXPECT_EQ(text(ask({"torch", "add", f32, f16, cuda, cpu, std::nullopt, OperandKind::ZeroDim})), mismatch);
}

// One device is that device's engine: the CPU engine with both on CUDA is torch-cuda's answer,
// and torch-cuda with both on the CPU is the CPU engine's.
TEST(TorchDevices, OneDeviceIsThatDevicesEngine) {
  Query both_cuda{"bmm", {f32}, {f16}};
  both_cuda.a_device = both_cuda.b_device = cuda;
  EXPECT_EQ(text(find_engine("torch")->evaluate(both_cuda)),
            text(find_engine("torch-cuda")->evaluate({"bmm", {f32}, {f16}})));
  Query both_cpu{"mm", {f32}, {f16}};
  both_cpu.a_device = both_cpu.b_device = cpu;
  EXPECT_EQ(text(find_engine("torch-cuda")->evaluate(both_cpu)),
            text(find_engine("torch")->evaluate({"mm", {f32}, {f16}})));
  EXPECT_EQ(find_engine("torch1.13")->evaluate(both_cuda).error_type, "precision-lab");  // 1.13 on CUDA: no model
  // .to(dtype) converts where the tensor is.
  EXPECT_EQ(text(ask({"torch", "to", f32, f16, cpu, cuda})), "float16");
  // Other dtypes on two devices are not modelled, never guessed.
  EXPECT_EQ(ask({"torch", "add", DType::int32, f32, cpu, cuda}).error_type, "precision-lab");
}

// The fixes move a tensor first; a cast alone leaves the devices apart.
TEST(TorchDevices, FixesMoveATensor) {
  Query q{"linear", {f32}, {f32}, f32};
  q.a_device = cpu;
  q.b_device = cuda;
  const Engine& e = *find_engine("torch");
  const auto fixes = suggest_fixes(e, q);
  ASSERT_GE(fixes.size(), 2u);
  EXPECT_EQ(fixes[0].code, "x.to(w.device)");
  EXPECT_EQ(text(fixes[0].outcome), "float32");
  EXPECT_EQ(fixes[1].code, "model.to(x.device)");
  EXPECT_EQ(text(fixes[1].outcome), "float32");
  q.a.dtype = f16;  // float16 x on the CPU: moving it leaves the dtype error; casting leaves the device one
  for (const Fix& f : suggest_fixes(e, q)) {
    if (f.code == "x.to(w.device)") {
      EXPECT_NE(f.outcome.message.find("same dtype"), std::string::npos) << f.outcome.message;
    } else if (f.code == "x.to(w.dtype)") {
      EXPECT_NE(f.outcome.message.find("same device"), std::string::npos) << f.outcome.message;
    }
  }
}

TEST(TorchDevices, PlacingIsCheckedWhereAsked) {
  Query q{"add", {f32}, {f32, OperandKind::Scalar}};
  EXPECT_FALSE(place_operands(*find_engine("numpy"), q, "cuda", "", "--a-device", "--b-device"));
  EXPECT_FALSE(place_operands(*find_engine("torch-autocast-cuda"), q, "cuda", "", "--a-device", "--b-device"));
  EXPECT_FALSE(place_operands(*find_engine("torch"), q, "gpu", "", "--a-device", "--b-device"));
  const Status scalar = place_operands(*find_engine("torch"), q, "", "cuda", "--a-device", "--b-device");
  EXPECT_NE(scalar.error().find("Python scalar has no device"), std::string::npos) << scalar.error();
  EXPECT_TRUE(place_operands(*find_engine("torch"), q, "cuda", "", "--a-device", "--b-device"));
  EXPECT_EQ(q.a_device, cuda);
  EXPECT_EQ(q.b_device, std::nullopt);  // a Python scalar
  Query tensors{"mm", {f32}, {f32}};
  EXPECT_TRUE(place_operands(*find_engine("torch-cuda"), tensors, "cpu", "", "--a-device", "--b-device"));
  EXPECT_EQ(tensors.b_device, cuda);  // the other tensor is named too: on the engine's own device
}

// The dispatcher's device check as 2.x releases before the current wording printed it (users
// quote both): "but found at least two devices, COMMON and DEVICE! (when checking argument for
// argument ARG in method WRAPPER)". The model gives the current wording; a recording from such a
// release is compared in its own.
std::string in_older_2x_wording(const std::string& text) {
  static const std::regex current(
      R"(RuntimeError: Expected all tensors to be on the same device, but got (\w+) is on ([\w:]+), different from )"
      R"(other tensors on ([\w:]+) \(when checking argument in method (\w+)\))");
  std::smatch m;
  if (!std::regex_match(text, m, current)) return text;
  return "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, " + m[3].str() +
         " and " + m[2].str() + "! (when checking argument for argument " + m[1].str() + " in method " + m[4].str() +
         ")";
}

TEST(TorchDevices, OlderWordingOfTheWrapperCheck) {
  EXPECT_EQ(in_older_2x_wording(text(ask({"torch", "mm", f32, f32, cuda, cpu}))),
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
            "cpu! (when checking argument for argument mat2 in method wrapper_CUDA_mm)");  // as LTX-Video#24 quotes it
}

// The GPU recording, cell by cell, when one is checked in (scripts/gpu_check.sh records it).
TEST(TorchDevices, MatchTheGpuRecording) {
  std::ifstream in(std::string(PL_PROMOTION_DIR) + "/torch_devices_cuda.json");
  if (!in)
    GTEST_SKIP() << "no GPU recording yet (tests/data/promotion/torch_devices_cuda.json): the texts are "
                    "modelled from PyTorch's source; scripts/gpu_check.sh records them on a GPU";
  const nlohmann::json rec = nlohmann::json::parse(in);
  const Engine& e = *find_engine("torch");
  size_t compared = 0, wrong = 0, older_wording = 0;
  for (const auto& c : rec["cells"]) {
    const std::string op = c["op"];
    if (op.starts_with("module ")) continue;  // the same calls as linear and conv2d with a bias
    Query q{op.substr(0, op.find('-')),
            {*parse_dtype(c["a"].get<std::string>())},
            {*parse_dtype(c["b"].get<std::string>())}};
    if (c["a_kind"] == "zerodim") q.a.kind = OperandKind::ZeroDim;
    if (!c["bias"].is_null()) q.bias = *parse_dtype(c["bias"].get<std::string>());
    if (q.op.starts_with("conv"))
      q.conv = ConvShape{c["a_shape"].get<std::vector<int64_t>>(), c["b_shape"].get<std::vector<int64_t>>(), 1,
                         rec["header"]["threads"].get<int>()};
    q.a_device = *parse_device(c["a_device"].get<std::string>());
    // A CPU bfloat16 (float16) convolution takes oneDNN only on a CPU with AVX-512 (AVX-512 FP16
    // or AMX), which the recording machine may or may not have: the torch engine models the CPU
    // without.
    if (q.op.starts_with("conv") && (q.a.dtype == DType::bfloat16 || q.a.dtype == DType::float16) &&
        q.a_device == Device::Cpu)
      continue;
    q.b_device = *parse_device(c["b_device"].get<std::string>());
    const Outcome o = e.evaluate(q);
    if (o.error_type == "precision-lab") continue;
    ++compared;
    const std::string recorded = c["outcome"].get<std::string>();
    const bool older = recorded.find("(when checking argument for argument") != std::string::npos;
    older_wording += older;
    const std::string model = older ? in_older_2x_wording(text(o)) : text(o);
    if (model != recorded && ++wrong <= 5) ADD_FAILURE() << c.dump() << "\n  engine: " << model;
  }
  EXPECT_EQ(wrong, 0u) << "of " << compared << " cells recorded from torch " << rec["header"]["torch"] << " ("
                       << older_wording << " in the older wording of the wrapper's check)";
  EXPECT_GT(compared, 0u);
}

}  // namespace
}  // namespace pl::promote
