#include "core/promote/torch_cuda_recorded.h"

#include <algorithm>
#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "core/promote/torch_cuda_recording.h"  // generated: kRecording, the file's text
#include "core/promote/torch_names.h"

namespace pl::promote::torch {
namespace {

struct Recording {
  nlohmann::json json;
  std::array<int, kDTypeCount> index;  // DType -> position in "dtypes", -1 when absent
  std::string rule;                    // "Recorded from PyTorch 2.11.0 on NVIDIA H100 ..., CUDA 13.0."
};

const Recording& recording() {
  static const Recording r = [] {
    Recording out;
    out.json = nlohmann::json::parse(recorded::kRecording);
    out.index.fill(-1);
    const auto& names = out.json.at("dtypes");
    for (size_t i = 0; i < names.size(); ++i)
      if (auto t = from_python_name(names[i].get<std::string>()))
        out.index[static_cast<size_t>(*t)] = static_cast<int>(i);
    out.rule = "Recorded from PyTorch " + std::string(kRecordedCudaVersion) + " on " +
               out.json.at("gpu").get<std::string>() + ", CUDA " + out.json.at("cuda").get<std::string>() + ".";
    return out;
  }();
  return r;
}

Outcome not_recorded(const std::string& what) {
  return Outcome{std::nullopt, "precision-lab", what + " was not recorded on CUDA",
                 "The recording (gen_torch.py --device cuda) holds the operand kinds users hit: "
                 "tensors, zero-dim tensors and Python scalars for elementwise ops, tensors for "
                 "the rest."};
}

}  // namespace

std::span<const DType> recorded_cuda_unmodelled() {
  static constexpr std::array kLeftOut = {DType::int4, DType::uint4};
  return kLeftOut;
}

// (A custom format, id past the table, is no PyTorch dtype.)
bool recorded_cuda_has_dtype(DType t) {
  return static_cast<int>(t) < kDTypeCount && recording().index[static_cast<size_t>(t)] >= 0;
}

Outcome evaluate_recorded_cuda(Op op, Operand a, Operand b, std::optional<DType> bias) {
  const Recording& r = recording();
  for (DType t : {a.dtype, b.dtype, bias.value_or(a.dtype)})
    if (!recorded_cuda_has_dtype(t)) {
      // 2.11 had int4 and uint4, which the recording leaves out; it had no bcomplex32, and tf32
      // and the like are no torch dtypes.
      const auto left_out = recorded_cuda_unmodelled();
      if (std::find(left_out.begin(), left_out.end(), t) != left_out.end()) return not_recorded(std::string(name(t)));
      return raises("AttributeError", "module 'torch' has no attribute '" + std::string(name(t)) + "'",
                    std::string(name(t)) + " is not a dtype of PyTorch " + std::string(kRecordedCudaVersion) + ".");
    }
  const std::string table = std::string(op_name(op)) + ":" + std::string(operand_kind_name(a.kind)) + "," +
                            std::string(operand_kind_name(b.kind)) + (bias ? ",bias" : "");
  const auto& tables = r.json.at("tables");
  const auto it = tables.find(table);
  if (it == tables.end()) return not_recorded(table);
  const nlohmann::json* cell =
      &it.value()[r.index[static_cast<size_t>(a.dtype)]][r.index[static_cast<size_t>(b.dtype)]];
  if (bias) cell = &(*cell)[r.index[static_cast<size_t>(*bias)]];
  const nlohmann::json& o = r.json.at("outcomes").at(cell->get<size_t>());
  const std::string& rule = r.rule;
  if (o.is_string()) {
    auto t = from_python_name(o.get<std::string>());
    if (!t)
      return Outcome{std::nullopt, "precision-lab", "unknown dtype " + o.get<std::string>() + " in the recording",
                     rule};
    return returns(*t, rule);
  }
  const std::string type = o.at("error").get<std::string>();
  return raises(type, o.at("message").get<std::string>(),
                type == "AcceleratorError"
                    ? "A CUDA kernel asserted on the device: the op raises, and every later CUDA call "
                      "in that process fails the same way. " +
                          rule
                    : rule);
}

}  // namespace pl::promote::torch
