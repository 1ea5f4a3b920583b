#include "core/promote/torch_matmul_precision.h"

#include <algorithm>
#include <array>

#include "core/util/names.h"

namespace pl::promote::torch {
namespace {

constexpr std::array<std::string_view, 3> kNames = {"highest", "high", "medium"};

std::string_view onednn_fp32_precision(MatmulPrecision p) {
  switch (p) {
    case MatmulPrecision::Highest: return "ieee";
    case MatmulPrecision::High: return "tf32";
    case MatmulPrecision::Medium: return "bf16";
  }
  return "ieee";
}

}  // namespace

std::optional<MatmulPrecision> parse_matmul_precision(std::string_view name) {
  return find_named<MatmulPrecision>(kNames, name);
}

std::string_view matmul_precision_name(MatmulPrecision p) { return kNames[static_cast<int>(p)]; }

Float32Internals float32_internals(MatmulPrecision p, Release r) {
  const bool reduced = p != MatmulPrecision::Highest;
  Float32Internals out;
  out.flags.push_back({"cuda.matmul.allow_tf32", reduced ? "True" : "False"});
  out.flags.push_back({"cudnn.allow_tf32", "True"});  // cuDNN's default; the setting leaves it
  out.cuda_matmul = reduced ? DType::tf32 : DType::float32;
  out.cuda_conv = DType::tf32;
  if (is_1_13(r)) {
    out.cpu_matmul = DType::float32;
    out.cpu_condition = "PyTorch 1.13 has no reduced-precision float32 matmul on the CPU";
  } else {
    out.flags.push_back({"cuda.matmul.fp32_precision", reduced ? "tf32" : "ieee"});
    out.flags.push_back({"cudnn.conv.fp32_precision", "tf32"});
    const std::string_view cpu = onednn_fp32_precision(p);
    out.flags.push_back({"mkldnn.matmul.fp32_precision", std::string(cpu)});
    out.cpu_matmul = cpu == "bf16" ? DType::bfloat16 : cpu == "tf32" ? DType::tf32 : DType::float32;
    out.cpu_condition = cpu == "bf16"
                            ? "where the CPU has AMX (oneDNN rounds to bfloat16 only in its AMX kernels); float32 "
                              "elsewhere"
                        : cpu == "tf32" ? "where the CPU has AMX-FP16 (PyTorch asks for it before oneDNN's TF32 "
                                          "mode); float32 elsewhere"
                                        : "always";
  }
  switch (p) {
    case MatmulPrecision::Highest:
      out.rule =
          "\"highest\" keeps float32 products in float32 -- but cuDNN's own TF32 switch is "
          "on by default, so cuDNN may still run float32 convolutions on a GPU in TF32 (it picks the kernels).";
      break;
    case MatmulPrecision::High:
      out.rule =
          "\"high\" lets float32 products run on TF32 tensor cores (10 mantissa bits in "
          "the inputs; cuBLAS's sums kept to float32's 24 bits, truncated, in the accumulation probe's "
          "directed tests on H100 and H200).";
      break;
    case MatmulPrecision::Medium:
      out.rule = is_1_13(r) ? "\"medium\" acts like \"high\" in PyTorch 1.13: TF32 on CUDA, nothing on the CPU."
                            : "\"medium\" lets oneDNN round the inputs to bfloat16 on a CPU with AMX; on CUDA it "
                              "acts like \"high\" (TF32), never bfloat16.";
      break;
  }
  return out;
}

bool matmul_precision_applies(const Engine& e, std::string_view op) {
  return e.framework == "torch" && op != "to" &&
         std::find(e.kind_ops.begin(), e.kind_ops.end(), op) == e.kind_ops.end();
}

Release release_of(const Engine& e) {
  return e.version == release_version(Release::V1_13) ? Release::V1_13 : Release::V2_15;
}

std::vector<std::string> describe_internals(std::string_view setting, std::string_view op, const Float32Internals& in) {
  const bool conv = op.starts_with("conv");
  std::vector<std::string> lines;
  lines.push_back("under torch.set_float32_matmul_precision(\"" + std::string(setting) + "\"):");
  const DType cuda = conv ? in.cuda_conv : in.cuda_matmul;
  // cuDNN chooses a convolution's kernels, TF32 only allowed; the accumulation probe recorded
  // cuBLAS's TF32 products.
  lines.push_back("  CUDA (compute capability >= 8.0): the float32 operands " +
                  (cuda != DType::tf32 ? "run as " + std::string(name(cuda)) + ", float32 accumulation"
                   : conv              ? std::string("may run as tf32 (cuDNN picks its kernels)")
                                       : std::string("run as tf32, summed to float32's 24 bits, truncated")));
  if (!conv) lines.push_back("  CPU: " + std::string(name(in.cpu_matmul)) + " -- " + in.cpu_condition);
  lines.push_back("  " + in.rule);
  std::string flags = "  flags:";
  for (const auto& f : in.flags) {
    flags += " torch.backends.";
    flags += f.name;
    flags += "=";
    flags += f.value;
  }
  lines.push_back(flags);
  return lines;
}

}  // namespace pl::promote::torch
