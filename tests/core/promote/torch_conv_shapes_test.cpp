// PyTorch's CPU convolutions over a grid of shapes (tests/data/promotion/gen_torch_conv_shapes.py,
// recorded from torch 2.15.0 and Debian's 1.13.1): the path PyTorch takes, and so the dtype error
// it raises, depends on the shapes. The engines answered "expected scalar type Float but found
// Double" for every shape, where a batch of two or a 5x5 kernel raise oneDNN's "Input type
// (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same or ...".
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/dtype/format_lookup.h"
#include "core/promote/engine.h"
#include "core/promote/torch_engine.h"

namespace pl::promote {
namespace {

using nlohmann::json;

std::string text(const Outcome& o) { return o.ok() ? std::string(name(*o.result)) : o.error_type + ": " + o.message; }

std::vector<int64_t> ints(const json& j) { return j.get<std::vector<int64_t>>(); }

// Every cell of `file` through engine `id`; `only` (optional) picks the cells to compare.
template <typename Pick>
size_t check_recording(const std::string& file, const std::string& id, Pick&& only) {
  std::ifstream in(std::string(PL_PROMOTION_DIR) + "/" + file);
  EXPECT_TRUE(in) << file;
  if (!in) return 0;
  const json rec = json::parse(in);
  const Engine* e = find_engine(id);
  EXPECT_NE(e, nullptr) << id;
  if (!e) return 0;
  std::vector<DType> dtypes;
  for (const auto& n : rec["dtypes"]) dtypes.push_back(*parse_dtype(n.get<std::string>()));
  size_t compared = 0, wrong = 0;
  for (const auto& c : rec["cells"]) {
    const json& shape = rec["shapes"][c[0].get<size_t>()];
    Query q;
    q.op = shape[0].get<std::string>();
    q.a = {dtypes[c[2].get<size_t>()]};
    q.b = {dtypes[c[3].get<size_t>()]};
    if (c[4].get<int>() >= 0) q.bias = dtypes[c[4].get<size_t>()];
    q.conv = ConvShape{ints(shape[1]), ints(shape[2]), shape[3].get<int64_t>(), c[1].get<int>()};
    if (!only(q)) continue;
    const std::string want = rec["outcomes"][c[5].get<size_t>()].get<std::string>(), got = text(e->evaluate(q));
    ++compared;
    if (got != want && ++wrong <= 5)
      ADD_FAILURE() << id << " " << q.op << " " << shape.dump() << " threads " << c[1] << " " << name(q.a.dtype)
                    << " x " << name(q.b.dtype) << (q.bias ? " bias " + std::string(name(*q.bias)) : "")
                    << "\n  recorded: " << want << "\n  engine:   " << got;
  }
  EXPECT_EQ(wrong, 0u) << file << " through " << id;
  return compared;
}

bool every(const Query&) { return true; }

TEST(TorchConvShapes, MatchPyTorch215WithoutAvx512) {
  EXPECT_GE(check_recording("torch_conv_shapes.json", "torch", every), 10000u);
}

TEST(TorchConvShapes, MatchPyTorch215WithAvx512) {
  EXPECT_GE(check_recording("torch_conv_shapes_onednn.json", "torch-onednn", every), 10000u);
}

TEST(TorchConvShapes, MatchPyTorch113WithAvx512) {
  EXPECT_GE(check_recording("torch1.13_conv_shapes_onednn.json", "torch1.13-onednn", every), 10000u);
}

// 1.13 reads the CPU's flags itself, so a machine without AVX-512 could not be recorded here;
// every path but bfloat16's is the same on every x86 CPU.
TEST(TorchConvShapes, MatchPyTorch113WithoutAvx512BesideBfloat16) {
  EXPECT_GE(check_recording("torch1.13_conv_shapes_onednn.json", "torch1.13",
                            [](const Query& q) { return q.a.dtype != DType::bfloat16; }),
            7000u);
}

TEST(TorchConvShapes, TheDefaultShapeIsTheGoldenTablesOne) {
  const ConvShape s = torch::default_conv_shape(torch::Op::Conv2d);
  EXPECT_EQ(s.input, (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_FALSE(torch::float32_conv_takes_onednn(torch::Op::Conv2d, s));
  ConvShape batch2 = s;
  batch2.input[0] = 2;
  EXPECT_TRUE(torch::float32_conv_takes_onednn(torch::Op::Conv2d, batch2));
  const Outcome o = torch::evaluate(torch::Op::Conv2d, {DType::float32}, {DType::float64}, std::nullopt,
                                    torch::Release::V2_15, &batch2);
  EXPECT_EQ(o.message,
            "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same or input should be "
            "a MKLDNN tensor and weight is a dense tensor");
}

TEST(TorchConvShapes, RefusesShapesPyTorchRefuses) {
  using torch::check_conv_shape;
  using torch::Op;
  EXPECT_EQ(check_conv_shape(Op::Conv2d, {{1, 3, 8, 8}, {4, 3, 3, 3}}).error(), "");
  EXPECT_NE(check_conv_shape(Op::Conv2d, {{1, 3, 8}, {4, 3, 3, 3}}).error().find("4 dimensions"), std::string::npos);
  EXPECT_NE(check_conv_shape(Op::Conv2d, {{1, 3, 8, 8}, {4, 2, 3, 3}}).error().find("expects 2"), std::string::npos);
  EXPECT_NE(check_conv_shape(Op::Conv2d, {{1, 4, 8, 8}, {3, 2, 3, 3}, 2}).error().find("not divisible"),
            std::string::npos);
  EXPECT_NE(check_conv_shape(Op::Conv1d, {{1, 1, 2}, {1, 1, 3}}).error().find("larger than the input"),
            std::string::npos);
  EXPECT_NE(check_conv_shape(Op::Conv1d, {{0, 1, 2}, {1, 1, 1}}).error().find("from 1"), std::string::npos);
}

// Bug: refused shapes said "PyTorch checks the shapes before the dtypes"; PyTorch 2.15 refuses a
// bias of another dtype first (conv2d of a 2-channel input with a 1-channel weight and a float64
// bias raises the bias's dtype error), and checks the weight's dtype after the shapes.
TEST(TorchConvShapes, RefusedShapesSayWhichDtypeCheckComesFirst) {
  Query q{"conv2d", {DType::float32}, {DType::float32}, std::nullopt};
  q.conv = ConvShape{{1, 2, 8, 8}, {1, 1, 3, 3}};
  const Outcome o = find_engine("torch")->evaluate(q);
  EXPECT_EQ(o.error_type, "precision-lab");
  EXPECT_EQ(o.rule.find("before the dtypes"), std::string::npos) << o.rule;
  EXPECT_NE(o.rule.find("before the weight's dtype"), std::string::npos) << o.rule;
  // The bias's dtype first, as PyTorch 2.15 raises it for these shapes.
  const Outcome biased =
      find_engine("torch")->evaluate(Query{"conv2d", {DType::float32}, {DType::float32}, DType::float64, q.conv});
  EXPECT_EQ(biased.error_type, "RuntimeError");
  EXPECT_EQ(biased.message, "Input type (float) and bias type (double) should be the same");
}

}  // namespace
}  // namespace pl::promote
